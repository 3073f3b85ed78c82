/**
 * The dashboard's pages: `/`, `/thread/:session`, `/repositories` and
 * `/repositories/:owner/:name` are the SPA's index.html, served from the
 * static assets after the Worker has checked Access. `/` also carries the
 * command center's first snapshot page (inline-snapshot.ts) and the first
 * view drawn from it (first-view.tsx), streamed so the head goes out before
 * the snapshot is read. Anything else is left to the next handler. Pure:
 * the assets binding, the snapshot and the renderer are parameters.
 * docs/dashboard.md, "First paint".
 */
import { withTimeout } from "../health/run-checks";
import { parseRepo } from "../shared/repo";
import { isSessionName } from "../shared/session-name";
import { inlineSnapshotElement, inlineSnapshotJson, snapshotRequestFor, withoutConditionals } from "./inline-snapshot";
import { notFound } from "./responses";

export type AssetsFetcher = { fetch(request: Request): Promise<Response> };

export type SpaDeps = {
  assets: AssetsFetcher | undefined;
  /**
   * The answer to `request` (GET /api/command-center?limit=100 with the
   * page's headers) exactly as the Worker would give it, gate included;
   * absent: `/` carries no snapshot.
   */
  answer?(request: Request): Promise<Response>;
  /** The first view's markup for the snapshot's JSON text, or null; absent: #root keeps index.html's placeholder. */
  renderFirstView?(json: string): Promise<string | null>;
  /** How long `/` waits for the snapshot before it goes out without one (SNAPSHOT_WAIT_MS). */
  snapshotWaitMs?: number;
};

/** A command center slower than this does not hold `/`: the page goes out as index.html, and the SPA asks the API itself. */
export const SNAPSHOT_WAIT_MS = 1_500;

/** index.html's marks around #root's placeholder (the top bar drawn before the JS), which the first view replaces. */
export const FIRST_VIEW_OUTLET = { open: "<!--first-view-->", close: "<!--/first-view-->" };

export async function handleSpaRoute(request: Request, deps: SpaDeps): Promise<Response | null> {
  const url = new URL(request.url);
  const thread = /^\/thread\/([^/]+)\/?$/.exec(url.pathname);
  const repository = /^\/repositories(?:\/([^/]+)\/([^/]+))?\/?$/.exec(url.pathname);
  if (url.pathname !== "/" && !thread && !repository) return null;
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  if (thread && !isSessionName(decodeURIComponent(thread[1]!))) return notFound();
  if (repository?.[1] !== undefined && !parseRepo(`${decodeURIComponent(repository[1])}/${decodeURIComponent(repository[2]!)}`).ok) return notFound();
  if (!deps.assets) return notFound(); // a Worker built without the dashboard (the test runtime)
  const answer = url.pathname === "/" && request.method === "GET" ? deps.answer : undefined;
  const snapshot = answer ? withTimeout(answer(snapshotRequestFor(request)).then(inlineSnapshotJson), deps.snapshotWaitMs ?? SNAPSHOT_WAIT_MS, "the command center's snapshot") : null;
  snapshot?.catch(() => undefined); // read below, or dropped with a page that is not a 200
  // The inlined page is built from the whole file, never from a 304 or a range.
  const headers = answer ? withoutConditionals(request.headers) : request.headers;
  // "/" is the asset layer's index.html (asking for /index.html by name
  // would be redirected to "/").
  const page = await deps.assets.fetch(new Request(new URL("/", url), { method: request.method, headers }));
  if (!snapshot || page.status !== 200) return page;
  return streamWithSnapshot(page, snapshot, deps.renderFirstView);
}

/**
 * The page with the first view (when the snapshot reads and renders) in
 * place of #root's placeholder and the snapshot's element (or nothing, when
 * there is none) just before `</body>`.
 */
async function streamWithSnapshot(
  page: Response,
  snapshot: Promise<string | null>,
  render: SpaDeps["renderFirstView"]
): Promise<Response> {
  const html = await page.text();
  const at = html.lastIndexOf("</body>");
  const headers = new Headers(page.headers);
  for (const name of ["content-length", "etag", "last-modified", "content-encoding"]) headers.delete(name);
  // It holds this moment's data: never cached, never reused.
  headers.set("cache-control", "no-store");
  headers.set("content-type", "text/html; charset=utf-8");
  const preload = preloadLinks(html);
  if (preload) headers.set("link", preload);
  if (at < 0) return new Response(html, { status: 200, headers });
  const outlet = findOutlet(html.slice(0, at));
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  void (async () => {
    try {
      await writer.write(encoder.encode(html.slice(0, outlet?.start ?? at)));
      const json = await snapshot.catch(() => null);
      const view = outlet && json !== null && render ? await render(json).catch(() => null) : null;
      if (outlet) await writer.write(encoder.encode((view ?? html.slice(outlet.start, outlet.end)) + html.slice(outlet.end, at)));
      if (json !== null) await writer.write(encoder.encode(inlineSnapshotElement(json, view !== null)));
      await writer.write(encoder.encode(html.slice(at)));
      await writer.close();
    } catch (error) {
      await writer.abort(error).catch(() => undefined);
    }
  })();
  return new Response(readable, { status: 200, headers });
}

/** Where #root's placeholder is, its marks included, or null when the page marks none. */
function findOutlet(body: string): { start: number; end: number } | null {
  const start = body.indexOf(FIRST_VIEW_OUTLET.open);
  const close = start < 0 ? -1 : body.indexOf(FIRST_VIEW_OUTLET.close, start);
  return close < 0 ? null : { start, end: close + FIRST_VIEW_OUTLET.close.length };
}

/**
 * A `Link` header preloading the page's own module script and stylesheet
 * (as index.html names them under /assets/), so a browser starts on them
 * from the headers, before any of the body arrives.
 */
export function preloadLinks(html: string): string {
  const links: string[] = [];
  for (const [tag] of html.matchAll(/<(?:script|link)\b[^>]*>/gi)) {
    const script = /^<script\b/i.test(tag) && /\btype="module"/i.test(tag) ? /\bsrc="(\/assets\/[^"<>\s]+\.js)"/i.exec(tag) : null;
    const style = /^<link\b/i.test(tag) && /\brel="stylesheet"/i.test(tag) ? /\bhref="(\/assets\/[^"<>\s]+\.css)"/i.exec(tag) : null;
    // The same credentials mode as the tag, or the browser fetches it twice.
    const cors = /\scrossorigin\b/i.test(tag) ? "; crossorigin" : "";
    if (script) links.push(`<${script[1]}>; rel=modulepreload${cors}`);
    if (style) links.push(`<${style[1]}>; rel=preload; as=style${cors}`);
  }
  return links.join(", ");
}
