/**
 * A continuation's claim on a thread: taking a failed or stale thread back to
 * running for the Continue button or a maintainer's `continue` on GitHub,
 * and giving the claim back when the continuation could not be submitted.
 * The continuation's `dispatched` event lifts the claim (registry.ts).
 * Pure: works over `RegistryStore`, takes `now` and the stale window.
 */
import { type ClaimResult, type GitHubContinuation, isActiveStatus } from "../shared/command-center";
import { isClaimable, toSummary } from "./staleness";
import type { RegistryStore, ThreadRecord } from "./store";
import { STORED_ERROR_MAX_CHARS, storedText } from "./text";

export const CONTINUATION_FAILED_ERROR = "continuation failed";

/**
 * Claim a failed or stale thread for a continuation: it goes back to running
 * with one more run, and stays unclaimable until the continuation's
 * `dispatched` event arrives (or the claim is released, or itself goes stale).
 * `fromGitHub`: a maintainer's `continue` on GitHub asked; the continuation's
 * run and the thread record it when its `dispatched` arrives.
 */
export function claimThread(
  store: RegistryStore,
  session: string,
  now: number,
  staleRunMs: number,
  fromGitHub?: GitHubContinuation
): ClaimResult {
  const thread = store.getThread(session);
  if (!thread) return { ok: false, reason: "not_found" };
  if (!isClaimable(thread, now, staleRunMs)) return { ok: false, reason: "not_claimable", status: thread.status };

  if (isActiveStatus(thread.status) && !thread.claim) {
    // The stale run is given up: it ends as an error for the metrics, so an
    // abandoned run is not silently left out of the success rate.
    const run = store.getRun(session, thread.submissionId);
    if (run && run.endedAt === undefined) {
      run.endedAt = now;
      run.status = "error";
      run.error = `abandoned: no activity for ${Math.round((now - thread.lastActivityAt) / 1000)} s`;
      run.touchedAt = Math.max(run.touchedAt, now);
      store.putRun(run);
    }
  }

  // The continuation is a new run: the old run's recoveries and quiet check go with it.
  const { recoveries: _recoveries, quietCheckedAt: _quietCheckedAt, ...rest } = thread;
  const claimed: ThreadRecord = {
    ...rest,
    status: "running",
    runCount: thread.runCount + (thread.claim ? 0 : 1),
    lastActivityAt: Math.max(thread.lastActivityAt, now),
    claim: { at: now, ...(fromGitHub ? { fromGitHub } : {}) }
  };
  store.putThread(claimed);
  return { ok: true, thread: toSummary(claimed, now, staleRunMs) };
}

/**
 * Give a claim back when the continuation could not be submitted (no token,
 * submit failed): the thread shows the error and is claimable again. False
 * when there is no pending claim (unknown thread, or its `dispatched` came).
 */
export function releaseClaim(store: RegistryStore, session: string, now: number, error?: string): boolean {
  const thread = store.getThread(session);
  if (!thread?.claim) return false;
  const { claim: _claim, ...rest } = thread;
  store.putThread({
    ...rest,
    status: "error",
    runCount: Math.max(thread.runCount - 1, 0),
    lastError: storedText(error?.trim() || thread.lastError || CONTINUATION_FAILED_ERROR, STORED_ERROR_MAX_CHARS),
    lastActivityAt: Math.max(thread.lastActivityAt, now)
  });
  return true;
}
