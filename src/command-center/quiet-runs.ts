/**
 * Reconciliation as the CommandCenterAgent drives it: ask each quiet
 * thread's agent how its run stands (a bounded wait each, a batch a pass),
 * apply the answers in one transaction (reconcile.ts `settleQuiet`), give an
 * ended run's reporter reservation back and note its end in its repository's
 * record, and say that something changed.
 * Pure: the store, the asking, the transaction and the clock are handed in.
 * docs/command-center.md, "Reconciliation".
 */
import type { Logger } from "../run/log";
import { askWithin, needsQuietCheck, settleQuiet, type QuietTruth } from "./reconcile";
import type { RegistryStore, ThreadRecord } from "./store";

/** How long an agent has to answer about a quiet run before it counts as unreachable. */
export const RECONCILE_TIMEOUT_MS = 10_000;
/** Quiet threads asked about per pass; more wait for the next pass, a second later. */
export const RECONCILE_BATCH = 25;
/** Quiet threads read per reconciliation pass. */
export const QUIET_SCAN_LIMIT = 500;

export type QuietRunsDeps = {
  store: () => RegistryStore;
  /** Ask the session's agent about the submission (the agent's `askAgent` seam). */
  ask: (session: string, submissionId: string) => Promise<QuietTruth>;
  /** Run synchronously in one storage transaction. */
  transaction: <T>(apply: () => T) => T;
  /** Give back the session's reporter reservation (its run ended). */
  release: (session: string) => void;
  /** Keep the ended run in its repository's record (repository-book.ts), inside the same transaction. */
  noteEnd: (session: string, submissionId: string) => void;
  staleRunMs: () => number;
  /** Something dashboards show changed. */
  changed: () => void;
  log: Logger;
  timeoutMs?: number;
};

export class QuietRuns {
  readonly #deps: QuietRunsDeps;

  constructor(deps: QuietRunsDeps) {
    this.#deps = deps;
  }

  /** One pass over the quiet active threads, a batch of them asked; true when more wait for the next pass. */
  async pass(now: number): Promise<boolean> {
    const staleRunMs = this.#deps.staleRunMs();
    const quiet = this.#deps
      .store()
      .quietActiveThreads(now - staleRunMs, QUIET_SCAN_LIMIT)
      .filter((thread) => needsQuietCheck(thread, now, staleRunMs));
    await this.check(quiet.slice(0, RECONCILE_BATCH), now);
    return quiet.length > RECONCILE_BATCH;
  }

  /** Before a claim: a quiet thread's agent is asked first, so a run that ended is not offered again. */
  async beforeClaim(session: string, now: number): Promise<void> {
    const thread = this.#deps.store().getThread(session);
    if (thread && needsQuietCheck(thread, now, this.#deps.staleRunMs())) await this.check([thread], now);
  }

  /** Ask each thread's agent how its run stands and apply the answers; an agent that does not answer in time is unreachable. */
  async check(threads: readonly ThreadRecord[], now: number): Promise<void> {
    if (threads.length === 0) return;
    const { ask, log } = this.#deps;
    const timeoutMs = this.#deps.timeoutMs ?? RECONCILE_TIMEOUT_MS;
    const answers = await Promise.all(threads.map(async (thread) => ({ thread, truth: await askWithin(() => ask(thread.session, thread.submissionId), timeoutMs) })));
    const changed = this.#deps.transaction(() =>
      answers.filter(({ thread, truth }) => {
        const settled = settleQuiet(this.#deps.store(), thread.session, thread.submissionId, truth, now, this.#deps.staleRunMs());
        // An end learnt by asking is an end: the run's reservation goes with it.
        if (settled && (truth.kind === "ended" || truth.kind === "missing")) {
          this.#deps.release(thread.session);
          this.#deps.noteEnd(thread.session, thread.submissionId);
        }
        return settled;
      })
    );
    for (const { thread, truth } of changed) {
      log("reconciled", { session: thread.session, submissionId: thread.submissionId, truth: truth.kind, ...(truth.kind === "unreachable" ? { error: truth.error } : {}) });
    }
    if (changed.length > 0) this.#deps.changed();
  }
}
