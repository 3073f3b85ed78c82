/**
 * How a run ended, as its issue and the command center are told: the
 * classification of a terminal submission into a result (the structured
 * result the skills record with `report_result`, run-result.ts), a plain
 * finish, a failure, an interruption, a cancel or a spent budget. Pure; the
 * agent gathers the facts, src/report/closing-text.ts writes the words.
 */
import type { TranscriptMessage } from "../shared/dispatch";
import type { ProofRecord } from "./fix-proof";

import { RESULT_OUTCOMES, type ResultOutcome } from "../shared/outcomes";
import type { RunResult } from "./run-result";

export { RESULT_OUTCOMES, type ResultOutcome };
export { checkCommandSchema, runResultSchema, type RunResult } from "./run-result";

/** How a run ended, as far as the issue is told. */
export type RunEnding =
  /** `proof`: the check the Worker re-ran for the pull request the run opened or updated, when it did or had to (fix-proof.ts). */
  | { kind: "result"; result: RunResult; proof?: ProofRecord }
  | { kind: "finished"; text: string; reproductionUrl?: string }
  | { kind: "failed"; error: string }
  | { kind: "interrupted" }
  | { kind: "cancelled"; reason?: string }
  | { kind: "budget"; limit: BudgetLimit }
  | { kind: "setup-failed"; failure: SetupFailure };

/**
 * Why the repository could not be prepared before the model's first step
 * (src/steps/prepare.ts): its `.github/agent-think.yml` is invalid, the clone
 * or checkout failed, or a setup command failed. Output is bounded and
 * redacted before it gets here.
 */
export type SetupFailure =
  | { kind: "config"; file: string; errors: string[] }
  | { kind: "checkout"; command: string; exitCode?: number; output: string }
  | { kind: "step"; file: string; index: number; of: number; command: string; exitCode?: number; timedOut?: boolean; durationMs?: number; output: string };

export type BudgetLimit = { kind: "tokens"; used: number; budget: number } | { kind: "cost"; used: number; budget: number } | { kind: "steps"; steps: number };

/** What the agent knows when a submission reaches a terminal status. */
export type EndingFacts = {
  status: "completed" | "error" | "aborted" | "skipped";
  error?: string;
  /** The submission's error is the recovery-exhausted message. */
  interrupted: boolean;
  result?: RunResult;
  finalText: string;
  budgetHit?: { kind?: "tokens" | "cost"; used: number; budget: number };
  steps: number;
  lastFinishReason?: string;
  maxSteps: number;
  cancelReason?: string;
  /** The page the run published (publish_reproduction): the address the issue gets, whatever the model wrote. */
  reproductionUrl?: string;
  /** The repository's preparation failed, which ended the run before the model started. */
  setupFailure?: SetupFailure;
  /** The proof of the pull request the run opened or updated (open_pull_request re-ran the check, or recorded why it did not). */
  proof?: ProofRecord;
  /** The thread has a reproduction (this run's page, or an earlier run's reproduced result): a fix must prove itself against it. */
  hasReproduction?: boolean;
};

/** How a run ended, for its closing message. */
export function describeEnding(facts: EndingFacts): RunEnding {
  switch (facts.status) {
    case "completed":
      if (facts.budgetHit) {
        const { used, budget } = facts.budgetHit;
        return { kind: "budget", limit: { kind: facts.budgetHit.kind === "cost" ? "cost" : "tokens", used, budget } };
      }
      // The loop stopped at the cap while the model still wanted tools.
      if (facts.steps >= facts.maxSteps && facts.lastFinishReason === "tool-calls") {
        return { kind: "budget", limit: { kind: "steps", steps: facts.maxSteps } };
      }
      if (facts.result) {
        const result = facts.reproductionUrl ? { ...facts.result, reproductionUrl: facts.reproductionUrl } : facts.result;
        return provenResult(result, facts);
      }
      return { kind: "finished", text: facts.finalText, ...(facts.reproductionUrl ? { reproductionUrl: facts.reproductionUrl } : {}) };
    case "error":
      if (facts.setupFailure) return { kind: "setup-failed", failure: facts.setupFailure };
      return facts.interrupted ? { kind: "interrupted" } : { kind: "failed", error: facts.error ?? "the run failed without an error message" };
    case "aborted":
    case "skipped":
      return { kind: "cancelled", ...(facts.cancelReason ? { reason: facts.cancelReason } : {}) };
  }
}

const FIX_OUTCOMES: ReadonlySet<ResultOutcome> = new Set(["pr-opened", "pr-updated", "pr-unproven"]);

/**
 * A pull request's outcome as its proof allows: `pr-opened` or `pr-updated`
 * only when the re-run check failed before and passed after, or when there
 * was no reproduction to prove it with; otherwise `pr-unproven`, whatever
 * the model reported. The proof goes with the result to the closing comment.
 */
function provenResult(result: RunResult, facts: EndingFacts): RunEnding {
  if (!FIX_OUTCOMES.has(result.outcome)) return { kind: "result", result };
  const proof: ProofRecord | undefined =
    facts.proof ?? (facts.hasReproduction ? { ran: false, why: "the thread has a reproduction, but its check was not re-run for this pull request" } : undefined);
  if (!proof) return { kind: "result", result };
  const held = proof.ran && proof.held;
  return { kind: "result", result: held || result.outcome === "pr-unproven" ? result : { ...result, outcome: "pr-unproven" }, proof };
}

/** The one-line status the command center records for an ending that is not a plain success. */
export function endingError(ending: RunEnding): string | undefined {
  switch (ending.kind) {
    case "result":
    case "finished":
      return undefined;
    case "failed":
      return ending.error;
    case "interrupted":
      return "interrupted: recovery exhausted";
    case "cancelled":
      return `cancelled${ending.reason ? `: ${ending.reason}` : ""}`;
    case "setup-failed":
      return `setup failed: ${setupFailureLine(ending.failure)}${couldNotRunReason(ending.failure)}`;
    case "budget":
      switch (ending.limit.kind) {
        case "tokens":
          return `budget exhausted: ${ending.limit.used} of ${ending.limit.budget} tokens`;
        case "cost":
          return `budget exhausted: $${ending.limit.used.toFixed(2)} of $${ending.limit.budget.toFixed(2)}`;
        case "steps":
          return `budget exhausted: step cap of ${ending.limit.steps}`;
      }
  }
}

/** One line saying what failed in the repository's preparation (the command center's error, the comment's heading). */
export function setupFailureLine(failure: SetupFailure): string {
  switch (failure.kind) {
    case "config":
      return `${failure.file} is invalid (${failure.errors.length} problem${failure.errors.length === 1 ? "" : "s"})`;
    case "checkout":
      return `\`${failure.command}\` ${failure.exitCode === undefined ? "could not run" : `failed (exit ${failure.exitCode})`}`;
    case "step":
      return `step ${failure.index} of ${failure.of} \`${failure.command}\` ${failure.timedOut ? "timed out" : failure.exitCode === undefined ? "could not run" : `exited ${failure.exitCode}`}`;
  }
}

/** The longest reason the one-line status quotes. */
const MAX_REASON_CHARS = 300;

/**
 * Whether the step never ran: its backend answered an error (the container
 * could not start, say), not an exit code. That answer is the cause.
 */
export function setupCouldNotRun(failure: SetupFailure): boolean {
  return failure.kind !== "config" && failure.exitCode === undefined && !(failure.kind === "step" && failure.timedOut);
}

/** For the one-line status: why a step could not run, from the first line of its backend's answer. */
function couldNotRunReason(failure: SetupFailure): string {
  if (failure.kind === "config" || !setupCouldNotRun(failure)) return "";
  const first = failure.output.trim().split("\n")[0]?.trim() ?? "";
  if (!first) return "";
  return `: ${first.length > MAX_REASON_CHARS ? `${first.slice(0, MAX_REASON_CHARS - 1)}…` : first}`;
}

/** The text of the assistant message a turn persisted (or the last assistant message), for a run that ended without a result. */
export function finalAssistantText(messages: readonly TranscriptMessage[], messageId: string | undefined): string {
  const message = messages.find((entry) => entry.id === messageId) ?? messages.findLast((entry) => entry.role === "assistant");
  if (!message || message.role !== "assistant") return "";
  return message.parts
    .filter((part): part is { type: "text"; text: string } => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n")
    .trim();
}

/** Thrown when the repository could not be prepared; the run ends `setup-failed` with this failure. */
export class SetupFailedError extends Error {
  override readonly name = "SetupFailedError";
  constructor(readonly failure: SetupFailure) {
    super(`the repository could not be prepared (${failure.kind === "config" ? `${failure.file} is invalid` : failure.command})`);
  }
}
