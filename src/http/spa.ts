/**
 * The dashboard's pages: `/` and `/thread/:session` are the SPA's
 * index.html, served from the static assets after the Worker has checked
 * Access. Anything else is left to the next handler. Pure: the assets
 * binding is a parameter.
 */
import { isSessionName } from "../run/session-name";
import { notFound } from "./responses";

export type AssetsFetcher = { fetch(request: Request): Promise<Response> };

export async function handleSpaRoute(request: Request, assets: AssetsFetcher | undefined): Promise<Response | null> {
  const url = new URL(request.url);
  const thread = /^\/thread\/([^/]+)\/?$/.exec(url.pathname);
  if (url.pathname !== "/" && !thread) return null;
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  if (thread && !isSessionName(decodeURIComponent(thread[1]!))) return notFound();
  if (!assets) return notFound(); // a Worker built without the dashboard (the test runtime)
  // "/" is the asset layer's index.html (asking for /index.html by name
  // would be redirected to "/").
  return assets.fetch(new Request(new URL("/", url), { method: request.method, headers: request.headers }));
}
