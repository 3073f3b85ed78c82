/**
 * GET /repro/:session/*: the reproduction page the agent published for an
 * issue (src/repro/publish.ts), public like a workers.dev preview would be.
 *
 * The page is code a model wrote, served from the dashboard's origin, so it
 * is sandboxed: `Content-Security-Policy: sandbox allow-scripts` gives it an
 * opaque origin, so it can run its button but cannot read the dashboard, its
 * API or its cookies. Its own module scripts then load cross-origin, hence
 * `Access-Control-Allow-Origin: *` on every file. Pure: the bucket is a
 * parameter.
 */
import { isSessionName } from "../run/session-name";
import { REPRO_PREFIX } from "../shared/buckets";
import { json, notFound } from "./responses";

export const REPRO_SANDBOX = "sandbox allow-scripts allow-forms allow-modals allow-popups";

export async function handleReproRoute(request: Request, bucket: Pick<R2Bucket, "get">): Promise<Response | null> {
  const url = new URL(request.url);
  const match = /^\/repro\/([^/]+)(\/.*)?$/.exec(url.pathname);
  if (!match) return null;
  if (request.method !== "GET" && request.method !== "HEAD") return json({ error: "method not allowed" }, 405, { allow: "GET, HEAD" });
  const session = decodeURIComponent(match[1]!);
  if (!isSessionName(session)) return notFound();
  if (match[2] === undefined) return Response.redirect(`${url.origin}/repro/${match[1]}/`, 301);
  const rest = decodeURIComponent(match[2].slice(1));
  if (rest.split("/").some((part) => part === "." || part === "..")) return notFound();
  const key = `${REPRO_PREFIX}${session}/${rest === "" || rest.endsWith("/") ? `${rest}index.html` : rest}`;
  const object = await bucket.get(key);
  if (!object) return notFound();
  const headers = new Headers({
    "content-type": object.httpMetadata?.contentType ?? "application/octet-stream",
    "content-security-policy": REPRO_SANDBOX,
    "access-control-allow-origin": "*",
    "x-content-type-options": "nosniff",
    "cache-control": "no-cache",
    etag: object.httpEtag
  });
  return new Response(request.method === "HEAD" ? null : object.body, { headers });
}
