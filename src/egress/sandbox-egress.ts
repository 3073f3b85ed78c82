/**
 * SandboxEgress: the WorkerEntrypoint every HTTP(S) request of an issue's
 * sandbox goes through: the container's (the ContainerBackend's
 * "http-gateway" egress hands each intercepted request here with its
 * original URL) and the worker shell's (its Dynamic Worker's
 * `globalOutbound`). The WorkspaceAgent makes one per issue from
 * `ctx.exports`, with the session as its props.
 *
 * Per request it asks the ThinkAgent for the grant (what the run may
 * do now: src/egress/run-credentials.ts) and lets the gateway decide
 * (src/egress/gateway.ts); refusals go back to the ThinkAgent, which
 * records them for the thread page and the closing comment. Nothing here is
 * kept between requests.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { parseGitHubApiUrl } from "../shared/github-urls";
import { EgressGateway, type EgressRefusal } from "./gateway";
import { endpointsFor } from "./github-routes";
import type { EgressGrant } from "./grant";

/** The session, and the binding of the ThinkAgent namespace that runs it (ThinkAgent unless a test names its own). */
export type SandboxEgressProps = { session: string; binding?: string };

/** What the ThinkAgent answers for its sandbox's requests. */
export type EgressAnswer = { grant: EgressGrant; githubApiUrl: string };
/** What the ThinkAgent is told of a request: enough to know which credential it may need. */
export type EgressRequest = { url: string; method: string };

/** The ThinkAgent methods the gateway calls (the generated stub type is too deep to expand). */
export type EgressAgent = {
  egressGrant(request: EgressRequest): Promise<EgressAnswer>;
  egressRefused(refusal: EgressRefusal): Promise<void>;
};

export class SandboxEgress extends WorkerEntrypoint<Env, SandboxEgressProps> {
  override async fetch(request: Request): Promise<Response> {
    const { session, binding = "ThinkAgent" } = this.ctx.props;
    const namespace = (this.env as unknown as Record<string, unknown>)[binding] as Env["ThinkAgent"] | undefined;
    if (!namespace) return new Response(`egress unavailable: no ${binding} binding\n`, { status: 500, headers: { "content-type": "text/plain; charset=utf-8" } });
    const agent = (await getAgentByName(namespace, session)) as unknown as EgressAgent;
    const answer = await agent.egressGrant({ url: request.url, method: request.method });
    const github = parseGitHubApiUrl(answer.githubApiUrl);
    if (!github.ok) return new Response(`egress unavailable: ${github.error}\n`, { status: 502, headers: { "content-type": "text/plain; charset=utf-8" } });
    const gateway = new EgressGateway({
      endpoints: endpointsFor(github.github, answer.githubApiUrl),
      grant: async () => answer.grant,
      upstream: (outgoing) => fetch(outgoing),
      refused: (refusal) => agent.egressRefused(refusal)
    });
    return await gateway.fetch(request);
  }
}
