/**
 * SandboxEgress: the WorkerEntrypoint every HTTP(S) request of an issue's sandbox goes through,
 * the container's (the ContainerBackend's "http-gateway" egress) and the worker shell's (its
 * Dynamic Worker's `globalOutbound`). The WorkspaceAgent makes it from `ctx.exports` with the
 * session, and for a container the turn holding it (workspace-egress.ts), as props. Per request
 * it asks the ThinkAgent for the grant (egress-desk.ts), which refuses a turn that is not
 * the running one, lets the gateway decide (gateway.ts), and hands refusals back to be recorded.
 * docs/security.md, "The sandbox holds no key".
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { parseGitHubApiUrl, parseGitUpstream } from "../shared/github-urls";
import { EgressGateway, MAX_DRAINED_BYTES, type EgressRefusal } from "./gateway";
import { drainReader } from "./body-reader";
import { endpointsFor } from "./github-routes";
import type { EgressGrant } from "./grant";

/**
 * The session, the binding of the ThinkAgent namespace that runs it
 * (ThinkAgent unless a test names its own), and the turn the request is
 * from when the sender is known to belong to one (a container).
 */
export type SandboxEgressProps = { session: string; binding?: string; submissionId?: string };

/** What the ThinkAgent answers for its sandbox's requests; `refusal`: the request gets nothing, and this says why. */
export type EgressAnswer = { grant: EgressGrant; githubApiUrl: string; refusal?: string };
/** What the ThinkAgent is told of a request: enough to know which credential it may need, and the turn it is from when known. */
export type EgressRequest = { url: string; method: string; submissionId?: string };

/** The ThinkAgent methods the gateway calls (the generated stub type is too deep to expand). */
export type EgressAgent = {
  egressGrant(request: EgressRequest): Promise<EgressAnswer>;
  egressRefused(refusal: EgressRefusal): Promise<void>;
};

export class SandboxEgress extends WorkerEntrypoint<Env, SandboxEgressProps> {
  override async fetch(request: Request): Promise<Response> {
    const { session, binding = "ThinkAgent", submissionId } = this.ctx.props;
    const namespace = (this.env as unknown as Record<string, unknown>)[binding] as Env["ThinkAgent"] | undefined;
    if (!namespace) return new Response(`egress unavailable: no ${binding} binding\n`, { status: 500, headers: { "content-type": "text/plain; charset=utf-8" } });
    const agent = (await getAgentByName(namespace, session)) as unknown as EgressAgent;
    const answer = await agent.egressGrant({ url: request.url, method: request.method, ...(submissionId ? { submissionId } : {}) });
    if (answer.refusal !== undefined) {
      // The agent counted it for its running run; what the sender still sends is read before the answer, as the gateway does.
      if (request.body) await drainReader(request.body.getReader(), MAX_DRAINED_BYTES);
      return new Response(`${answer.refusal}\n`, { status: 403, headers: { "content-type": "text/plain; charset=utf-8", "x-agent-think-egress": "refused" } });
    }
    const github = parseGitHubApiUrl(answer.githubApiUrl);
    // Local dev's real-container suite sends git to a server on the host (GITHUB_GIT_URL); refused anywhere else.
    const { GITHUB_GIT_URL: gitUrl } = this.env as { GITHUB_GIT_URL?: string };
    const git = parseGitUpstream(gitUrl, answer.githubApiUrl, this.env.LOCAL_DEV === "1");
    if (!github.ok || !git.ok) {
      const problem = github.ok ? (git as { error: string }).error : github.error;
      return new Response(`egress unavailable: ${problem}\n`, { status: 502, headers: { "content-type": "text/plain; charset=utf-8" } });
    }
    const gateway = new EgressGateway({
      endpoints: endpointsFor(github.github, answer.githubApiUrl, git.url),
      grant: async () => answer.grant,
      upstream: (outgoing) => fetch(outgoing),
      refused: (refusal) => agent.egressRefused(refusal)
    });
    return await gateway.fetch(request);
  }
}
