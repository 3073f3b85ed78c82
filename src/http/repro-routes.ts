/**
 * GET /repro/…: the reproduction pages runs published (src/repro/publish.ts):
 * `/repro/<id>/…` (a public repository's), `/repro/private/<id>/…` (behind
 * Access, redirected to a grant) and `/repro/private/<id>.<grant>/…` (while
 * the grant holds; repro/grant.ts). A page's address answers the Worker's
 * wrapper (repro-wrapper.ts); the model's documents go only to its frame
 * (`Sec-Fetch-Dest: iframe`), and every model's file carries `reproPolicy`.
 * Old per-session addresses are not served. Reached with the canonical
 * request's decoded segments; pure over the bucket, the key and the clock.
 */
import { checkGrant, grantSegment } from "../repro/grant";
import { issueFromMetadata } from "../repro/publication-issue";
import { PRIVATE_SEGMENT, PUBLICATION_ID } from "../repro/publish";
import { REPRO_PREFIX } from "../shared/buckets";
import { servesModelFile, wrapperResponse } from "./repro-wrapper";
import { json, notFound } from "./responses";

/** Scripts only: no forms, popups, dialogs, top navigation, downloads or same-origin access. */
export const REPRO_SANDBOX = "sandbox allow-scripts";

/**
 * The whole Content-Security-Policy of a model's file of a page published at
 * `pageBase` (its absolute address, ending in a slash), framed by the
 * wrapper from `origin` (the dashboard's). The page's own origin is opaque, so
 * its files are named by that address, as a path prefix, not by `'self'`
 * (which would also name the dashboard). Inline code and eval stay allowed
 * (what a library under test does is the reproduction; neither reaches the
 * network), and so do `data:` and `blob:` images, fonts and media, which
 * are local. Without `allow-forms` a form is never submitted and fires no
 * submit event: a page's controls work by their click handlers.
 */
export function reproPolicy(pageBase: string, origin: string): string {
  return [
    REPRO_SANDBOX,
    "default-src 'none'",
    `script-src ${pageBase} 'unsafe-inline' 'unsafe-eval'`,
    `style-src ${pageBase} 'unsafe-inline'`,
    `img-src ${pageBase} data: blob:`,
    `font-src ${pageBase} data:`,
    `media-src ${pageBase} data: blob:`,
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors ${origin}`
  ].join("; ");
}

export type ReproRouteDeps = {
  bucket: Pick<R2Bucket, "get" | "head">;
  /** The key private grants are signed with (the same in every isolate). */
  grantKey(): Promise<CryptoKey>;
  now(): number;
};

export async function handleReproRoute(request: Request, segments: readonly string[], deps: ReproRouteDeps): Promise<Response | null> {
  if (segments[0] !== "repro") return null;
  if (request.method !== "GET" && request.method !== "HEAD") return json({ error: "method not allowed" }, 405, { allow: "GET, HEAD" });
  const url = new URL(request.url);
  const directory = url.pathname.endsWith("/");

  if (segments[1] !== PRIVATE_SEGMENT) {
    const id = segments[1];
    if (id === undefined || !PUBLICATION_ID.test(id)) return notFound();
    return serve(request, deps, { page: `/repro/${id}`, prefix: `${REPRO_PREFIX}${id}/`, rest: segments.slice(2), directory });
  }

  const segment = segments[2];
  if (segment === undefined) return notFound();
  const rest = segments.slice(3);
  if (PUBLICATION_ID.test(segment)) {
    // Access let this request through (route-policy.ts): grant the page.
    const prefix = `${REPRO_PREFIX}${PRIVATE_SEGMENT}/${segment}/`;
    if (!(await deps.bucket.head(objectKey(prefix, rest, directory)))) return notFound();
    const granted = await grantSegment(await deps.grantKey(), segment, deps.now());
    return redirect(url, `/repro/${PRIVATE_SEGMENT}/${granted}`, rest, directory, 302);
  }
  const grant = await checkGrant(await deps.grantKey(), segment, deps.now());
  if (!grant.ok && grant.reason === "expired") return redirect(url, `/repro/${PRIVATE_SEGMENT}/${grant.id}`, rest, directory, 302);
  if (!grant.ok) return notFound();
  return serve(request, deps, {
    page: `/repro/${PRIVATE_SEGMENT}/${segment}`,
    prefix: `${REPRO_PREFIX}${PRIVATE_SEGMENT}/${grant.id}/`,
    rest,
    directory
  });
}

async function serve(
  request: Request,
  deps: ReproRouteDeps,
  where: { page: string; prefix: string; rest: readonly string[]; directory: boolean }
): Promise<Response> {
  const url = new URL(request.url);
  if (where.rest.length === 0 && !where.directory) return redirect(url, where.page, [], true, 301);
  const pageBase = new URL(`${where.page}/`, url).href;
  const key = objectKey(where.prefix, where.rest, where.directory);
  const dest = request.headers.get("sec-fetch-dest");
  if (where.rest.length === 0 && dest !== "iframe") {
    const index = await deps.bucket.head(key);
    if (!index) return notFound();
    return wrapperResponse(request, { pageBase, search: url.search, issue: issueFromMetadata(index.customMetadata) });
  }
  const object = await deps.bucket.get(key);
  if (!object) return notFound();
  const contentType = object.httpMetadata?.contentType ?? "application/octet-stream";
  if (!servesModelFile(dest, contentType)) {
    await object.body.cancel();
    return redirect(url, where.page, [], true, 302);
  }
  const headers = new Headers({
    "content-type": contentType,
    "content-security-policy": reproPolicy(pageBase, url.origin),
    "access-control-allow-origin": "*",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
    vary: "sec-fetch-dest",
    etag: object.httpEtag
  });
  if (request.method === "HEAD") await object.body.cancel();
  return new Response(request.method === "HEAD" ? null : object.body, { headers });
}

/** The bucket key of a path inside a publication: a directory means its index.html. */
function objectKey(prefix: string, rest: readonly string[], directory: boolean): string {
  const path = rest.join("/");
  if (path === "") return `${prefix}index.html`;
  return directory ? `${prefix}${path}/index.html` : `${prefix}${path}`;
}

function redirect(url: URL, page: string, rest: readonly string[], directory: boolean, status: 301 | 302): Response {
  const path = [page, ...rest.map(encodeURIComponent)].join("/") + (directory || rest.length === 0 ? "/" : "");
  const location = new URL(path, url);
  location.search = url.search;
  return new Response(null, {
    status,
    headers: { location: location.toString(), "cache-control": "no-store", "referrer-policy": "no-referrer", vary: "sec-fetch-dest" }
  });
}
