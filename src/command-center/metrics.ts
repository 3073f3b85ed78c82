/**
 * Metrics across threads over the last 24 hours (runs, success rate,
 * duration and first-tool percentiles, tool error rate, recoveries), from
 * the runs' records and the tool-call counts. Percentiles are nearest-rank.
 * Pure: `now` is a parameter. The definitions, kept in step with this
 * module: docs/command-center.md, "Metrics".
 */
import type { Metrics } from "../shared/command-center";
import type { RunRecord } from "./store";

export const METRICS_WINDOW_MS = 24 * 60 * 60 * 1000;
/** What spend is summed over: 7 days. Runs are kept this long and a day more (src/command-center.ts). */
export const SPEND_WINDOW_MS = 7 * METRICS_WINDOW_MS;

/** The metrics of the last 24 hours; spend is snapshot.ts's (over SQL, 7 days). */
export type ActivityMetrics = Omit<Metrics, "spendToday" | "spend7d" | "spendByRepo" | "costliestRuns">;

export function computeMetrics(
  runs: readonly RunRecord[],
  toolCalls: { calls: number; errors: number },
  now: number
): ActivityMetrics {
  const since = now - METRICS_WINDOW_MS;
  const inWindow = (at: number | undefined): at is number => at !== undefined && at >= since;

  const dispatched = runs.filter((run) => inWindow(run.dispatchedAt));
  const ended = runs.filter((run) => inWindow(run.endedAt));
  const durations = ended.flatMap((run) =>
    run.dispatchedAt === undefined ? [] : [Math.max(0, run.endedAt! - run.dispatchedAt)]
  );
  const firstTools = dispatched.flatMap((run) =>
    run.firstToolAt === undefined ? [] : [Math.max(0, run.firstToolAt - run.dispatchedAt!)]
  );
  const judged = ended.filter((run) => run.status !== "cancelled");
  const done = judged.filter((run) => run.status === "done").length;

  return {
    runs24h: dispatched.length,
    successRate: judged.length === 0 ? null : done / judged.length,
    durationP50Ms: percentile(durations, 50),
    durationP95Ms: percentile(durations, 95),
    firstToolP50Ms: percentile(firstTools, 50),
    firstToolP95Ms: percentile(firstTools, 95),
    toolErrorRate: toolCalls.calls === 0 ? null : Math.min(1, toolCalls.errors / toolCalls.calls),
    recovering: runs.filter((run) => run.recovery?.state === "recovering" && run.endedAt === undefined).length,
    recoveries24h: dispatched.reduce((sum, run) => sum + (run.recovery?.count ?? 0), 0)
  };
}

/** Nearest-rank percentile (0 < p <= 100) of `values`; null when empty. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1]!;
}

export { EMPTY_METRICS } from "../shared/empty-metrics";
