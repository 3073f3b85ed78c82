/**
 * A workspace's way out, for both shells: the egress gateway
 * (sandbox-egress.ts), reached as the issue's session and, for the
 * container, as the turn that holds it. A container's request arrives
 * stamped with its sandbox (sandbox-proxy.ts); one from a container no
 * running turn holds (a process a finished turn left behind) is refused
 * here, logged, and counted for the running run, before any grant is
 * asked. The WorkspaceAgent wires it; pure apart from its dependencies.
 */
import type { ContainerBackend } from "@cloudflare/computer/backends/container";
import type { Logger } from "../run/log";
import { drainReader } from "./body-reader";
import type { EgressAgent, SandboxEgressProps } from "./sandbox-egress";

/** Set by the Worker (sandbox-proxy.ts) on every egress request of a container; never trusted from the container. */
export const SANDBOX_HEADER = "x-agent-think-sandbox";
/** What the computer package's WorkspaceProxy puts on a container's outbound request: the backend's egress token, the original URL. */
const EGRESS_TOKEN_HEADER = "x-workspace-egress-token";
const EGRESS_URL_HEADER = "x-workspace-egress-url";
/** The turn a container's request is granted as when no turn holds a container: none runs, so the issue's agent grants nothing. */
export const NO_TURN = "no-turn";
/** A refused container's body is read up to this much before the answer (as the gateway does, smaller). */
const MAX_DRAINED_BYTES = 64 * 1024 * 1024;

export const OTHER_TURN_REFUSAL = "egress refused: this request came from a container that no running turn holds (a process a finished turn left behind)";

export type WorkspaceEgressDeps = {
  session: () => string;
  /** The binding of the ThinkAgent namespace that runs the issue. */
  binding: () => string;
  /** The gateway entrypoint with these props (`ctx.exports.SandboxEgress`). */
  gateway: (props: SandboxEgressProps) => Fetcher;
  /** The issue's agent, to count a refusal for its running run. */
  issueAgent: () => Promise<EgressAgent>;
  /** The running turn and the container it holds (pool/turn-container.ts). */
  holding: () => Promise<{ submissionId?: string; sandboxId?: string }>;
  log: Logger;
};

/** A request the container sent out (it carries the backend's egress token), rather than computerd's callback. */
export function isContainerEgress(request: Request): boolean {
  return request.headers.has(EGRESS_TOKEN_HEADER);
}

export class WorkspaceEgress {
  readonly #deps: WorkspaceEgressDeps;

  constructor(deps: WorkspaceEgressDeps) {
    this.#deps = deps;
  }

  /** The worker shell's gateway (its Dynamic Worker's `globalOutbound`): the session's, answered as its running turn. */
  shellGateway(): Fetcher {
    return this.#deps.gateway({ session: this.#deps.session(), binding: this.#deps.binding() });
  }

  /** The container backend's gateway, called in this isolate after `fromContainer`: as the turn holding the container. */
  containerGateway(): Fetcher {
    const fetch = async (request: Request) => {
      const { submissionId } = await this.#deps.holding();
      return await this.#deps.gateway({ session: this.#deps.session(), binding: this.#deps.binding(), submissionId: submissionId ?? NO_TURN }).fetch(request);
    };
    return { fetch } as unknown as Fetcher;
  }

  /** A request from a container: on to the backend when the running turn holds that container, else refused. */
  async fromContainer(request: Request, backend: Pick<ContainerBackend, "handleFetch">): Promise<Response> {
    const from = request.headers.get(SANDBOX_HEADER) ?? "";
    const held = await this.#deps.holding();
    if (from && held.submissionId && held.sandboxId === from) {
      const headers = new Headers(request.headers);
      headers.delete(SANDBOX_HEADER);
      return await backend.handleFetch(new Request(request, { headers }));
    }
    const host = hostOf(request.headers.get(EGRESS_URL_HEADER) ?? "");
    this.#deps.log("egress:other-turn", { sandboxId: from || undefined, heldBy: held.submissionId, heldSandbox: held.sandboxId, host });
    if (held.submissionId) await this.#count(held.submissionId, host, request.method);
    if (request.body) await drainReader(request.body.getReader(), MAX_DRAINED_BYTES);
    return new Response(`${OTHER_TURN_REFUSAL}\n`, { status: 403, headers: { "content-type": "text/plain; charset=utf-8", "x-agent-think-egress": "refused" } });
  }

  async #count(submissionId: string, host: string, method: string): Promise<void> {
    try {
      await (await this.#deps.issueAgent()).egressRefused({ submissionId, host: host || "unknown", method: method.toUpperCase(), reason: OTHER_TURN_REFUSAL });
    } catch (error) {
      this.#deps.log("egress:refusal-unrecorded", { error: error instanceof Error ? error.message : String(error) });
    }
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}
