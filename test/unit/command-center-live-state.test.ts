/**
 * LiveState, the command center's broadcasts: at most one per
 * BROADCAST_INTERVAL_MS (the first change at once, a burst together), a due
 * one at once even with a timer pending, reused metrics that missed a change
 * followed by fresh ones, `refresh` at once with fresh metrics, a failed
 * send logged, and each flush pruning first and naming the next quiet time.
 * Fake timers: the throttle goes by real time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BROADCAST_INTERVAL_MS, LiveState } from "../../src/command-center/live-state";
import { EMPTY_METRICS } from "../../src/command-center/metrics";
import { METRICS_MAX_AGE_MS, MetricsCache } from "../../src/command-center/metrics-cache";
import { recordEvent } from "../../src/command-center/registry";
import type { CommandCenterState } from "../../src/shared/command-center";
import { MemoryRegistryStore } from "../command-center/memory-store";
import { dispatched, STALE, T0 } from "../command-center/registry-events";

const { spendToday, spend7d, spendByRepo, costliestRuns, ...activity } = EMPTY_METRICS;

function live(options: { send?: (state: CommandCenterState) => void } = {}) {
  const store = new MemoryRegistryStore();
  let reads = 0;
  const metrics = new MetricsCache({
    activity: () => ({ ...activity, runs24h: ++reads }),
    spend: () => ({ spendToday, spend7d, spendByRepo, costliestRuns })
  });
  const sent: CommandCenterState[] = [];
  const upkeep: number[] = [];
  const wakes: Array<number | undefined> = [];
  const logged: Array<{ event: string; fields?: Record<string, unknown> }> = [];
  const state = new LiveState({
    store: () => store,
    metrics,
    staleRunMs: () => STALE,
    clock: () => Date.now(),
    upkeep: (now) => void upkeep.push(now),
    send: options.send ?? ((next) => void sent.push(next)),
    wakeAt: (at) => void wakes.push(at),
    log: (event, fields) => void logged.push({ event, fields })
  });
  return { state, store, sent, upkeep, wakes, logged };
}

describe("LiveState", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends the first change at once and a burst within the interval together, once it has passed", () => {
    const { state, sent } = live();
    state.changed();
    expect(sent).toHaveLength(1);
    state.changed();
    state.changed();
    state.changed();
    vi.advanceTimersByTime(BROADCAST_INTERVAL_MS - 1);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.updatedAt).toBe(T0 + BROADCAST_INTERVAL_MS);
  });

  it("sends a due broadcast at once though its timer has not run (a flooded thread runs timers late)", () => {
    const { state, sent } = live();
    state.changed();
    state.changed(); // a timer now waits
    vi.setSystemTime(T0 + BROADCAST_INTERVAL_MS); // time passes, the timer does not run
    state.changed();
    expect(sent.map((next) => next.updatedAt)).toEqual([T0, T0 + BROADCAST_INTERVAL_MS]);
  });

  it("follows a broadcast whose reused metrics missed a change with fresh ones when they expire, then stops", () => {
    const { state, sent } = live();
    state.changed();
    vi.advanceTimersByTime(BROADCAST_INTERVAL_MS + 100);
    state.changed();
    expect(sent.map((next) => next.metrics.runs24h)).toEqual([1, 1]);
    vi.advanceTimersByTime(METRICS_MAX_AGE_MS);
    expect(sent.map((next) => [next.updatedAt, next.metrics.runs24h])).toEqual([
      [T0, 1],
      [T0 + BROADCAST_INTERVAL_MS + 100, 1],
      [T0 + METRICS_MAX_AGE_MS, 2]
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("refreshes at once with fresh metrics, whatever the throttle says", () => {
    const { state, sent } = live();
    state.changed();
    const refreshed = state.refresh();
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(refreshed);
    expect(refreshed.metrics.runs24h).toBe(2);
  });

  it("logs a broadcast that failed instead of throwing it at the change", () => {
    const { state, logged } = live({
      send: () => {
        throw new Error("socket gone");
      }
    });
    expect(() => state.changed()).not.toThrow();
    expect(logged).toEqual([{ event: "broadcast:failed", fields: { error: "socket gone" } }]);
  });

  it("prunes before reading, lists the threads, and names when the next active thread goes quiet", () => {
    const { state, store, sent, upkeep, wakes } = live();
    state.changed();
    expect(wakes).toEqual([undefined]);
    recordEvent(store, dispatched({ at: T0 }));
    recordEvent(store, dispatched({ session: "acme-widgets-8", issueNumber: 8, at: T0 - 5 }));
    vi.advanceTimersByTime(BROADCAST_INTERVAL_MS);
    state.changed();
    expect(upkeep).toEqual([T0, T0 + BROADCAST_INTERVAL_MS]);
    expect(sent[1]?.recent.map((thread) => thread.session)).toEqual(["acme-widgets-7", "acme-widgets-8"]);
    expect(sent[1]?.total).toBe(2);
    expect(wakes[1]).toBe(T0 - 5 + STALE + 1);
  });
});
