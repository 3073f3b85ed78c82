/**
 * A session's runs from dispatch to their end: `start` stores the run
 * context and submits the turn (once per triggering comment), `continue`
 * submits a continuation with a fresh token, `cancel` and `reset` end what
 * is queued or running, `changed` follows Think's submission statuses (a
 * turn began, a submission ended), and `finishCutOff` finishes at start a
 * run whose ending a restart cut off. ThinkAgent's RPC methods and
 * `onSubmissionStatus` call it; pure apart from its dependencies.
 */
import { quietTruthOf, type QuietTruth } from "../command-center/reconcile";
import type { RunCredentials } from "../egress/run-credentials";
import type { RunReports } from "../report/run-reports";
import { assertBotFor, type BotConfig } from "../run/bot-identity";
import type { DispatchOnce } from "../run/dispatch-once";
import type { Logger } from "../run/log";
import type { OpenRuns } from "../run/open-runs";
import { runContextFrom, type RunContextStore } from "../run/run-context";
import type { RunLedger } from "../run/run-ledger";
import { runMessage } from "../run/run-message";
import type { SessionTrust } from "../run/session-trust";
import { continuationMetadata, dispatchMetadata, idempotencyKeyFor, TERMINAL_STATUSES, toSubmissionStatus, type SubmissionRecord } from "../run/submission";
import type { TurnWatchdog } from "../run/watchdog";
import type { BotIdentity, DispatchInput, ResetSessionResult, SubmissionStatus } from "../shared/dispatch";
import type { GitHubContinuation } from "../shared/command-center";
import { githubHost } from "../shared/github-urls";
import type { ActiveTurn } from "./active-turn";
import type { RunClosing } from "./run-closing";
import type { Submission, Submissions } from "./run-host";
import type { RunView } from "./run-view";

export type StartRunInput = DispatchInput & { session: string };
/**
 * `operator`: who continued it from the dashboard (an Access e-mail, or "local operator"); the issue is told only that it was.
 * `fromGitHub`: instead, the maintainer whose `continue` comment asked (the command center has it from the claim).
 */
export type ContinueRunInput = Pick<DispatchInput, "installationToken" | "installationTokenExpiresAt" | "bot"> & {
  operator?: string;
  fromGitHub?: GitHubContinuation;
};
export type StartRunResult = { submissionId: string; accepted: boolean };
export type CancelRunResult = { cancelled: number; submissionIds: string[] };

export type RunLifecycleDeps = {
  session: () => string;
  env: BotConfig;
  githubApiUrl: () => string;
  submissions: Pick<Submissions, "submit" | "list" | "inspect" | "cancel" | "clearTranscript">;
  runs: Pick<RunContextStore, "get" | "put" | "clear">;
  credentials: Pick<RunCredentials, "clear" | "turnEnded"> & { token: Pick<RunCredentials["token"], "adopt" | "replace" | "redact"> };
  trust: Pick<SessionTrust, "assertFits" | "envelope" | "ended">;
  dispatches: Pick<DispatchOnce, "run">;
  reports: Pick<RunReports, "dispatched" | "deliverNotices" | "turnStarted" | "flushEvents">;
  ledger: Pick<RunLedger, "recordCancel" | "touch">;
  openRuns: Pick<OpenRuns, "opened" | "closed" | "list">;
  activeTurn: Pick<ActiveTurn, "begin" | "end">;
  watchdog: Pick<TurnWatchdog, "stop">;
  closing: Pick<RunClosing, "close">;
  view: Pick<RunView, "runRef" | "botLogin">;
  log: Logger;
  now?: () => number;
};

export class RunLifecycle {
  readonly #deps: RunLifecycleDeps;
  readonly #now: () => number;

  constructor(deps: RunLifecycleDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => Date.now());
  }

  /** Store the run context and submit the turn. Idempotent per triggering comment. */
  start(input: StartRunInput): Promise<StartRunResult> {
    const deps = this.#deps;
    return deps.dispatches.run(input.commentId, async () => {
      const now = this.#now();
      // Before anything is stored: a GITHUB_API_URL that names no GitHub, or a token with no bot to act as, is an error saying so.
      const github = githubHost(deps.githubApiUrl());
      assertBotFor(input.installationToken, input.bot, deps.env);
      // A reporter-tier run only in its issue's reporter session, and only there (run/session-trust.ts).
      deps.trust.assertFits(input.tier);
      deps.credentials.token.adopt(input.installationToken);
      const run = runContextFrom(input, now);
      await deps.runs.put(run);
      // The envelope says whether a pull request is this App's: with the bot the run acts as.
      const message = runMessage(deps.trust.envelope(run), input.session, now, undefined, github, deps.view.botLogin(run));
      const submission = await deps.submissions.submit([message], {
        idempotencyKey: idempotencyKeyFor(input.commentId),
        // Who asked is kept with the submission: a later dispatch replaces the run context before this run's closing comment.
        metadata: dispatchMetadata(input)
      });
      deps.log("submitted", {
        repo: input.repo,
        issue: input.issueNumber,
        commentId: input.commentId,
        submissionId: submission.submissionId,
        accepted: submission.accepted
      });
      // A duplicate comment is the same run: nothing new to report.
      if (submission.accepted) deps.reports.dispatched(run, submission.submissionId, now);
      return { submissionId: submission.submissionId, accepted: submission.accepted };
    });
  }

  /**
   * Continue the latest run in this session with a fresh token: a new turn
   * whose envelope repeats the run's instruction and says it continues the
   * previous submission. The transcript so far is the model's context.
   */
  async continue(input: ContinueRunInput): Promise<{ submissionId: string }> {
    const deps = this.#deps;
    const now = this.#now();
    const github = githubHost(deps.githubApiUrl());
    // Before anything is stored: the broker's bot, else the run's, else configuration, or an error saying what is missing.
    assertBotFor(input.installationToken, input.bot ?? (await deps.runs.get())?.bot, deps.env);
    const run = await deps.credentials.token.replace(input.installationToken, input.installationTokenExpiresAt, input.bot);
    if (!run) throw new Error("this session has no run to continue");
    const last = (await deps.submissions.list()).sort((a, b) => b.createdAt - a.createdAt)[0];
    const message = runMessage(deps.trust.envelope(run), deps.session(), now, last?.submissionId ?? "unknown", github, deps.view.botLogin(run));
    const operator = typeof input.operator === "string" && input.operator.trim() ? input.operator.trim().slice(0, 320) : undefined;
    const submission = await deps.submissions.submit([message], { metadata: continuationMetadata(run, { operator, fromGitHub: input.fromGitHub }) });
    deps.log("continued", { submissionId: submission.submissionId, continuationOf: last?.submissionId });
    deps.reports.dispatched(run, submission.submissionId, now, operator);
    return { submissionId: submission.submissionId };
  }

  /** How a submission stands, as callers see it: no metadata, its error redacted. */
  async status(submissionId: string): Promise<SubmissionStatus | null> {
    const record = await this.#deps.submissions.inspect(submissionId);
    if (!record) return null;
    const status = toSubmissionStatus(record as SubmissionRecord);
    return status.error === undefined ? status : { ...status, error: this.#deps.credentials.token.redact(status.error) };
  }

  /**
   * The command center asks about a run it has heard nothing of for the
   * stale window (reconciliation, docs/command-center.md): first everything
   * this agent still owes it, then how the submission stands.
   */
  async reconcile(submissionId: string): Promise<QuietTruth> {
    await this.#deps.reports.flushEvents();
    return quietTruthOf(await this.status(submissionId), this.#now());
  }

  /** Cancel queued and running turns, clear the transcript and forget the run context. */
  async reset(): Promise<Omit<ResetSessionResult, "session">> {
    const deps = this.#deps;
    const { cancelled } = await this.#cancelActive("session reset");
    // The cancelled runs' notices go out while the run context still holds a token.
    await deps.reports.deliverNotices();
    await deps.submissions.clearTranscript();
    await deps.runs.clear();
    deps.credentials.clear();
    deps.log("reset", { cancelled });
    return { cancelled };
  }

  /**
   * Stop this issue's work: cancel the running turn and any queued behind
   * it. Each ends `aborted`, which releases its container, is reported to
   * the command center and says so on the issue; the transcript keeps what
   * was done. A `stop` comment's fresh token (and bot), when given, becomes
   * the run's, so those notices go out with it.
   */
  async cancel(reason: string, installationToken?: string, installationTokenExpiresAt?: string, bot?: BotIdentity): Promise<CancelRunResult> {
    if (installationToken) await this.#deps.credentials.token.replace(installationToken, installationTokenExpiresAt, bot);
    const result = await this.#cancelActive(reason);
    this.#deps.log("cancelled", { cancelled: result.cancelled, submissionIds: result.submissionIds });
    return result;
  }

  async #cancelActive(reason: string): Promise<CancelRunResult> {
    const active = await this.#deps.submissions.list({ status: ["pending", "running"] });
    const submissionIds: string[] = [];
    for (const submission of active) {
      // Read back when the submission ends, for its closing message.
      await this.#deps.ledger.recordCancel(submission.submissionId, reason);
      const result = await this.#deps.submissions.cancel(submission.submissionId, reason);
      if (result.outcome === "cancelled") submissionIds.push(submission.submissionId);
    }
    return { cancelled: submissionIds.length, submissionIds };
  }

  /** Think wrote a submission's new status: a turn began, or a submission ended. */
  async changed(submission: Submission): Promise<void> {
    if (submission.status === "running") {
      this.#deps.openRuns.opened(submission.submissionId, this.#now());
      await this.#deps.activeTurn.begin({ session: this.#deps.session(), submissionId: submission.submissionId });
      await this.#turnStarted(submission.submissionId, submission.startedAt ?? this.#now(), submission.metadata);
      return;
    }
    if (TERMINAL_STATUSES.has(submission.status)) await this.#finish(submission);
  }

  /** Open runs (run/open-runs.ts) whose submission Think already ended: their ending was cut off by a restart. */
  async finishCutOff(): Promise<void> {
    for (const submissionId of this.#deps.openRuns.list()) {
      try {
        const submission = await this.#deps.submissions.inspect(submissionId);
        if (!submission) this.#deps.openRuns.closed(submissionId);
        else if (TERMINAL_STATUSES.has(submission.status)) {
          this.#deps.log("turn:ending-resumed", { submissionId, status: submission.status });
          await this.#finish(submission);
        }
      } catch (error) {
        this.#deps.log("turn:ending-resume-failed", { submissionId, error: errorMessage(error) });
      }
    }
  }

  /**
   * A submission ended: release what its turn held, report how it ended,
   * then close it. Also run on start for a run whose ending a restart cut
   * off; every step is idempotent (the closing comment and the event by id).
   */
  async #finish(submission: Submission): Promise<void> {
    const deps = this.#deps;
    await this.#endTurn(submission.submissionId, submission.status);
    const ending = await deps.closing.close(submission);
    // What a maintainer's run on the issue may learn of it (as untrusted data): only a reporter session keeps it.
    await deps.trust.ended(submission.submissionId, ending, this.#now());
    const event = submission.status === "completed" ? "turn:done" : `turn:${submission.status}`;
    deps.log(event, {
      submissionId: submission.submissionId,
      ending: ending.kind,
      ...(submission.error ? { error: submission.error } : {}),
      durationMs: submission.completedAt && submission.startedAt ? submission.completedAt - submission.startedAt : undefined
    });
    deps.openRuns.closed(submission.submissionId);
  }

  /** A turn began: the command center hears it, and its triggering comment gets 🚀, once. */
  async #turnStarted(submissionId: string, at: number, metadata: Record<string, unknown> | undefined): Promise<void> {
    await this.#deps.ledger.touch(submissionId, this.#now());
    const run = await this.#deps.view.runRef(submissionId);
    const [commentId, reviewCommentId] = [metadata?.commentId, metadata?.reviewCommentId];
    const rocket = !run ? null : typeof commentId === "number" ? { run, commentId } : typeof reviewCommentId === "number" ? { run, reviewCommentId } : null;
    await this.#deps.reports.turnStarted(submissionId, at, rocket);
  }

  /** Release what the turn held. A failure here is logged, never thrown into Think. */
  async #endTurn(submissionId: string, outcome: string): Promise<void> {
    this.#deps.watchdog.stop();
    await this.#deps.activeTurn.end({ session: this.#deps.session(), submissionId }, outcome);
    // The sandbox's reads end with the turn: the next turn mints its own read-only token.
    this.#deps.credentials.turnEnded();
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
