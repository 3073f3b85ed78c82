/**
 * `/`'s first view as HTML: the SPA's own App, rendered in the Worker with
 * react-dom's static prerender from the snapshot `/` carries, for the
 * browser to show before its JS and then hydrate (src/client.tsx). Null
 * when the snapshot does not read or any part of the render fails: `/` then
 * renders in the browser as it would without it. Why: docs/dashboard.md.
 */
import { StrictMode, type ReactNode } from "react";
import { prerender } from "react-dom/static";
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
  let failed = false;
  const fail = (error: unknown) => {
    failed = true;
    options.onError?.(error);
  };
  try {
    const { prelude } = await prerender(
      <StrictMode>
        <App firstView={firstView(inline, true)} router={AtRoot} />
      </StrictMode>,
      { onError: fail }
    );
    const html = await new Response(prelude).text();
    return failed ? null : html;
  } catch (error) {
    if (!failed) fail(error);
    return null;
  }
}

function AtRoot(props: { children?: ReactNode }) {
  return <StaticRouter location="/">{props.children}</StaticRouter>;
}
