/**
 * MetricsCache: the 24 hours' metrics reused up to the age asked for, the
 * week's spend kept longer, both recomputed at an age of 0, and the time
 * reused metrics that missed a change expire.
 */
import { describe, expect, it } from "vitest";
import { EMPTY_METRICS } from "../../src/command-center/metrics";
import { MetricsCache, SPEND_MAX_AGE_MS } from "../../src/command-center/metrics-cache";

const { spendToday, spend7d, spendByRepo, costliestRuns, ...activity } = EMPTY_METRICS;

/** Each computation numbered: runs24h says which activity read, spendToday.usd which spend read. */
function counted() {
  const reads = { activity: 0, spend: 0 };
  const cache = new MetricsCache({
    activity: () => ({ ...activity, runs24h: ++reads.activity }),
    spend: () => ({ spendToday: { usd: ++reads.spend, complete: true }, spend7d, spendByRepo, costliestRuns })
  });
  return { cache, reads };
}

describe("MetricsCache", () => {
  it("reuses the metrics until they are maxAgeMs old, and recomputes them then", () => {
    const { cache, reads } = counted();
    expect(cache.at(1_000, 1_000).runs24h).toBe(1);
    expect(cache.at(1_999, 1_000).runs24h).toBe(1);
    expect(cache.at(2_000, 1_000).runs24h).toBe(2);
    expect(reads.activity).toBe(2);
  });

  it("recomputes when the clock went back past the kept metrics", () => {
    const { cache } = counted();
    cache.at(5_000, 1_000);
    expect(cache.at(4_999, 1_000).runs24h).toBe(2);
  });

  it("keeps the spend SPEND_MAX_AGE_MS across recomputed metrics", () => {
    const { cache, reads } = counted();
    cache.at(0, 1_000);
    cache.at(1_000, 1_000);
    expect(cache.at(SPEND_MAX_AGE_MS - 1, 1_000).spendToday.usd).toBe(1);
    expect(reads).toEqual({ activity: 3, spend: 1 });
    expect(cache.at(SPEND_MAX_AGE_MS + 1_000, 1_000).spendToday.usd).toBe(2);
  });

  it("recomputes both at a maximum age of 0", () => {
    const { cache, reads } = counted();
    cache.at(0, 1_000);
    const fresh = cache.at(1, 0);
    expect(fresh.runs24h).toBe(2);
    expect(fresh.spendToday.usd).toBe(2);
    expect(reads).toEqual({ activity: 2, spend: 2 });
  });

  it("says when reused metrics that missed a change expire, and nothing once they are fresh", () => {
    const { cache } = counted();
    cache.changed();
    expect(cache.staleAt(1_000)).toBeUndefined(); // none kept yet: nothing is reused
    cache.at(10_000, 1_000);
    expect(cache.staleAt(1_000)).toBeUndefined();
    cache.changed();
    expect(cache.staleAt(1_000)).toBe(11_000);
    cache.at(10_500, 1_000); // reused: still missing the change
    expect(cache.staleAt(1_000)).toBe(11_000);
    cache.at(11_000, 1_000);
    expect(cache.staleAt(1_000)).toBeUndefined();
  });
});
