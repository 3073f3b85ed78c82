/**
 * How long the command center keeps what it records, and the hourly sweep
 * that forgets the rest: runs for the week of spend and the thread pages, tool
 * calls for the metrics window, months for the monthly budget, 90 days of
 * each repository's record. The CommandCenterAgent's live state sweeps
 * before it reads the registry. Pure: the stores are handed in.
 * docs/command-center.md, "Metrics"; docs/storage.md.
 */
import { METRICS_WINDOW_MS, SPEND_WINDOW_MS } from "./metrics";
import { REPOSITORY_RECORD_MS } from "./repository-figures";
import type { RegistryStore } from "./store";

/** Tool calls are kept an hour past the metrics window. */
export const TOOL_CALL_RETENTION_MS = METRICS_WINDOW_MS + 60 * 60 * 1000;
/** Runs are kept for the week of spend and the thread pages' run lists, and a day more. */
export const RUN_RETENTION_MS = SPEND_WINDOW_MS + METRICS_WINDOW_MS;
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export type RetentionStores = {
  registry: () => Pick<RegistryStore, "prune">;
  /** The monthly ledger (monthly-budget.ts), which keeps its own months. */
  ledger: () => { prune(now: number): void };
  /** Each repository's record (repository-book.ts), kept REPOSITORY_RECORD_MS. */
  repositories: () => { prune(before: number): void };
};

export class RetentionSweep {
  readonly #stores: RetentionStores;
  #lastAt = 0;

  constructor(stores: RetentionStores) {
    this.#stores = stores;
  }

  /** Prune when the last sweep is more than an hour old; true when it did. */
  sweep(now: number): boolean {
    if (now - this.#lastAt <= PRUNE_INTERVAL_MS) return false;
    this.#lastAt = now;
    this.#stores.registry().prune(now - RUN_RETENTION_MS, now - TOOL_CALL_RETENTION_MS);
    this.#stores.ledger().prune(now);
    this.#stores.repositories().prune(now - REPOSITORY_RECORD_MS);
    return true;
  }
}
