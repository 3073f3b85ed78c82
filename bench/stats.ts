/**
 * Latency summaries for the bench: nearest-rank percentiles, mean, and a
 * ratio that reads the same in the table and the JSON; and the two sides
 * every comparison has. Pure.
 */
/** Our path, or the baseline measured beside it in the same run. */
export type Side = "ours" | "bare";

export type Summary = { n: number; p50: number; p99: number; mean: number; min: number; max: number };

/** Nearest-rank percentile of an ascending list (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1]!;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / (sorted.length || Number.NaN);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean,
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN
  };
}

export function ratio(ours: number, bare: number): number {
  return bare > 0 ? ours / bare : Number.NaN;
}
