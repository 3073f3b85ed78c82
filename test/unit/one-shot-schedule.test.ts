/**
 * OneShotSchedules' rules over a schedule that keeps rows as the agents SDK
 * does (a row per `schedule()`, times in whole seconds, rounded down): one
 * pending job per callback however often and however concurrently it is
 * asked for, at the earliest time asked for; the job firing (due before the
 * run started) never counts as pending, and a run that ends settles it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Schedule } from "agents";
import { OneShotSchedules, type ScheduleHost } from "../../src/run/one-shot-schedule";

type Row = { id: string; callback: string; time: number };

/** The SDK's schedule, in memory; every call yields to the event loop first, so concurrent requests interleave. */
function sdkLike() {
  const rows = new Map<string, Row>();
  let next = 0;
  const turn = () => new Promise((resolve) => setTimeout(resolve, 0));
  const host: ScheduleHost<"tick" | "tock"> = {
    async listSchedules() {
      await turn();
      return [...rows.values()].map((row) => ({ ...row, payload: undefined, type: "scheduled" }) as Schedule<unknown>);
    },
    async schedule(when, callback) {
      await turn();
      const row = { id: `job-${++next}`, callback, time: Math.floor(when.getTime() / 1000) };
      rows.set(row.id, row);
      return { ...row, payload: undefined, type: "scheduled" } as Schedule<unknown>;
    },
    async cancelSchedule(id) {
      await turn();
      return rows.delete(id);
    }
  };
  /** Add a row as the old code did, beside the helper (a pile a few runs old). */
  const push = (callback: string, atMs: number) => void rows.set(`old-${++next}`, { id: `old-${next}`, callback, time: Math.floor(atMs / 1000) });
  const times = (callback: string) => [...rows.values()].filter((row) => row.callback === callback).map((row) => row.time * 1000);
  return { host, rows, push, times };
}

const NOW = Date.UTC(2026, 0, 5, 12, 0, 0);
const MINUTE = 60_000;

describe("OneShotSchedules", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps one job per callback for fifty concurrent requests, due at the earliest one asked for", async () => {
    const { host, times } = sdkLike();
    const shots = new OneShotSchedules(host);
    const offsets = Array.from({ length: 50 }, (_, i) => ((i * 37) % 50) * MINUTE + 1_500);
    await Promise.all(offsets.flatMap((offset) => [shots.request("tick", NOW + offset), shots.request("tock", NOW + offset + MINUTE)]));
    // Rounded up to the second: the SDK keeps whole seconds and never fires before the time asked for.
    expect(times("tick")).toEqual([NOW + 2_000]);
    expect(times("tock")).toEqual([NOW + MINUTE + 2_000]);
  });

  it("moves the job to an earlier time asked for later, and keeps it when a later time is asked for", async () => {
    const { host, rows, times } = sdkLike();
    const shots = new OneShotSchedules(host);
    await shots.request("tick", NOW + 10 * MINUTE);
    await shots.request("tick", NOW + 3 * MINUTE);
    expect(times("tick")).toEqual([NOW + 3 * MINUTE]);
    const [kept] = rows.keys();
    await shots.request("tick", NOW + 20 * MINUTE);
    expect(times("tick")).toEqual([NOW + 3 * MINUTE]);
    expect([...rows.keys()]).toEqual([kept]);
    // A time already past is due now: the next whole second.
    await shots.request("tick", NOW - MINUTE);
    expect(times("tick")).toEqual([NOW + 1_000]);
  });

  it("folds a pile the old code left into one job: the earliest, when it comes first", async () => {
    const { host, push, times } = sdkLike();
    for (let i = 0; i < 18; i++) push("tick", NOW + (30 + i) * 1_000);
    await new OneShotSchedules(host).request("tick", NOW + 5 * MINUTE);
    expect(times("tick")).toEqual([NOW + 30_000]);
    for (let i = 0; i < 18; i++) push("tock", NOW + (30 + i) * 1_000);
    await new OneShotSchedules(host).request("tock", NOW + 10_000);
    expect(times("tock")).toEqual([NOW + 10_000]);
  });

  it("counts the job firing for nothing: a run asking for its next call gets a new job, and its end cancels the firing one", async () => {
    const { host, push, times } = sdkLike();
    const shots = new OneShotSchedules(host);
    // Firing now (due a second ago), and one overdue behind it that a busy alarm has not reached: both before the run.
    push("tick", NOW - 1_000);
    push("tick", NOW - 500);
    vi.setSystemTime(NOW + 200);
    await shots.run("tick", async () => {
      await shots.request("tick", Date.now() + 5 * MINUTE);
      expect(times("tick")).toEqual([NOW - 1_000, NOW - 1_000, NOW + 5 * MINUTE + 1_000]);
    });
    // Settling waits behind the callback's earlier work: a later request (keeping the job) is after it.
    await shots.request("tick", NOW + 10 * MINUTE);
    expect(times("tick")).toEqual([NOW + 5 * MINUTE + 1_000]);
  });

  it("settles nothing after a failed run: what it was to answer fires again, then folds into one job", async () => {
    const { host, push, times } = sdkLike();
    const shots = new OneShotSchedules(host);
    push("tick", NOW - 1_000);
    await expect(
      shots.run("tick", async () => {
        await shots.request("tick", NOW + MINUTE);
        throw new Error("GitHub is down (test)");
      })
    ).rejects.toThrow("GitHub is down (test)");
    // The barrier request asks for later: it folds the two jobs into the earliest, the one the failed run left.
    await shots.request("tick", NOW + 10 * MINUTE);
    expect(times("tick")).toEqual([NOW - 1_000]);
  });

  it("counts a direct run's start like a scheduled one: a job due after it started still stands", async () => {
    const { host, times } = sdkLike();
    const shots = new OneShotSchedules(host);
    await shots.request("tick", NOW + 2_000);
    await shots.run("tick", async () => {
      // The job comes due while the run goes on: it fires after it, and the run's own request folds into it.
      vi.setSystemTime(NOW + 3_000);
      await shots.request("tick", Date.now() + MINUTE);
    });
    await shots.request("tick", NOW + 10 * MINUTE);
    expect(times("tick")).toEqual([NOW + 2_000]);
  });
});
