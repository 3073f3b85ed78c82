/**
 * Cloudflare Access, verified by the Worker itself rather than trusted from
 * the edge: one request checked by the Worker's Access mode (`accessMode`).
 * With CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD, a valid Access JWT or a 403;
 * with neither, open under LOCAL_DEV=1 or ACCESS=off, else closed with a
 * 503; half a configuration is a 500. Which requests need it is
 * route-policy.ts's call. `accessGuard` returns null to let a request
 * through. Pure apart from the JWKS fetch (jose, cached per isolate). The
 * token's checks: docs/command-center.md; the boundary: docs/security.md.
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTVerifyGetKey } from "jose";

/** The answer to every gated path while Access is set up by half. */
export const HALF_CONFIGURED =
  "agent-think: Cloudflare Access is half configured, so nothing behind it is served. Set both CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD, or neither.\n";

/** The answer to every gated path of a deploy with no Access and no opt-out. */
export const NOT_CONFIGURED =
  "agent-think: Cloudflare Access is not configured, so the dashboard, the API, the sockets and private reproductions are not served. " +
  "Put an Access application in front of this Worker and set CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD, " +
  "or set ACCESS=off to serve them to anyone who reaches the Worker (unsafe).\n";

/** How the answer to every gated path begins while ACCESS is neither "" nor "off" (`badAccessSetting`). */
export const BAD_ACCESS_SETTING_PREFIX = "agent-think: ACCESS=";

export type AccessConfig = { CF_ACCESS_TEAM_DOMAIN?: string; CF_ACCESS_AUD?: string; ACCESS?: string };

/** What the settings make of Access (see the table above). */
export type AccessMode =
  | { kind: "verify"; teamDomain: string; audiences: string[]; /** ACCESS=off is set too, and ignored: Access is verified. */ optOutIgnored: boolean }
  | { kind: "open"; reason: "local-dev" | "opted-out" }
  | { kind: "not-configured" }
  | { kind: "half-configured"; missing: "CF_ACCESS_TEAM_DOMAIN" | "CF_ACCESS_AUD" }
  | { kind: "bad-setting"; value: string };

export type AccessDeps = {
  /** LOCAL_DEV=1: without Access the Worker is open. Off by default, so a caller that forgets it fails closed. */
  localDev?: boolean;
  /** The key set to verify against; by default the team's JWKS, cached per isolate. */
  jwks?: JWTVerifyGetKey;
  /** The clock expiry is checked against. */
  now?: () => number;
  /** Why a request was refused (a log line); never sent to the client. */
  onDenied?(reason: string, request: Request): void;
};

export const ACCESS_JWT_HEADER = "cf-access-jwt-assertion";
export const ACCESS_COOKIE = "CF_Authorization";
/** The one value of ACCESS besides "" (Access required outside local dev). */
export const ACCESS_OFF = "off";

const jwksByDomain = new Map<string, JWTVerifyGetKey>();

/** `myteam.cloudflareaccess.com` from that host, an https URL of it, or the bare team name `myteam`. */
export function normalizeTeamDomain(value: string): string {
  const host = value.trim().replace(/^https?:\/\//i, "").replace(/\/+$/, "").toLowerCase();
  return host.includes(".") ? host : `${host}.cloudflareaccess.com`;
}

export function accessMode(config: AccessConfig, options: { localDev: boolean }): AccessMode {
  const setting = (config.ACCESS ?? "").trim();
  if (setting !== "" && setting.toLowerCase() !== ACCESS_OFF) return { kind: "bad-setting", value: setting };
  const optOut = setting !== "";
  const teamDomain = config.CF_ACCESS_TEAM_DOMAIN?.trim() ?? "";
  const audiences = (config.CF_ACCESS_AUD ?? "")
    .split(",")
    .map((aud) => aud.trim())
    .filter(Boolean);
  if (teamDomain !== "" && audiences.length > 0) return { kind: "verify", teamDomain, audiences, optOutIgnored: optOut };
  if (teamDomain !== "") return { kind: "half-configured", missing: "CF_ACCESS_AUD" };
  if (audiences.length > 0) return { kind: "half-configured", missing: "CF_ACCESS_TEAM_DOMAIN" };
  if (options.localDev) return { kind: "open", reason: "local-dev" };
  return optOut ? { kind: "open", reason: "opted-out" } : { kind: "not-configured" };
}

/**
 * The answer to a gated path while ACCESS holds `value`. A word (`on`,
 * `false`, `disabled`) is named; anything else is described, not echoed to
 * whoever asks (it could be a value meant for another variable).
 */
export function badAccessSetting(value: string): string {
  return `${BAD_ACCESS_SETTING_PREFIX}${namedSetting(value)} is not a setting, so nothing behind Access is served. Leave ACCESS empty (Access required) or set it to "off".\n`;
}

/** `"on"` for a short word; a description of the length for anything else. */
export function namedSetting(value: string): string {
  return /^[A-Za-z0-9_-]{1,16}$/.test(value) ? JSON.stringify(value) : `(a value of ${value.length} characters)`;
}

export async function accessGuard(request: Request, config: AccessConfig, deps: AccessDeps = {}): Promise<Response | null> {
  const mode = accessMode(config, { localDev: deps.localDev ?? false });
  switch (mode.kind) {
    case "open":
      return null;
    case "not-configured":
      deps.onDenied?.("access is not configured: set CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD, or ACCESS=off", request);
      // Not the operator's mistake in a value but a missing step: 503, and the page says which step.
      return plain(NOT_CONFIGURED, 503);
    case "half-configured":
      deps.onDenied?.("access is half configured: set both CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD, or neither", request);
      // The fix names two variables and no value: the page an operator sees in place of the dashboard says what to do.
      return plain(HALF_CONFIGURED, 500);
    case "bad-setting":
      deps.onDenied?.(`ACCESS=${namedSetting(mode.value)} is not a setting: "" or "off"`, request);
      return plain(badAccessSetting(mode.value), 500);
    case "verify":
      return await verify(request, mode, deps);
  }
}

async function verify(request: Request, mode: Extract<AccessMode, { kind: "verify" }>, deps: AccessDeps): Promise<Response | null> {
  const token = accessToken(request);
  if (!token) return deny(request, deps, "no Access token");

  const domain = normalizeTeamDomain(mode.teamDomain);
  try {
    await jwtVerify(token, deps.jwks ?? teamJwks(domain), {
      issuer: `https://${domain}`,
      audience: mode.audiences,
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
  return plain("forbidden", 403);
}

function plain(text: string, status: number): Response {
  return new Response(text, { status, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
}
