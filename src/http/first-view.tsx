/**
 * `/`'s first view as HTML: the SPA's own App, rendered in the Worker with
 * react-dom's renderToString from the snapshot `/` carries, for the
 * browser to show before its JS and then hydrate (src/client.tsx). Null
 * when the snapshot does not read or any part of the render fails: `/` then
 * renders in the browser as it would without it. Why: docs/dashboard.md.
 */
import { StrictMode, type ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { StaticRouter } from "react-router";
import { App } from "../ui/app";
import { firstView } from "../ui/first-view";
import { readInlineSnapshot } from "../ui/view-models/inline-snapshot";

/**
 * The markup of `/` for the snapshot's JSON text (as the page carries it).
 * `now` is the Worker's clock; `onError` hears why a render was dropped.
 */
export async function renderFirstView(json: string, options: { now: number; onError?(error: unknown): void }): Promise<string | null> {
  const inline = readInlineSnapshot(json, options.now);
  if (!inline) return null;
  return renderWhole(
    <StrictMode>
      <App firstView={firstView(inline, true)} router={AtRoot} />
    </StrictMode>,
    options.onError
  );
}

/** How React's server output opens a Suspense boundary it left for the client to render. */
export const CLIENT_RENDERED_BOUNDARY = "<!--$!-->";

/**
 * `element` as HTML, or null when any part of it failed: a throw, or a
 * boundary React gave up on because a component under it threw (which
 * renderToString otherwise hides behind the boundary's fallback).
 * Synchronous under the hood: nothing on `/` suspends, and it costs half of
 * a streaming prerender.
 */
export function renderWhole(element: ReactNode, onError?: (error: unknown) => void): string | null {
  try {
    const html = renderToString(element);
    if (html.includes(CLIENT_RENDERED_BOUNDARY)) throw new Error("a part of the first view failed to render on the server");
    return html;
  } catch (error) {
    onError?.(error);
    return null;
  }
}

function AtRoot(props: { children?: ReactNode }) {
  return <StaticRouter location="/">{props.children}</StaticRouter>;
}
