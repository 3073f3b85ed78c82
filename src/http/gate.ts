/**
 * The front door of the agent Worker's fetch: every request passes here
 * before any route sees it, and a route only ever sees the canonical request
 * this returns (route-policy.ts decides the rule on that same path). It
 * refuses an undecodable path, a non-loopback Host under LOCAL_DEV=1, a
 * cross-origin WebSocket upgrade, what Access refuses (access.ts), `/dev/*`
 * outside local dev, and a write that is not same-origin JSON; each refusal
 * with a one-line reason. Pure apart from Access's JWKS fetch. The rules:
 * docs/security.md, "The HTTP boundary: one gate".
 */
import { accessGuard, type AccessConfig, type AccessDeps } from "./access";
import { json, notFound } from "./responses";
import { canonicalize, crossSiteRefusal, isLoopbackRequest, localDevRefusal, socketOriginRefusal, type CanonicalRequest } from "./route-policy";

export type GateDeps = {
  localDev: boolean;
  access: AccessConfig;
  /** The key set and clock Access verifies with (tests); its own `localDev` and `onDenied` are the gate's. */
  accessDeps?: Omit<AccessDeps, "onDenied" | "localDev">;
  /** Why a request was refused (a log line); the client gets only the one-line reason. */
  onRefused?(reason: string, path: string): void;
};

export type GateResult = ({ ok: true } & CanonicalRequest) | { ok: false; response: Response };

export async function gate(request: Request, deps: GateDeps): Promise<GateResult> {
  const canonical = canonicalize(request);
  if (!canonical.ok) {
    deps.onRefused?.(canonical.reason, "");
    return refuse(json({ error: `bad request: ${canonical.reason}` }, 400));
  }
  const { url, rule } = canonical;
  const refused = (reason: string) => {
    deps.onRefused?.(reason, url.pathname);
    return refuse(json({ error: `forbidden: ${reason}` }, 403));
  };
  if (deps.localDev && !isLoopbackRequest(canonical.request, url)) {
    return refused("local dev answers only requests to 127.0.0.1, localhost or [::1]");
  }
  const socketRefused = socketOriginRefusal(canonical.request, url, { localDev: deps.localDev });
  if (socketRefused) return refused(socketRefused);
  if (rule.access !== "public") {
    const denied = await accessGuard(canonical.request, deps.access, {
      ...deps.accessDeps,
      localDev: deps.localDev,
      onDenied: (reason) => deps.onRefused?.(reason, url.pathname)
    });
    if (denied) return refuse(denied);
  }
  if (rule.access === "local-dev") {
    if (!deps.localDev) return refuse(notFound());
    const reason = localDevRefusal(canonical.request, url);
    if (reason) return refused(reason);
  }
  if (rule.sameOriginWrite) {
    const reason = crossSiteRefusal(canonical.request, url, { write: true });
    if (reason) return refused(reason);
  }
  return canonical;
}

function refuse(response: Response): GateResult {
  return { ok: false, response };
}
