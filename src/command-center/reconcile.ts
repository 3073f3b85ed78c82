/**
 * Reconciliation: an active thread quiet for longer than the stale window
 * is not called stale on the clock alone. The command center first asks the
 * run's agent (`ThinkAgent.reconcileRun`), and `settleQuiet` applies the
 * answer: an ended run ends here as it ended there; only a run still
 * active, or an agent that cannot be reached, makes the thread stale
 * (`quietCheckedAt`, read by staleness.ts `isStale`). Pure, over
 * `RegistryStore`; the CommandCenterAgent runs it in one transaction.
 */
import type { EndedStatus } from "../shared/command-center";
import { recordEvent } from "./registry";
import { isQuiet, isStale } from "./staleness";
import type { RegistryStore, ThreadRecord } from "./store";

/** Quiet and not yet asked about: the threads reconciliation asks the agent about. */
export function needsQuietCheck(thread: ThreadRecord, now: number, staleRunMs: number): boolean {
  return isQuiet(thread, now, staleRunMs) && !isStale(thread, now, staleRunMs);
}

/** What a run's agent says when asked about a quiet run (`ThinkAgent.reconcileRun`). */
export type QuietTruth =
  /** It has not ended, or the agent could not be asked: the thread is stale. */
  | { kind: "active" }
  | { kind: "unreachable"; error: string }
  /** It ended, and how: the thread ends the same. */
  | { kind: "ended"; status: EndedStatus; error?: string; at: number }
  /** The agent has no record of the run. */
  | { kind: "missing" };

/** The agent's answer from its submission's status (null: it has none). */
export function quietTruthOf(
  submission: { status: "pending" | "running" | "completed" | "error" | "aborted" | "skipped"; error?: string; completedAt?: number } | null,
  now: number
): QuietTruth {
  if (!submission) return { kind: "missing" };
  if (submission.status === "pending" || submission.status === "running") return { kind: "active" };
  return {
    kind: "ended",
    status: endedStatusOf(submission.status),
    ...(submission.status === "error" && submission.error ? { error: submission.error } : {}),
    at: submission.completedAt ?? now
  };
}

/** `ask()`'s answer, or unreachable when it throws or has not answered in `timeoutMs`. */
export async function askWithin(ask: () => Promise<QuietTruth>, timeoutMs: number): Promise<QuietTruth> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<QuietTruth>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "unreachable", error: `no answer in ${timeoutMs} ms` }), timeoutMs);
  });
  const answer = ask().catch((error: unknown): QuietTruth => ({ kind: "unreachable", error: error instanceof Error ? error.message : String(error) }));
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export const MISSING_RUN_ERROR = "lost: the run's agent has no record of it";

/** A Think submission's terminal status as the thread's: how a run whose own end was never reported ended. */
export function endedStatusOf(status: "completed" | "error" | "aborted" | "skipped"): EndedStatus {
  return status === "completed" ? "done" : status === "error" ? "error" : "cancelled";
}

/**
 * Apply the agent's answer about a quiet thread's current run. False when
 * the thread is no longer that run, is no longer quiet, or nothing changed.
 */
export function settleQuiet(
  store: RegistryStore,
  session: string,
  submissionId: string,
  truth: QuietTruth,
  now: number,
  staleRunMs: number
): boolean {
  const thread = store.getThread(session);
  if (!thread || thread.submissionId !== submissionId || thread.claim || !needsQuietCheck(thread, now, staleRunMs)) return false;
  if (truth.kind === "ended" || truth.kind === "missing") {
    const ended =
      truth.kind === "ended"
        ? { status: truth.status, error: truth.error, at: Math.min(truth.at, now) }
        : { status: "error" as const, error: MISSING_RUN_ERROR, at: now };
    const event = { type: "turn-ended" as const, session, submissionId, status: ended.status, at: ended.at };
    if (recordEvent(store, ended.error ? { ...event, error: ended.error } : event).applied) return true;
  }
  // Still active, unreachable, or an end the run already had: asked, and stale.
  store.putThread({ ...thread, quietCheckedAt: now });
  return true;
}
