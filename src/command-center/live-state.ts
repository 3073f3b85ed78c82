/**
 * The command center's live state for dashboards: after a change, the
 * bounded state (broadcast.ts) is sent at most once per BROADCAST_INTERVAL_MS,
 * with metrics reused up to a second (metrics-cache.ts) and a broadcast with
 * fresh ones following reused ones that missed a change. Each flush also
 * says when the next active thread goes quiet. Timers are the isolate's; the
 * store, the clock and the sending are the CommandCenterAgent's. Why the
 * numbers: docs/command-center.md, "Bounded broadcast".
 */
import type { Logger } from "../run/log";
import { MAX_RECENT_THREADS, type CommandCenterState } from "../shared/command-center";
import { boundedState, nextStaleAt } from "./broadcast";
import { METRICS_MAX_AGE_MS, type MetricsCache } from "./metrics-cache";
import { toSummary } from "./staleness";
import type { RegistryStore } from "./store";

/** At most one broadcast per this many milliseconds, whatever asks for one; a change waits at most this long to be seen. */
export const BROADCAST_INTERVAL_MS = 300;

export type LiveStateDeps = {
  store: () => Pick<RegistryStore, "pageThreads" | "countThreads" | "quietestUnsettled">;
  metrics: MetricsCache;
  staleRunMs: () => number;
  /** The clock for metrics and staleness (the agent's seam). */
  clock: () => number;
  /** Before each read of the store: the hourly pruning (retention.ts). */
  upkeep: (now: number) => void;
  /** Sends the state to every dashboard (`setState`). */
  send: (state: CommandCenterState) => void;
  /** When the next active thread goes quiet, if one will: the stale refresh (stale-refresh.ts). */
  wakeAt: (at: number | undefined) => void;
  log: Logger;
  /** Real time, which the throttle and its timers go by. */
  wallClock?: () => number;
};

export class LiveState {
  readonly #deps: LiveStateDeps;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastBroadcastAt = 0;

  constructor(deps: LiveStateDeps) {
    this.#deps = deps;
  }

  /** Something changed: broadcast at once if the last broadcast is old enough, else once the interval has passed. */
  changed(): void {
    this.#deps.metrics.changed();
    this.#schedule();
  }

  /** The state as of now, with fresh metrics, broadcast now (`refreshState`). */
  refresh(): CommandCenterState {
    return this.#flush(0, true);
  }

  #schedule(): void {
    const wait = this.#lastBroadcastAt + BROADCAST_INTERVAL_MS - this.#wallNow();
    // Due now: at once, even with a timer pending (a thread flooded with calls runs its timers late).
    if (wait <= 0) {
      this.#flushSafely();
      return;
    }
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flushSafely();
    }, wait);
  }

  #flushSafely(): void {
    try {
      this.#flush(METRICS_MAX_AGE_MS, false);
    } catch (error) {
      this.#deps.log("broadcast:failed", { error: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * The state as of now (metrics at most `metricsMaxAgeMs` old), broadcast
   * now if asked to or if the last broadcast is at least the interval old,
   * else by the pending timer; and the wake-up for the next thread to go quiet.
   */
  #flush(metricsMaxAgeMs: number, broadcastNow: boolean): CommandCenterState {
    const { metrics, staleRunMs } = this.#deps;
    const now = this.#deps.clock();
    this.#deps.upkeep(now);
    const store = this.#deps.store();
    const threads = store.pageThreads(undefined, MAX_RECENT_THREADS).map((thread) => toSummary(thread, now, staleRunMs()));
    const state = boundedState({ metrics: metrics.at(now, metricsMaxAgeMs), threads, total: store.countThreads(), updatedAt: now });
    if (broadcastNow || this.#wallNow() - this.#lastBroadcastAt >= BROADCAST_INTERVAL_MS) {
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#lastBroadcastAt = this.#wallNow();
      this.#deps.send(state);
    } else {
      this.#schedule();
    }
    // Reused metrics that miss a change: a broadcast with fresh ones follows when they expire.
    const staleAt = metrics.staleAt(metricsMaxAgeMs);
    if (staleAt !== undefined && this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#flushSafely();
      }, Math.max(staleAt - now, BROADCAST_INTERVAL_MS));
    }
    const quietest = store.quietestUnsettled(now, staleRunMs());
    this.#deps.wakeAt(quietest && nextStaleAt([toSummary(quietest, now, staleRunMs())], staleRunMs()));
    return state;
  }

  #wallNow(): number {
    return this.#deps.wallClock?.() ?? Date.now();
  }
}
