/**
 * The metrics a broadcast or a snapshot reuses: the last 24 hours' activity
 * kept up to the age the caller allows, the week's spend longer, and whether
 * anything changed since they were computed. Used by the CommandCenterAgent
 * and live-state.ts. Pure: the sources and `now` are the caller's. Why the
 * ages: docs/command-center.md, "Metrics" and "Bounded broadcast".
 */
import type { Metrics } from "../shared/command-center";
import type { ActivityMetrics } from "./metrics";
import type { SpendMetrics } from "./snapshot";

/** How long the 24 hours' metrics (every run of the window read, about 20 ms with a few thousand) are reused. */
export const METRICS_MAX_AGE_MS = 1_000;
/** Spend scans a week of runs: kept this long between broadcasts (a maximum age of 0 recomputes it). */
export const SPEND_MAX_AGE_MS = 10_000;

export type MetricsSources = {
  activity: (now: number) => ActivityMetrics;
  spend: (now: number) => SpendMetrics;
};

export class MetricsCache {
  readonly #sources: MetricsSources;
  #metrics: { at: number; metrics: Metrics } | undefined;
  #spend: { at: number; spend: SpendMetrics } | undefined;
  /** Something changed since the kept metrics were computed. */
  #dirty = true;

  constructor(sources: MetricsSources) {
    this.#sources = sources;
  }

  /** Something the metrics count changed. */
  changed(): void {
    this.#dirty = true;
  }

  /** The metrics, recomputed when the ones kept are older than `maxAgeMs` (0: always, the spend too). */
  at(now: number, maxAgeMs: number): Metrics {
    const kept = this.#metrics;
    if (kept && now >= kept.at && now - kept.at < maxAgeMs) return kept.metrics;
    const metrics = { ...this.#sources.activity(now), ...this.#spendAt(now, maxAgeMs === 0 ? 0 : SPEND_MAX_AGE_MS) };
    this.#metrics = { at: now, metrics };
    this.#dirty = false;
    return metrics;
  }

  /** When the kept metrics, reused up to `maxAgeMs`, expire while missing a change; undefined when they miss none. */
  staleAt(maxAgeMs: number): number | undefined {
    return this.#dirty && this.#metrics ? this.#metrics.at + maxAgeMs : undefined;
  }

  #spendAt(now: number, maxAgeMs: number): SpendMetrics {
    const kept = this.#spend;
    if (kept && now >= kept.at && now - kept.at < maxAgeMs) return kept.spend;
    const spend = this.#sources.spend(now);
    this.#spend = { at: now, spend };
    return spend;
  }
}
