/**
 * Cloudflare Access, verified by the Worker itself rather than trusted from
 * the edge. Which requests need it is decided by the route policy
 * (route-policy.ts: everything but public reproductions); this module only
 * checks one request. When Access is configured (`CF_ACCESS_TEAM_DOMAIN` and
 * `CF_ACCESS_AUD` both set) the request needs a valid Access JWT, from the
 * `Cf-Access-Jwt-Assertion` header or else the `CF_Authorization` cookie:
 * RS256, signed by a key of the team's JWKS
 * (`https://<team domain>/cdn-cgi/access/certs`), issuer
 * `https://<team domain>`, audience the application's AUD tag, not expired.
 * Anything else is a 403. With both vars empty (local dev) everything is
 * open; with only one set the Worker refuses to guess (500).
 *
 * `accessGuard` returns null to let the request through. The JWKS is fetched
 * by jose and cached per isolate, one per team domain. Pure apart from that
 * fetch; tests inject nothing but an MSW-served JWKS.
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTVerifyGetKey } from "jose";

/** The answer to every gated path while Access is set up by half. */
export const HALF_CONFIGURED =
  "agent-think: Cloudflare Access is half configured, so nothing behind it is served. Set both CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD, or neither.\n";

export type AccessConfig = { CF_ACCESS_TEAM_DOMAIN?: string; CF_ACCESS_AUD?: string };

export type AccessDeps = {
  /** The key set to verify against; by default the team's JWKS, cached per isolate. */
  jwks?: JWTVerifyGetKey;
  /** The clock expiry is checked against. */
  now?: () => number;
  /** Why a request was refused (a log line); never sent to the client. */
  onDenied?(reason: string, request: Request): void;
};

export const ACCESS_JWT_HEADER = "cf-access-jwt-assertion";
export const ACCESS_COOKIE = "CF_Authorization";

const jwksByDomain = new Map<string, JWTVerifyGetKey>();

/** `myteam.cloudflareaccess.com` from that host, an https URL of it, or the bare team name `myteam`. */
export function normalizeTeamDomain(value: string): string {
  const host = value.trim().replace(/^https?:\/\//i, "").replace(/\/+$/, "").toLowerCase();
  return host.includes(".") ? host : `${host}.cloudflareaccess.com`;
}

export async function accessGuard(request: Request, config: AccessConfig, deps: AccessDeps = {}): Promise<Response | null> {
  const teamDomain = config.CF_ACCESS_TEAM_DOMAIN?.trim() ?? "";
  const audiences = (config.CF_ACCESS_AUD ?? "")
    .split(",")
    .map((aud) => aud.trim())
    .filter(Boolean);
  if (teamDomain === "" && audiences.length === 0) return null;
  if (teamDomain === "" || audiences.length === 0) {
    deps.onDenied?.("access is half configured: set both CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD, or neither", request);
    // The fix names two variables and no value: the page an operator sees in place of the dashboard says what to do.
    return new Response(HALF_CONFIGURED, { status: 500, headers: { "content-type": "text/plain; charset=utf-8" } });
  }

  const token = accessToken(request);
  if (!token) return deny(request, deps, "no Access token");

  const domain = normalizeTeamDomain(teamDomain);
  try {
    await jwtVerify(token, deps.jwks ?? teamJwks(domain), {
      issuer: `https://${domain}`,
      audience: audiences,
      algorithms: ["RS256"],
      requiredClaims: ["exp"],
      ...(deps.now ? { currentDate: new Date(deps.now()) } : {})
    });
    return null;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return deny(request, deps, `invalid Access token: ${typeof code === "string" ? code : (error as Error).message}`);
  }
}

/** Who asked, for a request `accessGuard` let through: the operator's e-mail, a service token's name, or "local operator" with Access off. */
export const LOCAL_OPERATOR = "local operator";

export function accessIdentity(request: Request, config: AccessConfig): string {
  if (!config.CF_ACCESS_TEAM_DOMAIN?.trim() && !config.CF_ACCESS_AUD?.trim()) return LOCAL_OPERATOR;
  const token = accessToken(request);
  try {
    // Verified by accessGuard on this same request before any route ran.
    const claims = token ? decodeJwt(token) : {};
    const who = typeof claims.email === "string" ? claims.email : typeof claims.common_name === "string" ? `service token ${claims.common_name}` : "";
    return who.slice(0, 320) || "an Access identity with no e-mail";
  } catch {
    return "an Access identity with no e-mail";
  }
}

/** The JWT from the header, else from the cookie. */
export function accessToken(request: Request): string | null {
  const header = request.headers.get(ACCESS_JWT_HEADER)?.trim();
  if (header) return header;
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() === ACCESS_COOKIE) return part.slice(separator + 1).trim() || null;
  }
  return null;
}

/** The team's key set, one per isolate (jose refetches on an unknown key id, at most every 30 s). */
function teamJwks(domain: string): JWTVerifyGetKey {
  let jwks = jwksByDomain.get(domain);
  if (!jwks) {
    jwks = createRemoteJWKSet(new URL(`https://${domain}/cdn-cgi/access/certs`));
    jwksByDomain.set(domain, jwks);
  }
  return jwks;
}

function deny(request: Request, deps: AccessDeps, reason: string): Response {
  deps.onDenied?.(reason, request);
  return new Response("forbidden", { status: 403, headers: { "content-type": "text/plain; charset=utf-8" } });
}
