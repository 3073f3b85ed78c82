/**
 * GET /repro/…: the reproduction pages runs published (src/repro/publish.ts).
 *
 *   /repro/<id>/…                       a public repository's page, for anyone with the address
 *   /repro/private/<id>/…               a private one's: the gate has checked Access; answered
 *                                       with a redirect to the granted address below
 *   /repro/private/<id>.<grant>/…       served while the grant holds (repro/grant.ts); an expired
 *                                       grant goes back through Access
 * `<id>` is 128 random bits, so a page is found only through its link; the
 * old per-session addresses (`/repro/<session>/`) are not served. A path to a
 * directory serves its index.html; `…/<id>` without the slash redirects to it.
 *
 * The page is code a model wrote, served from the dashboard's origin, so it
 * is sandboxed: `Content-Security-Policy: sandbox allow-scripts` gives it an
 * opaque origin, so it can run its button but cannot read the dashboard, its
 * API or its cookies. Its own module scripts then load cross-origin, hence
 * `Access-Control-Allow-Origin: *` on every file. The same policy keeps it
 * home (`reproPolicy`): it loads scripts, styles, images, fonts and media
 * only from under its own address, and fetches nothing, opens no socket and
 * submits no form, so it cannot even send a request to the Worker with the
 * operator's cookie (the reproduce skill's page is a static Vite build that
 * needs no network once loaded). Reached with the canonical request's
 * decoded segments; pure over the bucket, the key and the clock.
 */
import { checkGrant, grantSegment } from "../repro/grant";
import { PRIVATE_SEGMENT, PUBLICATION_ID } from "../repro/publish";
import { REPRO_PREFIX } from "../shared/buckets";
import { json, notFound } from "./responses";

export const REPRO_SANDBOX = "sandbox allow-scripts allow-forms allow-modals allow-popups";

/**
 * The whole Content-Security-Policy of a page published at `pageBase` (its
 * absolute address, ending in a slash). The page's own origin is opaque, so
 * its files are named by that address, as a path prefix, not by `'self'`
 * (which would also name the dashboard). Inline code and eval stay allowed
 * (what a library under test does is the reproduction; neither reaches the
 * network), and so do `data:` and `blob:` images, fonts and media, which
 * are local. `form-action 'none'` stops a form's submission, not its
 * submit event, so a form a script handles still works.
 */
export function reproPolicy(pageBase: string): string {
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
    "base-uri 'none'"
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
  const object = await deps.bucket.get(objectKey(where.prefix, where.rest, where.directory));
  if (!object) return notFound();
  const headers = new Headers({
    "content-type": object.httpMetadata?.contentType ?? "application/octet-stream",
    "content-security-policy": reproPolicy(new URL(`${where.page}/`, url).href),
    "access-control-allow-origin": "*",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
    etag: object.httpEtag
  });
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
  return new Response(null, { status, headers: { location: location.toString(), "cache-control": "no-store", "referrer-policy": "no-referrer" } });
}
