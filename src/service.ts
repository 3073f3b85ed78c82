/**
 * The operations behind both the RPC entrypoint and the HTTP routes: parse
 * the input and check it (ALLOWED_REPOS, the model, MONTHLY_COST_BUDGET,
 * CI_FIX_REPOS, the reporter budget) before the first Durable Object call,
 * then reach the issue's ThinkAgent, or its reporter session for a
 * reporter-tier run. `stop` and `continue` start no new run. The rules are
 * docs/contracts.md's.
 */
import { getAgentByName } from "agents";
import type { ContinueRunInput, StartRunInput, StartRunResult } from "./agent";
import { commandCenter } from "./command-center";
import { continueThread, type ContinuationOutcome } from "./command-center/continuation";
import type { GitHubContinuation } from "./shared/command-center";
import { NothingToContinueError, type ContinueRefusalReason } from "./shared/continue-refusal";
import { CiFixNotAcceptedError, CiRunInProgressError } from "./shared/ci-refusal";
import { ciFixAccepted } from "./shared/ci-fix-repos";
import { isActiveStatus } from "./shared/thread-status";
import type { ContinueOutcome } from "./shared/command-center";
import { ModelConfigError, resolveModelConfig } from "./model";
import { commentUrl, GitHubConfigError, githubHost, parseGitHubApiUrl } from "./shared/github-urls";
import { createLogger } from "./run/log";
import { assertRepoAllowed } from "./run/repo-allowlist";
import { pullRequestEventSchema, type PullRequestRecordResult } from "./shared/command-center-events";
import { parseSessionName, reporterSessionOf, sessionName } from "./shared/session-name";
import { mintInstallationToken } from "./github/token-broker";
import { assertBotFor } from "./run/bot-identity";
import { threadUrl } from "./shared/thread-url";
import { budgetReached, isMonthlyBudgetRefusal, MonthlyBudgetConfigError, MonthlyBudgetReachedError, parseMonthlyBudget } from "./shared/monthly-budget";
import { isReporterBudgetRefusal, isReporterBusyRefusal, ReporterBudgetError, ReporterBusyError } from "./shared/reporter-budget";
import {
  cancelInputSchema,
  dispatchInputSchema,
  InvalidInputError,
  isContinueInstruction,
  isStopInstruction,
  type DispatchInput,
  type CancelResult,
  parseInput,
  resetSessionInputSchema,
  submissionStatusInputSchema,
  type DispatchResult,
  type ResetSessionResult,
  type SubmissionStatus,
  type TranscriptMessage,
  type BotIdentity
} from "./shared/dispatch";

export type AgentThinkService = ReturnType<typeof createService>;

/** The ThinkAgent methods this service calls over RPC. */
export interface IssueAgent {
  cancelRun(
    reason?: string,
    installationToken?: string,
    installationTokenExpiresAt?: string,
    bot?: BotIdentity
  ): Promise<{ cancelled: number; submissionIds: string[] }>;
  startRun(input: StartRunInput): Promise<StartRunResult>;
  continueRun(input: ContinueRunInput): Promise<{ submissionId: string }>;
  submissionStatus(submissionId: string): Promise<SubmissionStatus | null>;
  resetRun(): Promise<{ cancelled: number }>;
  transcript(): Promise<TranscriptMessage[]>;
}

/** Whether ALLOWED_REPOS takes `repo`; a list that does not parse takes none. */
function repoAllowed(repo: string, env: Env): boolean {
  try {
    assertRepoAllowed(repo, env);
    return true;
  } catch {
    return false;
  }
}

/** A run needs a model and a GitHub it can name: refuse, naming the variable, before any Durable Object is touched. */
function assertRunnable(env: Env): void {
  const model = resolveModelConfig(env);
  if (!model.ok) throw new ModelConfigError(model.error);
  const github = parseGitHubApiUrl(env.GITHUB_API_URL);
  if (!github.ok) throw new GitHubConfigError(github.error);
  const budget = parseMonthlyBudget(env.MONTHLY_COST_BUDGET);
  if (budget.kind === "invalid") throw new MonthlyBudgetConfigError(`${budget.error}: every dispatch and Continue is refused until it is fixed`);
}

/** Where a `continue` mention came from: its author and its comment's page on this deploy's GitHub. */
function gitHubContinuation(input: DispatchInput, env: Env): GitHubContinuation {
  const web = githubHost(env.GITHUB_API_URL).web;
  const pull = `${web}/${input.repo}/pull/${input.issueNumber}`;
  const review = input.pullRequest;
  const url =
    input.commentId !== undefined
      ? commentUrl(web, input.repo, input.issueNumber, input.commentId)
      : review?.reviewComment
        ? `${pull}#discussion_r${review.reviewComment.id}`
        : review?.reviewId !== undefined
          ? `${pull}#pullrequestreview-${review.reviewId}`
          : undefined;
  return { ...(input.requestedBy ? { login: input.requestedBy.login } : {}), ...(url ? { commentUrl: url } : {}) };
}

/** Why a claim was refused, as the mention is told. */
function refusalReason(outcome: Extract<ContinuationOutcome, { ok: false }>): ContinueRefusalReason {
  if (outcome.reason === "not_found") return "no_run";
  return outcome.status === "done" || outcome.status === "cancelled" ? outcome.status : "running";
}

/** A new run, once this month's spend reached MONTHLY_COST_BUDGET: refused, writing nothing. A run already going is never asked. */
async function assertUnderMonthlyBudget(env: Env): Promise<void> {
  const budget = parseMonthlyBudget(env.MONTHLY_COST_BUDGET);
  if (budget.kind !== "cap") return;
  const spend = await (await commandCenter(env)).monthlySpend();
  if (budgetReached(budget, spend)) throw new MonthlyBudgetReachedError(budget.usd, spend, Date.now());
}

/**
 * A CI follow-up while its pull request's thread has a run going on (the
 * command center's word: running or recovering, stale or not): refused,
 * writing nothing, rather than queued behind it, since the run going on may
 * push the fix or a newer head itself (docs/ingress.md, CI follow-ups).
 */
async function assertNoRunGoingOn(env: Env, session: string): Promise<void> {
  const detail = await (await commandCenter(env)).threadDetail(session);
  if (detail && isActiveStatus(detail.thread.status)) throw new CiRunInProgressError(session);
}

/**
 * A reporter-tier run's cap, reserved against its repository's reporter
 * budget before anything is written (the command center decides, atomically:
 * REPORTER_DAILY_BUDGET counting running runs at their cap, and at most
 * REPORTER_MAX_RUNNING at once). Refused: a ReporterBudgetError or a
 * ReporterBusyError, which the webhook app tells the reporter. A
 * maintainer's run is never asked.
 */
async function reserveReporterRun(env: Env, repo: string, session: string): Promise<void> {
  const answer = await (await commandCenter(env)).reserveReporterRun({ repo, session, now: Date.now() });
  if (answer.ok) return;
  throw answer.reason === "busy" ? new ReporterBusyError(answer.detail) : new ReporterBudgetError(answer.detail);
}

/** Drop a reservation whose run was never submitted (the dispatch failed after it was made); a failure here is only logged. */
async function releaseReporterRun(env: Env, session: string, log: ReturnType<typeof createLogger>): Promise<void> {
  await (await commandCenter(env))
    .releaseReporterRun(session)
    .catch((error: unknown) => log("reporter-budget:release-failed", { session, error: error instanceof Error ? error.message : String(error) }));
}

/** The issue's reporter session, when the command center has a thread for it (a stop cancels its runs too); else null, creating nothing. */
async function knownReporterSession(env: Env, session: string): Promise<string | null> {
  const reporter = reporterSessionOf(session);
  if (!reporter || reporter === session) return null;
  return (await (await commandCenter(env)).threadDetail(reporter)) ? reporter : null;
}

export function createService(env: Env) {
  // Typed by the narrow interface: the generated stub type of a Think
  // subclass is too deep for the compiler to expand per call.
  const agentFor = async (session: string) => (await getAgentByName(env.ThinkAgent, session)) as unknown as IssueAgent;
  const log = createLogger({ worker: "agent-think" });

  /**
   * A maintainer's `continue` on GitHub, gated like the mention it is: the
   * dashboard's Continue (the same claim, the same continuation in the same
   * session), with the token the mention came with instead of a minted one,
   * recorded as continued from GitHub by that login, with the comment.
   * Nothing to continue (a new thread, a run still going, a last run done or
   * cancelled) is a NothingToContinueError, which the webhook app answers on
   * the issue: nothing is claimed, and the issue's agent is not reached.
   */
  async function continueFromGitHub(input: DispatchInput, session: string): Promise<DispatchResult> {
    const fromGitHub = gitHubContinuation(input, env);
    const center = await commandCenter(env);
    const outcome = await continueThread(session, {
      claim: (name) => center.claimForContinuation(name, Date.now(), fromGitHub),
      release: (name, error) => center.releaseClaim(name, error),
      mintToken: async () => input,
      submit: async (thread, mention) => {
        const agent = await agentFor(thread.session);
        const { submissionId } = await agent.continueRun({
          installationToken: mention.installationToken,
          ...(mention.installationTokenExpiresAt ? { installationTokenExpiresAt: mention.installationTokenExpiresAt } : {}),
          ...(mention.bot ? { bot: mention.bot } : {}),
          fromGitHub
        });
        return { session: thread.session, submissionId };
      }
    });
    if (!outcome.ok) {
      const reason = refusalReason(outcome);
      log("continue:refused", { session, reason });
      throw new NothingToContinueError(reason);
    }
    log("continued", { session, submissionId: outcome.result.submissionId, from: "github" });
    return { session, threadUrl: threadUrl(env.PUBLIC_BASE_URL, session), submissionId: outcome.result.submissionId };
  }

  /** Reserve a reporter run's cap, logging a refusal (or a command center that could not be asked: that refuses too). */
  async function reserveReporterRunLogged(session: string, repo: string): Promise<void> {
    await reserveReporterRun(env, repo, session).catch((error: unknown) => {
      const event = isReporterBudgetRefusal(error) ? "reporter-budget:refused" : isReporterBusyRefusal(error) ? "reporter-busy:refused" : "reporter-budget:unreadable";
      log(event, { session, error: error instanceof Error ? error.message : String(error) });
      throw error;
    });
  }

  return {
    async dispatch(input: unknown): Promise<DispatchResult> {
      const startedAt = Date.now();
      const parsed = parseInput(dispatchInputSchema, input, "input");
      // Before the stop too: a stop would create the issue's agent, and the
      // webhook app never sends one for a repository outside its own list
      // (`cancel`, by session, still stops a run on a repository removed from it).
      assertRepoAllowed(parsed.repo, env);
      // A reporter-tier run has a session of its own: it shares nothing with the maintainers' runs on the issue.
      const session = sessionName(parsed.repo, parsed.issueNumber, parsed.tier);
      if (isStopInstruction(parsed.instruction)) {
        // "stop" cancels the issue's running and queued turns (its reporter
        // session's too) and starts nothing, so it needs no model;
        // submissionId is the run it stopped ("" when nothing was running).
        const agent = await agentFor(session);
        const by = parsed.requestedBy ? `@${parsed.requestedBy.login}` : "a maintainer";
        const { submissionIds } = await agent.cancelRun(`stopped by ${by}`, parsed.installationToken, parsed.installationTokenExpiresAt, parsed.bot);
        // The reporter session keeps its own tokens: a maintainer's write token never reaches it.
        const reporter = parsed.tier ? null : await knownReporterSession(env, session);
        const alsoStopped = reporter ? (await (await agentFor(reporter)).cancelRun(`stopped by ${by}`)).submissionIds : [];
        log("stopped", { session, cancelled: submissionIds.length + alsoStopped.length });
        return { session, threadUrl: threadUrl(env.PUBLIC_BASE_URL, session), submissionId: submissionIds[0] ?? alsoStopped[0] ?? "" };
      }
      assertRunnable(env);
      // A token is GitHub access: refuse it when nothing says which App's bot the run acts as.
      assertBotFor(parsed.installationToken, parsed.bot, env);
      await assertUnderMonthlyBudget(env).catch((error: unknown) => {
        // A cap that cannot be read refuses too: a money limit fails closed.
        const event = isMonthlyBudgetRefusal(error) ? "budget:refused" : "budget:unreadable";
        log(event, { session, error: error instanceof Error ? error.message : String(error) });
        throw error;
      });
      if (isContinueInstruction(parsed.instruction)) {
        // A reporter asks for a reproduction, nothing else: a continuation is a maintainer's (or the dashboard's).
        if (parsed.tier === "reporter") throw new InvalidInputError("instruction", "a reporter-tier dispatch only asks for a reproduction, never a continuation");
        return continueFromGitHub(parsed, session);
      }
      if (parsed.ci && !ciFixAccepted(parsed.repo, env.CI_FIX_REPOS)) {
        log("ci:refused", { session, reason: "ci_fix_not_accepted" });
        throw new CiFixNotAcceptedError(parsed.repo);
      }
      if (parsed.ci) {
        await assertNoRunGoingOn(env, session).catch((error: unknown) => {
          log(error instanceof CiRunInProgressError ? "ci:refused" : "ci:unreadable", { session, error: error instanceof Error ? error.message : String(error) });
          throw error;
        });
      }
      if (parsed.tier === "reporter") await reserveReporterRunLogged(session, parsed.repo);
      log("start", { session, repo: parsed.repo, issue: parsed.issueNumber, commentId: parsed.commentId });
      const agent = await agentFor(session);
      const { submissionId, accepted } = await agent.startRun({ ...parsed, session }).catch(async (error: unknown) => {
        if (parsed.tier === "reporter") await releaseReporterRun(env, session, log);
        throw error;
      });
      // The same comment again: its run started before, so the place just reserved holds no run.
      if (parsed.tier === "reporter" && !accepted) await releaseReporterRun(env, session, log);
      log("dispatched", { session, submissionId, ms: Date.now() - startedAt });
      return { session, threadUrl: threadUrl(env.PUBLIC_BASE_URL, session), submissionId };
    },

    async getSubmissionStatus(input: unknown): Promise<SubmissionStatus | null> {
      const { session, submissionId } = parseInput(submissionStatusInputSchema, input, "input");
      const agent = await agentFor(session);
      return agent.submissionStatus(submissionId);
    },

    async cancel(input: unknown): Promise<CancelResult> {
      const { session } = parseInput(cancelInputSchema, input, "input");
      const agent = await agentFor(session);
      const { cancelled } = await agent.cancelRun("cancelled by an operator");
      return { session, cancelled };
    },

    async resetSession(input: unknown): Promise<ResetSessionResult> {
      const { session } = parseInput(resetSessionInputSchema, input, "input");
      const agent = await agentFor(session);
      const { cancelled } = await agent.resetRun();
      return { session, cancelled };
    },

    /**
     * An operator's Continue: claim the failed or stale thread on the command
     * center, mint a fresh installation token through the token broker, and
     * submit the continuation into the same session, recording who asked.
     * A repository no longer on ALLOWED_REPOS is refused before the claim.
     */
    async continueRun(session: string, operator?: string): Promise<ContinueOutcome> {
      const issue = parseSessionName(session);
      if (!issue) return { ok: false, reason: "not_found" };
      assertRepoAllowed(`${issue.owner}/${issue.name}`, env);
      assertRunnable(env);
      await assertUnderMonthlyBudget(env);
      const reporter = issue.tier === "reporter";
      const center = await commandCenter(env);
      const outcome = await continueThread(session, {
        claim: (name) => center.claimForContinuation(name, Date.now()),
        release: (name, error) => center.releaseClaim(name, error),
        // A reporter session's runs never hold the bot's write token, continued or not; their cap is reserved as at dispatch.
        mintToken: async (repo) => {
          if (!reporter) return await mintInstallationToken(env, repo);
          await reserveReporterRunLogged(session, repo);
          return await mintInstallationToken(env, repo, "read").catch(async (error: unknown) => {
            await releaseReporterRun(env, session, log);
            throw error;
          });
        },
        submit: async (thread, minted) => {
          const agent = await agentFor(thread.session);
          // The broker's bot, when it names one; the ThinkAgent refuses a token with no bot at all.
          const { submissionId } = await agent
            .continueRun({
              installationToken: minted.token,
              installationTokenExpiresAt: minted.expiresAt,
              ...(minted.bot ? { bot: minted.bot } : {}),
              ...(operator ? { operator } : {})
            })
            .catch(async (error: unknown) => {
              if (reporter) await releaseReporterRun(env, session, log);
              throw error;
            });
          return { session: thread.session, submissionId };
        }
      });
      if (outcome.ok) log("continued", { session, submissionId: outcome.result.submissionId });
      return outcome;
    },

    /**
     * One of the App's pull requests opened, merged or closed, as the webhook
     * app read its `pull_request` delivery: kept in its repository's record.
     * Answered, never thrown: a malformed one, or one of a repository outside
     * ALLOWED_REPOS, writes nothing.
     */
    async recordPullRequest(input: unknown): Promise<PullRequestRecordResult> {
      const parsed = pullRequestEventSchema.safeParse(input);
      if (!parsed.success) {
        const field = parsed.error.issues[0]?.path.join(".") || "input";
        log("pull-request:invalid", { field });
        return { applied: false, reason: "invalid", field };
      }
      if (!repoAllowed(parsed.data.repo, env)) return { applied: false, reason: "repo_not_allowed" };
      const result = await (await commandCenter(env)).recordPullRequest(parsed.data);
      log("pull-request:recorded", { repo: parsed.data.repo, number: parsed.data.number, state: parsed.data.state, applied: result.applied });
      return result;
    },

    async messages(session: string): Promise<TranscriptMessage[]> {
      const agent = await agentFor(session);
      return agent.transcript();
    }
  };
}
