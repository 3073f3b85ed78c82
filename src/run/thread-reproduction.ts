/**
 * The thread's reproduction: what the last run that reported `reproduced`
 * left for a later fix to prove itself with (fix-proof.ts), its check's
 * command above all. It outlives the run (the ledger forgets a run's facts
 * when it closes) and is replaced by the next reproduction. docs/storage.md
 * lists the key. Pure: storage is a narrow interface.
 */
import type { RunResult } from "./ending";

export const THREAD_REPRODUCTION_KEY = "agent-think:thread-reproduction";

export type ThreadReproduction = {
  submissionId: string;
  at: number;
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

  /** A run ended: a `reproduced` result becomes the thread's reproduction; anything else changes nothing. */
  async ended(submissionId: string, result: RunResult | undefined, at: number): Promise<void> {
    if (result?.outcome !== "reproduced") return;
    await this.#storage.put<ThreadReproduction>(THREAD_REPRODUCTION_KEY, {
      submissionId,
      at,
      ...(result.check ? { check: result.check } : {}),
      ...(result.reproductionUrl ? { reproductionUrl: result.reproductionUrl } : {})
    });
  }

  latest(): Promise<ThreadReproduction | undefined> {
    return this.#storage.get<ThreadReproduction>(THREAD_REPRODUCTION_KEY);
  }
}
