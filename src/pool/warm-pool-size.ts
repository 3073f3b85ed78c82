/**
 * `WARM_POOL_SIZE`: how many unassigned containers the WarmPool keeps warm.
 * 1 (the default) keeps one, so a run's first container command finds it
 * booted; 0 keeps none: the cron primes nothing, and a run starts its
 * container on demand, as it does when the pool is empty. Other values are
 * refused (docs/costs.md says why no more than one). Used by
 * src/warm-pool.ts and src/health/costs.ts. Pure.
 */

export const WARM_POOL_SIZES = [0, 1] as const;
export type WarmPoolSize = (typeof WARM_POOL_SIZES)[number];
export const DEFAULT_WARM_POOL_SIZE: WarmPoolSize = 1;

export type WarmPoolSizeSetting = { ok: true; size: WarmPoolSize } | { ok: false; error: string };

/** Blank is the default; "0" or "1" is that size; anything else an error naming the variable. */
export function parseWarmPoolSize(raw: string | undefined): WarmPoolSizeSetting {
  const text = (raw ?? "").trim();
  if (text === "") return { ok: true, size: DEFAULT_WARM_POOL_SIZE };
  if (text === "0" || text === "1") return { ok: true, size: Number(text) as WarmPoolSize };
  return {
    ok: false,
    error: `WARM_POOL_SIZE must be 0 (no warm container) or 1 (one kept warm); got ${JSON.stringify(text)}`
  };
}
