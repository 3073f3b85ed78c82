import { describe, expect, it } from "vitest";
import { computeMetrics, EMPTY_METRICS, METRICS_WINDOW_MS, percentile } from "../../src/command-center/metrics";
import { recordEvent } from "../../src/command-center/registry";
import { metricsOf } from "../../src/command-center/snapshot";
import type { RunRecord } from "../../src/command-center/store";
import { metricsSchema } from "../../src/shared/command-center";
import { reporterSpendView, spendView } from "../../src/ui/view-models/spend";
import { readMetrics } from "../../src/ui/view-models/wire";
import { MemoryRegistryStore } from "../command-center/memory-store";

const NOW = 1_700_000_000_000;
const DAY = METRICS_WINDOW_MS;

/** EMPTY_METRICS without the spend, which metricsOf adds (snapshot.ts). */
const { spendToday: _today, spend7d: _week, spendByRepo: _byRepo, costliestRuns: _costliest, ...EMPTY_ACTIVITY } = EMPTY_METRICS;
const SPEND = { spendToday: EMPTY_METRICS.spendToday, spend7d: EMPTY_METRICS.spend7d, spendByRepo: [], costliestRuns: [] };

const run = (fields: Partial<RunRecord>): RunRecord => ({
  session: "s",
  submissionId: crypto.randomUUID(),
  toolCalls: 0,
  toolErrors: 0,
  touchedAt: NOW,
  ...fields
});

describe("percentile (nearest rank)", () => {
  it("picks the smallest value with at least p% at or below it", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 1..100, unsorted
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 95)).toBe(4);
    expect(percentile([], 50)).toBeNull();
  });
});

describe("computeMetrics", () => {
  it("is empty with no runs", () => {
    expect(computeMetrics([], { calls: 0, errors: 0 }, NOW)).toEqual(EMPTY_ACTIVITY);
  });

  it("follows the documented definitions over the last 24 hours", () => {
    const runs = [
      // dispatched and ended in the window
      run({ dispatchedAt: NOW - 10_000, firstToolAt: NOW - 9_000, endedAt: NOW - 5_000, status: "done" }),
      run({ dispatchedAt: NOW - 20_000, firstToolAt: NOW - 17_000, endedAt: NOW - 10_000, status: "error" }),
      // running, no tool call yet
      run({ dispatchedAt: NOW - 1_000 }),
      // dispatched before the window, ended inside it: counts for success and duration, not runs24h
      run({ dispatchedAt: NOW - DAY - 60_000, firstToolAt: NOW - DAY - 59_000, endedAt: NOW - 60_000, status: "done" }),
      // wholly before the window
      run({ dispatchedAt: NOW - DAY - 10, endedAt: NOW - DAY - 5, status: "error" }),
      // ended without a known dispatch: success only
      run({ endedAt: NOW - 100, status: "done" })
    ];
    const metrics = computeMetrics(runs, { calls: 8, errors: 2 }, NOW);
    expect(metrics).toEqual({
      runs24h: 3,
      successRate: 3 / 4,
      durationP50Ms: 10_000,
      durationP95Ms: DAY,
      firstToolP50Ms: 1_000,
      firstToolP95Ms: 3_000,
      toolErrorRate: 0.25,
      recovering: 0,
      recoveries24h: 0
    });
    expect(metricsSchema.parse({ ...metrics, ...SPEND })).toEqual({ ...metrics, ...SPEND });
  });

  it("leaves cancelled runs out of the success rate but counts their runs and durations", () => {
    const runs = [
      run({ dispatchedAt: NOW - 10_000, endedAt: NOW - 9_000, status: "done" }),
      run({ dispatchedAt: NOW - 10_000, endedAt: NOW - 7_000, status: "error" }),
      run({ dispatchedAt: NOW - 10_000, endedAt: NOW - 5_000, status: "cancelled" }),
      run({ dispatchedAt: NOW - 10_000, endedAt: NOW - 4_000, status: "cancelled" })
    ];
    expect(computeMetrics(runs, { calls: 0, errors: 0 }, NOW)).toMatchObject({
      runs24h: 4,
      successRate: 1 / 2,
      durationP50Ms: 3_000,
      durationP95Ms: 6_000
    });
  });

  it("has no success rate when every run that ended was cancelled", () => {
    const runs = [run({ dispatchedAt: NOW - 10_000, endedAt: NOW - 5_000, status: "cancelled" })];
    expect(computeMetrics(runs, { calls: 0, errors: 0 }, NOW)).toMatchObject({ runs24h: 1, successRate: null, durationP50Ms: 5_000 });
  });
});

describe("metricsOf a registry", () => {
  it("counts each tool call once, in the window it was made", () => {
    const store = new MemoryRegistryStore();
    const base = { session: "a-b-1", submissionId: "s1" };
    recordEvent(store, { type: "dispatched", ...base, repo: "a/b", issueNumber: 1, instruction: "x", at: NOW - 5_000 });
    recordEvent(store, { type: "tool", ...base, tool: "bash", ok: true, toolCallId: "1", at: NOW - 4_000 });
    recordEvent(store, { type: "tool", ...base, tool: "bash", ok: false, toolCallId: "2", at: NOW - 3_000 });
    recordEvent(store, { type: "tool", ...base, tool: "bash", ok: false, toolCallId: "2", at: NOW - 3_000 });
    recordEvent(store, { type: "turn-ended", ...base, status: "done", at: NOW - 1_000 });
    expect(metricsOf(store, NOW)).toEqual({
      runs24h: 1,
      successRate: 1,
      durationP50Ms: 4_000,
      durationP95Ms: 4_000,
      firstToolP50Ms: 1_000,
      firstToolP95Ms: 1_000,
      toolErrorRate: 0.5,
      recovering: 0,
      recoveries24h: 0,
      // The run reported no cost: its spend is unknown, a floor of $0, never a plain zero.
      spendToday: { usd: 0, complete: false },
      spend7d: { usd: 0, complete: false },
      spendByRepo: [{ repo: "a/b", runs: 1, cost: { usd: 0, complete: false } }],
      costliestRuns: []
    });
    // A day later the activity is out of the window; the week's spend is not.
    expect(metricsOf(store, NOW + DAY)).toEqual({
      ...EMPTY_METRICS,
      spend7d: { usd: 0, complete: false },
      spendByRepo: [{ repo: "a/b", runs: 1, cost: { usd: 0, complete: false } }]
    });
    expect(metricsOf(store, NOW + 8 * DAY)).toEqual(EMPTY_METRICS);
  });

  it("sums spend today, over 7 days, per repository, and names the costliest runs", () => {
    const store = new MemoryRegistryStore();
    const midnight = new Date(NOW);
    midnight.setUTCHours(0, 0, 0, 0);
    const finish = (session: string, repo: string, at: number, cost?: { usd: number; complete: boolean }) => {
      const base = { session, submissionId: `${session}-${at}` };
      recordEvent(store, { type: "dispatched", ...base, repo, issueNumber: 1, instruction: "x", at: at - 1_000 });
      recordEvent(store, { type: "turn-ended", ...base, status: "done", ...(cost ? { cost } : {}), at });
    };
    finish("a-b-1", "a/b", midnight.getTime() + 60_000, { usd: 0.5, complete: true });
    finish("a-b-2", "a/b", midnight.getTime() - 60_000, { usd: 2, complete: true });
    finish("c-d-1", "c/d", NOW - 3 * DAY, { usd: 1.25, complete: true });
    finish("c-d-2", "c/d", NOW - 30 * DAY, { usd: 99, complete: true });
    const spend = metricsOf(store, NOW);
    expect(spend.spendToday).toEqual({ usd: 0.5, complete: true });
    expect(spend.spend7d).toEqual({ usd: 3.75, complete: true });
    expect(spend.spendByRepo).toEqual([
      { repo: "a/b", runs: 2, cost: { usd: 2.5, complete: true } },
      { repo: "c/d", runs: 1, cost: { usd: 1.25, complete: true } }
    ]);
    expect(spend.costliestRuns.map((entry) => [entry.session, entry.cost.usd])).toEqual([
      ["a-b-2", 2],
      ["c-d-1", 1.25],
      ["a-b-1", 0.5]
    ]);
    // One run that reported no cost makes the week a floor.
    finish("e-f-1", "e/f", NOW - 1_000);
    expect(metricsOf(store, NOW).spend7d).toEqual({ usd: 3.75, complete: false });
  });

  it("reads a cancelled run from the registry as neither success nor failure", () => {
    const store = new MemoryRegistryStore();
    for (const [i, status] of (["done", "error", "cancelled"] as const).entries()) {
      const base = { session: `a-b-${i + 1}`, submissionId: "s1" };
      recordEvent(store, { type: "dispatched", ...base, repo: "a/b", issueNumber: i + 1, instruction: "x", at: NOW - 10_000 });
      recordEvent(store, { type: "turn-ended", ...base, status, at: NOW - 10_000 + 1_000 * (i + 1) });
    }
    expect(metricsOf(store, NOW)).toMatchObject({ runs24h: 3, successRate: 0.5, durationP50Ms: 2_000, durationP95Ms: 3_000 });
  });
});

describe("reporter-tier runs and their spend, apart", () => {
  const midnight = (() => {
    const at = new Date(NOW);
    at.setUTCHours(0, 0, 0, 0);
    return at.getTime();
  })();
  let n = 0;
  const finish = (store: MemoryRegistryStore, repo: string, at: number, usd: number | undefined, tier?: "reporter") => {
    n++;
    const base = { session: `${repo.replace("/", "-")}-${n}`, submissionId: `sub-${n}` };
    recordEvent(store, { type: "dispatched", ...base, repo, issueNumber: n, instruction: "reproduce this issue", ...(tier ? { tier } : {}), at: at - 1_000 });
    recordEvent(store, { type: "turn-ended", ...base, status: "done", ...(usd === undefined ? {} : { cost: { usd, complete: true } }), at });
  };

  it("sums today's reporter runs per repository, maintainers' runs and yesterday's left out, and in the whole day's spend too", () => {
    const store = new MemoryRegistryStore();
    finish(store, "Acme/Widgets", midnight + 60_000, 0.75, "reporter");
    finish(store, "acme/widgets", midnight + 120_000, 0.25, "reporter");
    finish(store, "c/d", midnight + 60_000, 2, "reporter");
    finish(store, "acme/widgets", midnight + 60_000, 10);
    finish(store, "acme/widgets", midnight - 60_000, 3, "reporter");
    const metrics = metricsOf(store, NOW);
    expect(metrics.reporterSpendToday).toEqual([
      { repo: "c/d", runs: 1, cost: { usd: 2, complete: true } },
      { repo: "acme/widgets", runs: 2, cost: { usd: 1, complete: true } }
    ]);
    expect(metrics.spendToday).toEqual({ usd: 13, complete: true });
    expect(metricsSchema.parse(metrics)).toEqual(metrics);
    // A reporter run with no reported cost makes its repository's figure a floor.
    finish(store, "c/d", midnight + 180_000, undefined, "reporter");
    expect(metricsOf(store, NOW).reporterSpendToday?.[0]).toEqual({ repo: "c/d", runs: 2, cost: { usd: 2, complete: false } });
    // None before a reporter run ended today.
    expect(metricsOf(store, NOW + DAY + 3_600_000).reporterSpendToday).toBeUndefined();
  });

  it("reaches the dashboard as its own list: read off the wire, rows that do not read dropped, shown per repository", () => {
    const store = new MemoryRegistryStore();
    finish(store, "acme/widgets", midnight + 60_000, 0.5, "reporter");
    finish(store, "acme/widgets", midnight + 90_000, 4);
    const wire = JSON.parse(JSON.stringify(metricsOf(store, NOW))) as Record<string, unknown>;
    const read = readMetrics({ ...wire, reporterSpendToday: [...(wire.reporterSpendToday as unknown[]), { repo: "x/y", runs: -1, cost: { usd: 1, complete: true } }] });
    expect(read?.reporterSpendToday).toEqual([{ repo: "acme/widgets", runs: 1, cost: { usd: 0.5, complete: true } }]);
    expect(reporterSpendView(read)).toEqual([{ repo: "acme/widgets", runs: "1 run", cost: { text: "$0.50", kind: "complete" } }]);
    // The 7 days per repository still count the reporter run with the maintainer's.
    expect(spendView(read, NOW).byRepo).toEqual([{ repo: "acme/widgets", runs: "2 runs", cost: { text: "$4.50", kind: "complete" } }]);
    // A server older than the field, or a day without reporter runs: no list.
    const { reporterSpendToday: _none, ...older } = wire;
    expect(readMetrics(older)).not.toHaveProperty("reporterSpendToday");
    expect(reporterSpendView(readMetrics(older))).toEqual([]);
    expect(reporterSpendView(null)).toEqual([]);
  });
});

