/**
 * Continuing a failed or stale run, as the dashboard's Continue button (and
 * a maintainer's `continue` on GitHub, src/service.ts) asks: claim the
 * thread, mint a fresh installation token for its repository, submit the
 * continuation into the same session. A failure after the claim gives the
 * claim back and is rethrown for the route to answer 502. Pure: each step is
 * a dependency that src/service.ts wires. docs/command-center.md,
 * "Continuation claims".
 */
import type { ContinueOutcome } from "../shared/command-center";
import type { ClaimResult, ContinueResult, ThreadSummary } from "../shared/command-center";

/** `Token` is whatever the broker answers (src/service.ts: the token and its expiry); it only passes through. */
export type ContinuationDeps<Token = string> = {
  claim(session: string): Promise<ClaimResult>;
  release(session: string, error: string): Promise<unknown>;
  /** A fresh installation token for `repo` (the token broker). */
  mintToken(repo: string): Promise<Token>;
  /** Submit the continuation turn into the thread's session with `token`. */
  submit(thread: ThreadSummary, token: Token): Promise<ContinueResult>;
};

export const TOKEN_FAILED_ERROR = "continuation failed: no GitHub token could be minted";
export const SUBMIT_FAILED_ERROR = "continuation failed: the turn could not be submitted";

/** The route's outcome; a refused claim keeps the thread's status, which says why (a `continue` on GitHub answers with it). */
export type ContinuationOutcome = Extract<ContinueOutcome, { ok: true }> | Extract<ClaimResult, { ok: false }>;

export async function continueThread<Token>(session: string, deps: ContinuationDeps<Token>): Promise<ContinuationOutcome> {
  const claim = await deps.claim(session);
  if (!claim.ok) return claim;
  let token: Token;
  try {
    token = await deps.mintToken(claim.thread.repo);
  } catch (error) {
    await releaseQuietly(deps, session, TOKEN_FAILED_ERROR);
    throw error;
  }
  try {
    return { ok: true, result: await deps.submit(claim.thread, token) };
  } catch (error) {
    await releaseQuietly(deps, session, SUBMIT_FAILED_ERROR);
    throw error;
  }
}

/** The release is best effort: the original failure is what the caller must hear about. */
async function releaseQuietly<Token>(deps: ContinuationDeps<Token>, session: string, error: string): Promise<void> {
  try {
    await deps.release(session, error);
  } catch {
    // A claim that cannot be released goes stale by itself and is claimable then.
  }
}
