/**
 * The thread's reproduction: what the last run that reported `reproduced`
 * left for a later fix to prove itself with (fix-proof.ts), its check's
 * command above all, and the tier of the run that recorded it: a later fix
 * re-runs the check only in a run of the same or a lower tier (`mayRerun`).
 * It outlives the run (the ledger forgets a run's facts when it closes) and
 * is replaced by the next reproduction. docs/storage.md lists the key.
 * Pure: storage is a narrow interface.
 */
import type { RecordingTier, RunTier } from "../shared/dispatch";
import type { RunResult } from "./ending";

export const THREAD_REPRODUCTION_KEY = "agent-think:thread-reproduction";

/** Who a run answered to: a maintainer (a run with no tier), or the author under the reporter tier. */

export type ThreadReproduction = {
  submissionId: string;
  at: number;
  /** The tier of the run that recorded it; absent on a record from before tiers were kept, which no run trusts. */
  tier?: RecordingTier;
  /** The command that fails while the bug occurs and passes once it is fixed, when the run named one. */
  check?: string;
  reproductionUrl?: string;
};

export interface ThreadReproductionStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
}

export class ThreadReproductions {
  readonly #storage: ThreadReproductionStorage;
  constructor(storage: ThreadReproductionStorage) {
    this.#storage = storage;
  }

  /** A run of `tier` ended: a `reproduced` result becomes the thread's reproduction; anything else changes nothing. */
  async ended(submissionId: string, result: RunResult | undefined, at: number, tier: RecordingTier): Promise<void> {
    if (result?.outcome !== "reproduced") return;
    await this.#storage.put<ThreadReproduction>(THREAD_REPRODUCTION_KEY, {
      submissionId,
      at,
      tier,
      ...(result.check ? { check: result.check } : {}),
      ...(result.reproductionUrl ? { reproductionUrl: result.reproductionUrl } : {})
    });
  }

  latest(): Promise<ThreadReproduction | undefined> {
    return this.#storage.get<ThreadReproduction>(THREAD_REPRODUCTION_KEY);
  }
}

/** The tier of a run, from its dispatch's `tier` (absent: a maintainer's). */
export function recordingTier(tier: RunTier | undefined): RecordingTier {
  return tier === "reporter" ? "reporter" : "maintainer";
}

const RANK: Record<RecordingTier, number> = { reporter: 0, maintainer: 1 };

/**
 * Whether a run of `runTier` may re-run a check recorded by a run of
 * `recordedBy`: only when the recorder's tier is the same as the run's or
 * higher (reporter < maintainer); a record without a tier is no one's to
 * trust.
 */
export function mayRerun(recordedBy: RecordingTier | undefined, runTier: RecordingTier): boolean {
  return recordedBy !== undefined && RANK[recordedBy] >= RANK[runTier];
}
