/**
 * The registry's lifecycle events: a run dispatched, started, its tools and
 * its end, arriving late, repeated or out of order, and what the thread and
 * its runs keep over several runs. Plain, over the in-memory store.
 */
import { describe, expect, it } from "vitest";
import { recordEvent } from "../../src/command-center/registry";
import type { CommandCenterEvent } from "../../src/shared/command-center-events";
import { threadDetailSchema, threadSummarySchema } from "../../src/shared/command-center";
import { threadDetail } from "../../src/command-center/snapshot";
import { MemoryRegistryStore } from "../command-center/memory-store";
import { dispatched, ended, started, STALE, T0, thread, tool } from "../command-center/registry-events";

describe("thread registry: a run's lifecycle", () => {
  it("records a whole run: dispatch, turn start, tools, end", () => {
    const store = new MemoryRegistryStore();
    expect(recordEvent(store, dispatched())).toEqual({ applied: true });
    expect(thread(store)).toMatchObject({ status: "running", runCount: 1, toolCalls: 0, startedAt: T0, lastActivityAt: T0 });
    recordEvent(store, started(T0 + 100));
    recordEvent(store, tool(T0 + 1_500, true, "c1"));
    recordEvent(store, tool(T0 + 2_000, false, "c2"));
    recordEvent(store, ended(T0 + 9_000, "done", { tokens: { input: 1000, output: 200 } }));

    const summary = thread(store, T0 + 10_000);
    expect(summary).toEqual({
      session: "acme-widgets-7",
      repo: "acme/widgets",
      issueNumber: 7,
      issueTitle: "Widgets wobble",
      requestedBy: { login: "octocat", avatarUrl: "https://avatars.example/octocat" },
      instructionSummary: "reproduce this issue",
      status: "done",
      stale: false,
      runCount: 1,
      toolCalls: 2,
      toolErrors: 1,
      submissionId: "s1",
      startedAt: T0,
      turnStartedAt: T0 + 100,
      lastActivityAt: T0 + 9_000,
      firstToolMs: 1_500,
      durationMs: 9_000,
      tokens: { input: 1000, output: 200 },
      // The end reported tokens but no cost: unknown, a floor of $0.
      cost: { usd: 0, complete: false }
    });
    expect(threadSummarySchema.parse(summary)).toEqual(summary);
  });

  it("records an error with its message and clears it when a later run ends done", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 50, "error", { error: "model failed: 500" }));
    expect(thread(store)).toMatchObject({ status: "error", lastError: "model failed: 500", durationMs: 50 });
    expect(thread(store)?.failures).toBe(1);

    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 1_000, instruction: "open a PR fixing this" }));
    // The new run runs with the last error still shown as context.
    expect(thread(store)).toMatchObject({ status: "running", runCount: 2, submissionId: "s2", lastError: "model failed: 500", instructionSummary: "open a PR fixing this" });
    expect(thread(store)?.durationMs).toBeUndefined();
    recordEvent(store, ended(T0 + 3_000, "done", {}, "s2"));
    const summary = thread(store)!;
    expect(summary).toMatchObject({ status: "done", durationMs: 2_000 });
    expect(summary.lastError).toBeUndefined();
  });

  it("records a cancelled run as cancelled, not as a failure, with its duration and tokens", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 10, true, "a"));
    expect(recordEvent(store, ended(T0 + 400, "cancelled", { tokens: { input: 7, output: 3 } }))).toEqual({ applied: true });
    const summary = thread(store, T0 + 10 * STALE)!;
    expect(summary).toMatchObject({ status: "cancelled", stale: false, durationMs: 400, tokens: { input: 7, output: 3 }, toolCalls: 1 });
    expect(summary.lastError).toBeUndefined();
    expect(threadSummarySchema.parse(summary)).toEqual(summary);
    expect(store.getRun("acme-widgets-7", "s1")).toMatchObject({ status: "cancelled", endedAt: T0 + 400 });
    expect(store.getRun("acme-widgets-7", "s1")?.error).toBeUndefined();
  });

  it("a cancel sets no error, even when the event carries one, and clears an earlier run's", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 50, "error", { error: "model failed: 500" }));
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 1_000 }));
    expect(thread(store)?.lastError).toBe("model failed: 500");
    recordEvent(store, ended(T0 + 1_200, "cancelled", { error: "cancelled: stopped by @alice" }, "s2"));
    const summary = thread(store)!;
    expect(summary).toMatchObject({ status: "cancelled", runCount: 2, durationMs: 200 });
    expect(summary.lastError).toBeUndefined();
    expect(store.getRun("acme-widgets-7", "s2")?.error).toBeUndefined();
  });

  it("an error without a message still says it failed", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 5, "error"));
    expect(thread(store)?.lastError).toBe("failed");
  });

  it("keeps totals across runs and timings of the latest run", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 10, true, "a"));
    recordEvent(store, ended(T0 + 20, "done", { tokens: { input: 10, output: 1 } }));
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 100 }));
    recordEvent(store, tool(T0 + 400, false, "b", "s2"));
    recordEvent(store, ended(T0 + 500, "error", { error: "x", tokens: { input: 5, output: 2 } }, "s2"));
    expect(thread(store)).toMatchObject({
      runCount: 2,
      toolCalls: 2,
      toolErrors: 1,
      tokens: { input: 15, output: 3 },
      firstToolMs: 300,
      durationMs: 400,
      startedAt: T0 + 100
    });
  });

  it("redacts token-shaped text and cuts long errors and titles", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched({ issueTitle: "t".repeat(5_000), instruction: "use ghs_abcdefghijklmnopqrstuvwxyz0123 please" }));
    recordEvent(store, ended(T0 + 1, "error", { error: `bad token ghs_abcdefghijklmnopqrstuvwxyz0123 ${"e".repeat(10_000)}` }));
    const summary = thread(store)!;
    expect(summary.instructionSummary).toBe("use [redacted] please");
    expect(summary.issueTitle!.length).toBeLessThanOrEqual(1_024);
    expect(summary.lastError!.length).toBeLessThanOrEqual(2_000);
    expect(summary.lastError).toMatch(/^bad token \[redacted\] e+…$/);
  });
});

describe("thread registry: late, repeated and out-of-order events", () => {
  it("counts each event once however often it arrives", () => {
    const store = new MemoryRegistryStore();
    const events = [dispatched(), started(T0 + 1), tool(T0 + 2, true, "c1"), tool(T0 + 3, false, "c2"), ended(T0 + 4, "error", { error: "boom", tokens: { input: 3, output: 4 } })];
    for (const event of events) recordEvent(store, event);
    const once = thread(store);
    for (const event of events) expect(recordEvent(store, event)).toEqual({ applied: false, reason: "duplicate" });
    expect(thread(store)).toEqual(once);
    expect(once).toMatchObject({ runCount: 1, toolCalls: 2, toolErrors: 1, tokens: { input: 3, output: 4 } });
  });

  it("dedupes tool reports without an id by tool, time and outcome", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 5));
    expect(recordEvent(store, tool(T0 + 5))).toEqual({ applied: false, reason: "duplicate" });
    recordEvent(store, tool(T0 + 6));
    expect(thread(store)?.toolCalls).toBe(2);
  });

  it("a run's end is final: a later or repeated end does not change it", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 10, "done"));
    expect(recordEvent(store, ended(T0 + 20, "error", { error: "late" }))).toEqual({ applied: false, reason: "duplicate" });
    expect(thread(store)).toMatchObject({ status: "done", durationMs: 10 });
  });

  it("a turn start or tool call arriving after the end does not reopen the run", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 10, "done"));
    recordEvent(store, tool(T0 + 5, true, "late"));
    recordEvent(store, started(T0 + 1));
    expect(thread(store)).toMatchObject({ status: "done", toolCalls: 1, firstToolMs: 5, turnStartedAt: T0 + 1, lastActivityAt: T0 + 10 });
  });

  it("takes over events that arrived before their dispatch", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 10, "done"));
    // Run s2's events overtake its dispatch report.
    expect(recordEvent(store, started(T0 + 200, "s2"))).toEqual({ applied: false, reason: "not_current" });
    recordEvent(store, tool(T0 + 300, false, "x", "s2"));
    recordEvent(store, ended(T0 + 900, "error", { error: "late boom" }, "s2"));
    expect(thread(store)).toMatchObject({ submissionId: "s1", status: "done" });

    expect(recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 100 }))).toEqual({ applied: true });
    expect(thread(store, T0 + 1_000)).toMatchObject({
      submissionId: "s2",
      status: "error",
      lastError: "late boom",
      runCount: 2,
      toolCalls: 1,
      toolErrors: 1,
      turnStartedAt: T0 + 200,
      firstToolMs: 200,
      durationMs: 800,
      lastActivityAt: T0 + 900
    });
  });

  it("takes over a cancel that arrived before its dispatch", () => {
    const store = new MemoryRegistryStore();
    expect(recordEvent(store, ended(T0 + 300, "cancelled"))).toEqual({ applied: false, reason: "not_current" });
    expect(recordEvent(store, dispatched())).toEqual({ applied: true });
    expect(thread(store)).toMatchObject({ status: "cancelled", durationMs: 300, lastActivityAt: T0 + 300 });
    expect(recordEvent(store, ended(T0 + 400, "error", { error: "late" }))).toEqual({ applied: false, reason: "duplicate" });
    expect(thread(store)?.lastError).toBeUndefined();
  });

  it("ignores events of a run that is no longer the current one", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 100 }));
    expect(recordEvent(store, tool(T0 + 150, true, "old", "s1"))).toEqual({ applied: false, reason: "not_current" });
    expect(recordEvent(store, ended(T0 + 200, "error", { error: "old" }, "s1"))).toEqual({ applied: false, reason: "not_current" });
    expect(thread(store)).toMatchObject({ submissionId: "s2", status: "running", toolCalls: 0, runCount: 2, lastActivityAt: T0 + 100 });
  });

  it("ignores an older run's dispatch arriving after a newer one's", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 100 }));
    expect(recordEvent(store, dispatched({ submissionId: "s1", at: T0 }))).toEqual({ applied: false, reason: "not_current" });
    expect(thread(store)).toMatchObject({ submissionId: "s2", runCount: 1 });
    // …but the older run still counts for the metrics.
    expect(store.getRun("acme-widgets-7", "s1")?.dispatchedAt).toBe(T0);
  });

  it("events for an unknown session change no thread", () => {
    const store = new MemoryRegistryStore();
    expect(recordEvent(store, tool(T0, true, "c"))).toEqual({ applied: false, reason: "not_current" });
    expect(store.countThreads()).toBe(0);
  });

  it("rebuilds the current run's record after retention pruned it", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 10, true, "a"));
    store.prune(T0 + 1_000_000, T0 + 1_000_000);
    recordEvent(store, tool(T0 + 2_000_000, true, "b"));
    recordEvent(store, ended(T0 + 2_000_100, "done"));
    expect(thread(store)).toMatchObject({ toolCalls: 2, firstToolMs: 10, status: "done", durationMs: 2_000_100 });
    expect(store.getRun("acme-widgets-7", "s1")).toMatchObject({ dispatchedAt: T0, firstToolAt: T0 + 10, endedAt: T0 + 2_000_100 });
  });
});

describe("thread registry: cost, operators and repeated failures", () => {
  const endedWith = (at: number, status: "done" | "error", submissionId: string, cost?: { usd: number; complete: boolean }): CommandCenterEvent => ({
    type: "turn-ended",
    session: "acme-widgets-7",
    submissionId,
    status,
    ...(status === "error" ? { error: `failed at ${at}` } : {}),
    ...(cost ? { cost } : {}),
    at
  });

  it("sums the runs' cost, names who continued the current run, and counts failures in a row", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, endedWith(T0 + 100, "error", "s1", { usd: 0.25, complete: true }));
    expect(thread(store)).toMatchObject({ status: "error", failures: 1, cost: { usd: 0.25, complete: true } });

    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 200, continuedBy: "ops@example.com" }));
    // While the continuation runs, the last ended run's failure count stays.
    expect(thread(store)).toMatchObject({ status: "running", continuedBy: "ops@example.com", failures: 1 });
    recordEvent(store, endedWith(T0 + 300, "error", "s2", { usd: 0.5, complete: true }));
    expect(thread(store)).toMatchObject({ status: "error", failures: 2, lastError: `failed at ${T0 + 300}`, cost: { usd: 0.75, complete: true } });

    recordEvent(store, dispatched({ submissionId: "s3", at: T0 + 400 }));
    expect(thread(store)?.continuedBy).toBeUndefined();
    recordEvent(store, endedWith(T0 + 500, "done", "s3"));
    const done = thread(store);
    expect(done?.failures).toBeUndefined();
    // s3 reported no cost: the total becomes a floor.
    expect(done?.cost).toEqual({ usd: 0.75, complete: false });
  });

  it("lists a thread's runs newest first for its page, and knows no unknown session", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 10, true, "a"));
    recordEvent(store, endedWith(T0 + 100, "error", "s1", { usd: 0.25, complete: true }));
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 200, continuedBy: "local operator" }));
    recordEvent(store, started(T0 + 210, "s2"));
    const detail = threadDetail(store, "acme-widgets-7", T0 + 300, STALE);
    expect(detail?.thread.status).toBe("running");
    expect(detail?.runs).toEqual([
      { submissionId: "s2", status: "running", dispatchedAt: T0 + 200, turnStartedAt: T0 + 210, toolCalls: 0, continuedBy: "local operator" },
      { submissionId: "s1", status: "error", dispatchedAt: T0, endedAt: T0 + 100, error: `failed at ${T0 + 100}`, cost: { usd: 0.25, complete: true }, toolCalls: 1 }
    ]);
    expect(threadDetailSchema.parse(detail)).toEqual(detail);
    expect(threadDetail(store, "acme-widgets-8", T0, STALE)).toBeNull();
  });

  it("gives each run the outcome it reported and the page it published", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    const page = "https://agent-think.example/repro/0123456789abcdef0123456789abcdef/";
    recordEvent(store, { type: "reproduction", session: "acme-widgets-7", submissionId: "s1", url: page, at: T0 + 50 });
    recordEvent(store, { type: "turn-ended", session: "acme-widgets-7", submissionId: "s1", status: "done", outcome: "reproduced", at: T0 + 100 });
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 200 }));
    recordEvent(store, endedWith(T0 + 300, "done", "s2"));
    const detail = threadDetail(store, "acme-widgets-7", T0 + 400, STALE);
    expect(detail?.runs.map((run) => [run.submissionId, run.outcome, run.reproductionUrl])).toEqual([
      ["s2", undefined, undefined],
      ["s1", "reproduced", page]
    ]);
    expect(threadDetailSchema.parse(detail)).toEqual(detail);
  });
});
