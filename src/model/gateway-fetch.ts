/**
 * The fetch both AI SDK providers send through: the one place that decides
 * which headers a gateway request carries. With stored keys (BYOK) it removes
 * the provider's key header the SDK always adds; with request keys it stays.
 * `cf-aig-authorization` goes on whenever a token is configured, and
 * `cf-aig-metadata` whenever a request is named (docs/model-setup.md). The
 * mode is config.ts's decision. Pure apart from the fetch it wraps, looked up
 * at call time so a test's interception applies.
 */
import type { GatewayAuth } from "./config";
import { metadataHeader, type GatewayMetadata, type MetadataSource } from "./metadata";

/** Every header a provider SDK authenticates with; none leaves the Worker in the stored-keys mode. */
export const PROVIDER_AUTH_HEADERS = ["authorization", "x-api-key"] as const;

type Fetch = typeof globalThis.fetch;

/** The headers a gateway request leaves with, given what the SDK built. */
export function gatewayHeaders(built: HeadersInit | undefined, auth: GatewayAuth, metadata?: GatewayMetadata): Headers {
  const headers = new Headers(built);
  if (auth.keys === "stored") for (const name of PROVIDER_AUTH_HEADERS) headers.delete(name);
  if (auth.gatewayToken) headers.set("cf-aig-authorization", `Bearer ${auth.gatewayToken}`);
  else headers.delete("cf-aig-authorization");
  if (metadata) headers.set("cf-aig-metadata", metadataHeader(metadata));
  return headers;
}

export function gatewayFetch(
  auth: GatewayAuth,
  metadata: MetadataSource = () => undefined,
  base: Fetch = (input, init) => globalThis.fetch(input, init)
): Fetch {
  return async (input, init) => {
    const built = init?.headers ?? (input instanceof Request ? input.headers : undefined);
    return base(input, { ...init, headers: gatewayHeaders(built, auth, await metadata()) });
  };
}
