/**
 * The issue agent's side of the egress gateway (src/egress/sandbox-egress.ts). `grant`: the
 * running turn's grant for one request, only the credential that request may use; nothing
 * credentialed between turns; a request from another turn, or past the run's GitHub API
 * requests (`githubRequestLimit`), refused outright; a private registry's credential noted once
 * per run by host. `refused`: logged and counted for its run (host and method; the command
 * center hears of a new one). `runSettled`: the run's token revoked once its closing message
 * settled, unless another turn of the issue waits. docs/security.md. Pure apart from its deps.
 */
import type { BlockedRequest } from "../shared/command-center";
import type { Logger } from "../run/log";
import type { EgressRefusal } from "./gateway";
import type { EgressPolicy, RunCredentials } from "./run-credentials";
import type { EgressAnswer, EgressRequest } from "./sandbox-egress";
import { parseGitHubApiUrl } from "../shared/github-urls";
import { credentialNeed, endpointsFor, githubRoute, type CredentialNeed, type GitHubRoute } from "./github-routes";
import { grantFor, type EgressGrant } from "./grant";
import { registryMatch } from "./registry-grants";

export const OTHER_TURN_GRANT_REFUSAL = "egress refused: this request came from a turn that is not the one running (a process a finished turn left behind)";

export type EgressDeskDeps = {
  credentials: Pick<RunCredentials, "grant" | "runSettled">;
  /** The running turn's submission, if any. */
  turn: () => Promise<{ submissionId: string } | null>;
  policy: (submissionId: string) => EgressPolicy | null;
  githubApiUrl: () => string;
  /** Count one refusal for a run; `first` when its host and method are new to it. */
  recordBlocked: (submissionId: string, host: string, method: string) => Promise<{ blocked: BlockedRequest[]; first: boolean }>;
  reportBlocked: (submissionId: string, blocked: BlockedRequest[]) => void;
  /** Note a private registry's host for a run; `first` when it is new to the run's list (`hosts`). */
  recordPrivateSource: (submissionId: string, host: string) => Promise<{ hosts: string[]; first: boolean }>;
  reportPrivateSources: (submissionId: string, hosts: string[]) => void;
  /** Whether another turn of the issue is queued or running. */
  othersWaiting: () => Promise<boolean>;
  /** Count one more GitHub API request of the run's sandbox; how many it has sent now. */
  countGitHubRequest: (submissionId: string) => Promise<number>;
  /** The most GitHub API requests one run's sandbox may send. */
  githubRequestLimit: () => number;
  log: Logger;
};

export class EgressDesk {
  readonly #deps: EgressDeskDeps;
  /** The running run's private sources already noted: a registry's later requests cost no storage read. */
  #noted: { submissionId: string; hosts: Set<string> } | null = null;

  constructor(deps: EgressDeskDeps) {
    this.#deps = deps;
  }

  /** The grant for one request of the sandbox's (its URL and method say which credential it may need). */
  async grant(request: EgressRequest): Promise<EgressAnswer> {
    const turn = await this.#deps.turn();
    const githubApiUrl = this.#deps.githubApiUrl();
    const github = parseGitHubApiUrl(githubApiUrl);
    const method = request.method.toUpperCase();
    let route: GitHubRoute | null = null;
    try {
      route = github.ok ? githubRoute(new URL(request.url), endpointsFor(github.github, githubApiUrl)) : null;
    } catch {
      // Not a URL: the gateway refuses it, and it needs nothing.
    }
    if (request.submissionId !== undefined && request.submissionId !== turn?.submissionId) {
      return await this.#refusedOutright(turn?.submissionId, request, githubApiUrl, OTHER_TURN_GRANT_REFUSAL, { from: request.submissionId });
    }
    if (turn && (route?.kind === "rest" || route?.kind === "graphql")) {
      const sent = await this.#deps.countGitHubRequest(turn.submissionId);
      const limit = this.#deps.githubRequestLimit();
      if (sent > limit) {
        const why = `egress refused: this run's sandbox has sent ${limit} GitHub API requests, the most one run may (so no run spends the installation's rate limit); the Worker's own tools still work`;
        return await this.#refusedOutright(turn.submissionId, request, githubApiUrl, why, { sent });
      }
    }
    const need: CredentialNeed = route === null ? "none" : credentialNeed(route, method);
    const policy = turn ? this.#deps.policy(turn.submissionId) : null;
    const grant = await this.#deps.credentials.grant(turn?.submissionId, policy, need, request.url);
    // The gateway looks for a registry only off GitHub's routes (gateway.ts), so this does too.
    if (turn && route === null) await this.#notePrivateSource(turn.submissionId, grant, request.url, method);
    return { grant, githubApiUrl };
  }

  /** When `grant` gets the request a private registry's credential, the registry's host is the run's (noted once per run). */
  async #notePrivateSource(submissionId: string, grant: EgressGrant, url: string, method: string): Promise<void> {
    let host: string;
    try {
      const match = registryMatch(grant.registries, new URL(url), method);
      if (match?.kind !== "credential") return;
      host = match.grant.host;
    } catch {
      return; // Not a URL: the gateway refuses it.
    }
    if (this.#noted?.submissionId !== submissionId) this.#noted = { submissionId, hosts: new Set() };
    const noted = this.#noted;
    if (noted.hosts.has(host)) return;
    const { hosts, first } = await this.#deps.recordPrivateSource(submissionId, host);
    noted.hosts.add(host);
    if (first) this.#deps.reportPrivateSources(submissionId, hosts);
  }

  /** A request that gets nothing at all: counted for the running run (when there is one), with the reason. */
  async #refusedOutright(running: string | undefined, request: EgressRequest, githubApiUrl: string, reason: string, fields: Record<string, unknown>): Promise<EgressAnswer> {
    let host = "unknown";
    try {
      host = new URL(request.url).hostname;
    } catch {
      // Not a URL: counted under "unknown".
    }
    this.#deps.log(reason === OTHER_TURN_GRANT_REFUSAL ? "egress:other-turn" : "egress:github-limit", { submissionId: running, host, ...fields });
    await this.refused({ ...(running ? { submissionId: running } : {}), host, method: request.method.toUpperCase(), reason });
    return { grant: grantFor({ readToken: "", writeToken: "" }), githubApiUrl, refusal: reason };
  }

  async refused(refusal: EgressRefusal): Promise<void> {
    this.#deps.log("egress:refused", { submissionId: refusal.submissionId, host: refusal.host, method: refusal.method, reason: refusal.reason });
    if (!refusal.submissionId) return;
    const { blocked, first } = await this.#deps.recordBlocked(refusal.submissionId, refusal.host, refusal.method);
    if (first) this.#deps.reportBlocked(refusal.submissionId, blocked);
  }

  async runSettled(): Promise<void> {
    await this.#deps.credentials.runSettled(await this.#deps.othersWaiting());
  }
}
