/**
 * The one decision every request of the agent Worker goes through: its
 * canonical path (dot segments resolved, slashes collapsed, each segment
 * decoded once; a path with no canonical form is a 400), and who may reach
 * it. Deny by default: only published reproductions are public (a private
 * one while its grant holds, repro/grant.ts), `/dev/*` exists only with
 * LOCAL_DEV=1, everything else needs Access (access.ts); a WebSocket upgrade
 * is also judged by its Origin (`socketOriginRefusal`). Pure.
 * docs/security.md, "The HTTP boundary: one gate".
 */
import { GRANTED_SEGMENT } from "../repro/grant";
import { PRIVATE_SEGMENT } from "../repro/publish";

export type RouteAccess = "public" | "protected" | "local-dev";

export type RouteRule = {
  access: RouteAccess;
  /**
   * A request that changes something (a continuation): it must come from the
   * dashboard's own origin with a JSON body, so no other site can send it
   * with an operator's cookie.
   */
  sameOriginWrite?: boolean;
};

export type CanonicalRequest = {
  /** The request, re-addressed to the canonical path (query kept). */
  request: Request;
  url: URL;
  /** The decoded, non-empty path segments. */
  segments: string[];
  rule: RouteRule;
};

export type Canonicalized = ({ ok: true } & CanonicalRequest) | { ok: false; reason: string };

// A segment must not decode to something that changes how the path splits or
// resolves, or to bytes no route name contains.
const UNSAFE_SEGMENT = /[/\\\u0000-\u001f\u007f]/;

/** The decoded segments of a path and whether it ends in a slash, or why it has no canonical form. */
export function canonicalSegments(pathname: string): { ok: true; segments: string[]; trailingSlash: boolean } | { ok: false; reason: string } {
  const segments: string[] = [];
  for (const raw of pathname.split("/")) {
    if (raw === "") continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { ok: false, reason: "malformed percent-encoding" };
    }
    if (UNSAFE_SEGMENT.test(segment)) return { ok: false, reason: "a path segment decodes to a separator or control character" };
    if (segment === "." || segment === "..") return { ok: false, reason: "an encoded dot segment" };
    segments.push(segment);
  }
  return { ok: true, segments, trailingSlash: segments.length > 0 && pathname.endsWith("/") };
}

export function canonicalPath(segments: readonly string[], trailingSlash: boolean): string {
  if (segments.length === 0) return "/";
  return `/${segments.map(encodeURIComponent).join("/")}${trailingSlash ? "/" : ""}`;
}

/** Who may reach a canonical path. */
export function ruleFor(segments: readonly string[], method: string): RouteRule {
  const [first, second] = segments;
  if (first === "repro") {
    if (second !== PRIVATE_SEGMENT) return { access: "public" };
    return { access: GRANTED_SEGMENT.test(segments[2] ?? "") ? "public" : "protected" };
  }
  if (first === "dev") return { access: "local-dev" };
  if (first === "api" && second === "command-center" && segments[2] === "continue" && method !== "GET" && method !== "HEAD") {
    return { access: "protected", sameOriginWrite: true };
  }
  return { access: "protected" };
}

export function canonicalize(request: Request): Canonicalized {
  const url = new URL(request.url);
  const parsed = canonicalSegments(url.pathname);
  if (!parsed.ok) return parsed;
  const path = canonicalPath(parsed.segments, parsed.trailingSlash);
  const canonical = new URL(url);
  canonical.pathname = path;
  return {
    ok: true,
    request: path === url.pathname ? request : new Request(canonical, request),
    url: canonical,
    segments: parsed.segments,
    rule: ruleFor(parsed.segments, request.method)
  };
}

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

/**
 * Whether the request names a loopback host. With `LOCAL_DEV=1` the Worker is
 * a developer's `npm start`, and a page on another site that re-points its
 * own host name at 127.0.0.1 (DNS rebinding) still sends its own Host.
 */
export function isLoopbackRequest(request: Request, url: URL): boolean {
  const host = request.headers.get("host");
  return isLoopbackHost(url.hostname) && (host === null || isLoopbackHost(hostnameOf(host)));
}

/**
 * Why a request must not be served to a browser on another site, or null.
 * A browser's `Sec-Fetch-Site` and `Origin`, when sent, must name this
 * origin. `write`: an Origin is required (browsers send one on every POST)
 * and the body must be JSON, which a cross-site form cannot send without a
 * CORS preflight this Worker never grants.
 */
export function crossSiteRefusal(request: Request, url: URL, options: { write: boolean }): string | null {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return "cross-site request";
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== url.origin) return "cross-origin request";
  if (options.write) {
    if (origin === null) return "cross-origin request";
    if (!isJson(request.headers.get("content-type"))) return "the body must be application/json";
  }
  return null;
}

/**
 * Why a WebSocket upgrade must be refused, or null. A browser always sends
 * the page's Origin with an upgrade, and sockets are not held to CORS: a
 * page on another site (or a sandboxed reproduction page, whose Origin is
 * `null`) could otherwise open the dashboard's sockets with the operator's
 * Access cookie and read them. So an Origin, when present, must be this
 * request's own scheme and host, or under LOCAL_DEV a loopback host (the
 * dashboard served by `npx vite` on another port). No Origin is not a
 * browser: the dispatch CLI and Node's WebSocket send none, and Access still
 * stands in front of them.
 */
export function socketOriginRefusal(request: Request, url: URL, options: { localDev: boolean }): string | null {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return null;
  const origin = request.headers.get("origin");
  if (origin === null) return null;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return "a WebSocket from another origin";
  }
  if (from.origin === url.origin) return null;
  if (options.localDev && (from.protocol === "http:" || from.protocol === "https:") && isLoopbackHost(from.hostname)) return null;
  return "a WebSocket from another origin";
}

/** A local-dev route: no other site may read or write through it, and every POST is JSON (the CLI sends no Origin). */
export function localDevRefusal(request: Request, url: URL): string | null {
  const refused = crossSiteRefusal(request, url, { write: false });
  if (refused) return refused;
  if (request.method === "POST" && !isJson(request.headers.get("content-type"))) return "the body must be application/json";
  return null;
}

function isJson(contentType: string | null): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "application/json";
}

function hostnameOf(host: string): string {
  const bracket = host.startsWith("[") ? host.indexOf("]") : -1;
  if (bracket > 0) return host.slice(0, bracket + 1);
  const colon = host.lastIndexOf(":");
  return colon < 0 ? host : host.slice(0, colon);
}
