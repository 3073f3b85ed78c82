/**
 * Closing a run whose submission ended: how it ended, worked out from what the ledger kept
 * (run-ledger.ts, ending.ts), reported (its one closing message with the run's figures, the
 * command center's end, the final word on what the egress gateway refused and which private
 * sources it used), a reproduction kept for the thread's later fixes with the tier of the run
 * that recorded it (its metadata's `tier`; thread-reproduction.ts), and the ledger's and
 * preparation's entries forgotten. Every step is idempotent, so a restart can close the run
 * again. run-lifecycle.ts hands it the ended submission. Pure apart from its dependencies.
 */
import type { RunRef, RunStats } from "../report/run-ref";
import type { RunReports } from "../report/run-reports";
import { NO_COST } from "../shared/pricing";
import type { TranscriptMessage } from "../shared/dispatch";
import { describeEnding, finalAssistantText, type RunEnding } from "../run/ending";
import type { RunLedger } from "../run/run-ledger";
import { recordingTier, type ThreadReproductions } from "../run/thread-reproduction";

/** What Think says of a submission that ended. */
export type EndedSubmission = {
  submissionId: string;
  status: string;
  error?: string;
  messageId?: string;
  startedAt?: number;
  completedAt?: number;
  metadata?: Record<string, unknown>;
};

export type RunClosingDeps = {
  ledger: Pick<RunLedger, "facts" | "forget">;
  reports: Pick<RunReports, "blocked" | "privateSources" | "turnEnded">;
  /** The thread's reproduction: a fix must prove itself against it; a `reproduced` result becomes it. */
  reproductions: Pick<ThreadReproductions, "ended" | "latest">;
  /** Where the run's messages go (null: no run to tell). */
  runRef: (submissionId: string, metadata?: Record<string, unknown>) => Promise<RunRef | null>;
  transcript: () => Promise<TranscriptMessage[]>;
  redact: (text: string) => string;
  /** The error Think records when recovery gave up: the run was interrupted. */
  interruptedMessage: () => string;
  maxSteps: () => number;
  /** The preparation's entries for the submission are dropped. */
  forgetPrepared: (submissionId: string) => void;
};

export class RunClosing {
  readonly #deps: RunClosingDeps;

  constructor(deps: RunClosingDeps) {
    this.#deps = deps;
  }

  async close(submission: EndedSubmission): Promise<RunEnding> {
    const deps = this.#deps;
    const id = submission.submissionId;
    const facts = await deps.ledger.facts(id);
    const hasReproduction = facts.reproductionUrl !== undefined || (await deps.reproductions.latest()) !== undefined;
    const ending = describeEnding({
      status: submission.status as "completed" | "error" | "aborted" | "skipped",
      error: submission.error === undefined ? undefined : deps.redact(submission.error),
      interrupted: submission.error === deps.interruptedMessage(),
      result: facts.result,
      finalText: submission.status === "completed" ? deps.redact(finalAssistantText(await deps.transcript(), submission.messageId)) : "",
      budgetHit: facts.budgetHit,
      steps: facts.usage?.steps ?? 0,
      lastFinishReason: facts.usage?.lastFinishReason,
      maxSteps: deps.maxSteps(),
      cancelReason: facts.cancelReason,
      reproductionUrl: facts.reproductionUrl,
      setupFailure: facts.setupFailure,
      proof: facts.proof,
      hasReproduction
    });
    const at = submission.completedAt ?? Date.now();
    const tier = recordingTier(submission.metadata?.tier === "reporter" ? "reporter" : undefined);
    await deps.reproductions.ended(id, ending.kind === "result" ? ending.result : undefined, at, tier);
    // No model step ran before a failed setup: nothing was spent. Otherwise unreported usage is unknown, never zero.
    const cost = facts.usage?.cost ?? (ending.kind === "setup-failed" ? NO_COST : undefined);
    const stats: RunStats = {
      ...(submission.startedAt !== undefined ? { durationMs: at - submission.startedAt } : {}),
      toolCalls: facts.toolCalls ?? 0,
      ...(cost ? { cost } : {}),
      ...(facts.usage?.scripted ? { scripted: true } : {}),
      ...(facts.usage?.models?.length ? { models: facts.usage.models } : {}),
      ...(facts.blocked?.length ? { blocked: facts.blocked } : {}),
      ...(facts.privateSources?.length ? { privateSources: facts.privateSources } : {})
    };
    const run = await deps.runRef(id, submission.metadata);
    // The thread's last word on what was refused: the whole tally, later refusals included.
    if (facts.blocked?.length) deps.reports.blocked(id, facts.blocked, at);
    if (facts.privateSources?.length) deps.reports.privateSources(id, facts.privateSources, at);
    await deps.reports.turnEnded(id, { run: run && { ...run, stats }, ending, usage: facts.usage, ...(cost ? { cost } : {}), at });
    deps.forgetPrepared(id);
    await deps.ledger.forget(id);
    return ending;
  }
}
