/**
 * The command center's wake-up for a thread going quiet with no event to say
 * so: one pending `refreshState`, the earliest asked for. It asks through
 * the CommandCenterAgent's `OneShotSchedules` (one job across isolates too)
 * and forgets a request that failed, so the next flush asks again. Pure:
 * the scheduling, the clocks and the log are handed in.
 * docs/command-center.md, "Reconciliation".
 */
import type { Logger } from "../run/log";

export type StaleRefreshDeps = {
  /** Schedule `refreshState` at this wall-clock time (`OneShotSchedules.request`). */
  request: (at: number) => Promise<void>;
  /** The clock thread times are on (the agent's seam). */
  clock: () => number;
  log: Logger;
  /** Real time, which schedules go by. */
  wallClock?: () => number;
};

export class StaleRefresh {
  readonly #deps: StaleRefreshDeps;
  /** The pending wake-up, on the agent's clock. */
  #at: number | undefined;

  constructor(deps: StaleRefreshDeps) {
    this.#deps = deps;
  }

  /** Wake up at `at` (the agent's clock) unless one as early is pending; undefined asks nothing. */
  schedule(at: number | undefined): void {
    if (at === undefined || (this.#at !== undefined && this.#at <= at)) return;
    this.#at = at;
    const wall = this.#deps.wallClock?.() ?? Date.now();
    this.#deps.request(wall + Math.max(at - this.#deps.clock(), 0)).catch((error: unknown) => {
      this.#at = undefined;
      this.#deps.log("stale-refresh:failed", { error: error instanceof Error ? error.message : String(error) });
    });
  }

  /** The wake-up came (or a refresh ran anyway): the next flush plans the next one. */
  woke(): void {
    this.#at = undefined;
  }
}
