/**
 * The container host as the WorkspaceAgent's `ContainerBackend` sees it. The
 * host lives in the Sandbox Durable Object, across Workers RPC, and the
 * backend's health probes pass an `AbortSignal` to `fetchPort`, which cannot
 * cross RPC without a flag Cloudflare refuses on deploy. So the signal stays
 * on the calling side: the request goes without it, and the call rejects
 * when the signal aborts first. Every other call is forwarded as is. Pure.
 * docs/containers.md, "Compatibility flags".
 */
import type { ContainerHostHolder, IWorkspaceContainerAPI } from "@cloudflare/computer/backends/container";

/** A holder whose host keeps `fetchPort`'s signal on this side of the RPC boundary. */
export function callingSideHolder(holder: ContainerHostHolder | Promise<ContainerHostHolder>): ContainerHostHolder {
  return {
    getWorkspaceContainer: async () => callingSideHost(await (await holder).getWorkspaceContainer())
  };
}

/** `remote` with `fetchPort`'s AbortSignal handled here instead of sent along. */
export function callingSideHost(remote: IWorkspaceContainerAPI): IWorkspaceContainerAPI {
  return {
    start: (spec) => remote.start(spec),
    restart: (spec) => remote.restart(spec),
    interceptOutboundHttp: (host, workspace) => remote.interceptOutboundHttp(host, workspace),
    interceptAllOutboundHttp: (workspace, token) => remote.interceptAllOutboundHttp(workspace, token),
    setInactivityTimeout: (durationMs) => remote.setInactivityTimeout(durationMs),
    status: () => remote.status(),
    exitInfo: () => remote.exitInfo(),
    port: (port) => remote.port(port),
    fetchPort: (port, input, init) => fetchWithLocalSignal((request, rest) => remote.fetchPort(port, request, rest), input, init)
  };
}

type Send = (input: RequestInfo | URL, init: RequestInit | undefined) => Promise<Response>;

/** Send without a signal; honour the signal (of `init`, or of a Request `input`) here. */
export async function fetchWithLocalSignal(send: Send, input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
  const bare = withoutSignal(input, init);
  if (!signal) return send(bare.input, bare.init);
  signal.throwIfAborted();
  return await new Promise<Response>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    send(bare.input, bare.init).then(
      (response) => {
        signal.removeEventListener("abort", onAbort);
        if (!signal.aborted) return resolve(response);
        // Too late: the caller already has its rejection.
        void response.body?.cancel().catch(() => {});
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      }
    );
  });
}

function withoutSignal(input: RequestInfo | URL, init: RequestInit | undefined): { input: RequestInfo | URL; init: RequestInit | undefined } {
  const rest = init === undefined ? undefined : { ...init };
  if (rest) delete rest.signal;
  // A Request carries its own signal; rebuild it without one (the body, if any, moves along).
  const bare = input instanceof Request && input.signal ? new Request(input, { signal: null }) : input;
  return { input: bare, init: rest };
}
