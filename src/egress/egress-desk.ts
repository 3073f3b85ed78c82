/**
 * The issue agent's side of the egress gateway: what it answers when the
 * gateway (src/egress/sandbox-egress.ts) asks for the sandbox's grant, what
 * it does with a refusal, and when the run's token goes.
 *
 * - `grant`: the running turn's grant for one request, from the run's
 *   credentials and the network policy its preparation kept, holding only
 *   the credential that request may use; nothing credentialed between turns.
 * - `refused`: the refusal is logged and counted for its run (host and
 *   method; the closing comment's footer and the thread page show the
 *   tally), and the command center hears the tally when a new host or
 *   method appears.
 * - `runSettled`: the run's closing message settled, so its token is
 *   revoked, unless another turn of the issue is queued or running.
 * Pure apart from its dependencies.
 */
import type { BlockedRequest } from "../shared/command-center";
import type { Logger } from "../run/log";
import type { EgressRefusal } from "./gateway";
import type { EgressPolicy, RunCredentials } from "./run-credentials";
import type { EgressAnswer, EgressRequest } from "./sandbox-egress";
import { parseGitHubApiUrl } from "../shared/github-urls";
import { credentialNeed, endpointsFor, githubRoute, type CredentialNeed } from "./github-routes";

export type EgressDeskDeps = {
  credentials: Pick<RunCredentials, "grant" | "runSettled">;
  /** The running turn's submission, if any. */
  turn: () => Promise<{ submissionId: string } | null>;
  policy: (submissionId: string) => EgressPolicy | null;
  githubApiUrl: () => string;
  /** Count one refusal for a run; `first` when its host and method are new to it. */
  recordBlocked: (submissionId: string, host: string, method: string) => Promise<{ blocked: BlockedRequest[]; first: boolean }>;
  reportBlocked: (submissionId: string, blocked: BlockedRequest[]) => void;
  /** Whether another turn of the issue is queued or running. */
  othersWaiting: () => Promise<boolean>;
  log: Logger;
};

export class EgressDesk {
  readonly #deps: EgressDeskDeps;

  constructor(deps: EgressDeskDeps) {
    this.#deps = deps;
  }

  /** The grant for one request of the sandbox's (its URL and method say which credential it may need). */
  async grant(request: EgressRequest): Promise<EgressAnswer> {
    const turn = await this.#deps.turn();
    const policy = turn ? this.#deps.policy(turn.submissionId) : null;
    const githubApiUrl = this.#deps.githubApiUrl();
    const github = parseGitHubApiUrl(githubApiUrl);
    let need: CredentialNeed = "none";
    try {
      need = github.ok ? credentialNeed(githubRoute(new URL(request.url), endpointsFor(github.github, githubApiUrl)), request.method.toUpperCase()) : "none";
    } catch {
      // Not a URL: the gateway refuses it, and it needs nothing.
    }
    return { grant: await this.#deps.credentials.grant(turn?.submissionId, policy, need), githubApiUrl };
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
