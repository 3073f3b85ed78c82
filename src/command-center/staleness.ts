/**
 * When an active thread counts as quiet, stale or claimable, and the summary
 * the dashboard lists, which carries that verdict. A quiet thread is stale
 * only once its agent was asked (`quietCheckedAt`; the asking is
 * reconcile.ts). Pure: `now` and the stale window are parameters.
 */
import { isActiveStatus, type ThreadSummary } from "../shared/command-center";
import type { ThreadRecord } from "./store";

export const DEFAULT_STALE_RUN_MS = 600_000;

/** `STALE_RUN_MS` from configuration; the default for a missing or bad value. */
export function parseStaleRunMs(value: string | undefined): number {
  const parsed = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isSafeInteger(parsed) && parsed > 0
    ? parsed
    : DEFAULT_STALE_RUN_MS;
}

/** Active with no activity for longer than the stale window: time to ask its agent, unless that was done. */
export function isQuiet(thread: Pick<ThreadRecord, "status" | "lastActivityAt">, now: number, staleRunMs: number): boolean {
  return isActiveStatus(thread.status) && now - thread.lastActivityAt > staleRunMs;
}

/**
 * Quiet, and known to be: its agent was asked after the thread went quiet
 * and did not say the run had ended. A claimed thread waits on our own
 * claim, not on an agent: it is stale on the clock.
 */
export function isStale(
  thread: Pick<ThreadRecord, "status" | "lastActivityAt" | "quietCheckedAt" | "claim">,
  now: number,
  staleRunMs: number
): boolean {
  if (!isQuiet(thread, now, staleRunMs)) return false;
  return thread.claim !== undefined || (thread.quietCheckedAt ?? 0) > thread.lastActivityAt + staleRunMs;
}

/**
 * Failed, or stale: what a continuation may claim. Done and cancelled runs
 * ended as someone meant them to; a new mention starts the next run.
 */
export function isClaimable(thread: ThreadRecord, now: number, staleRunMs: number): boolean {
  return thread.status === "error" || isStale(thread, now, staleRunMs);
}

export function toSummary(thread: ThreadRecord, now: number, staleRunMs: number): ThreadSummary {
  const { claim: _claim, createdAt: _createdAt, quietCheckedAt: _quietCheckedAt, ...summary } = thread;
  return { ...summary, stale: isStale(thread, now, staleRunMs) };
}
