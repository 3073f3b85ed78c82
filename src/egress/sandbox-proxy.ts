/**
 * SandboxEgressProxy: the entrypoint a container's intercepted HTTP(S)
 * requests reach before the WorkspaceAgent, in place of the computer
 * package's WorkspaceProxy (src/sandbox.ts registers it). It stamps each
 * request with the sandbox (container) it came from, from its own props:
 * whatever the container sent under that header is replaced, so the
 * WorkspaceAgent can refuse a container no running turn holds (a process a
 * finished turn left behind) before the gateway grants anything.
 */
import { WorkspaceProxy } from "@cloudflare/computer";
import { SANDBOX_HEADER } from "./workspace-egress";

export type SandboxEgressProxyProps = { binding: string; id: string; name?: string; egressToken?: string; sandboxId?: string };

export class SandboxEgressProxy extends WorkspaceProxy {
  override async fetch(request: Request): Promise<Response> {
    const props = this.ctx.props as SandboxEgressProxyProps;
    if (props.egressToken === undefined) return await super.fetch(request);
    const headers = new Headers(request.headers);
    headers.delete(SANDBOX_HEADER);
    if (props.sandboxId) headers.set(SANDBOX_HEADER, props.sandboxId);
    return await super.fetch(new Request(request, { headers }));
  }
}
