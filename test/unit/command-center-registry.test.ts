import { describe, expect, it } from "vitest";
import {
  claimThread,
  isClaimable,
  isStale,
  parseStaleRunMs,
  recordEvent,
  releaseClaim,
  toSummary
} from "../../src/command-center/registry";
import { settleQuiet } from "../../src/command-center/reconcile";
import type { CommandCenterEvent, DispatchedEvent } from "../../src/shared/command-center";
import { threadDetailSchema, threadSummarySchema } from "../../src/shared/command-center";
import { threadDetail } from "../../src/command-center/snapshot";
import { MemoryRegistryStore } from "../command-center/memory-store";

const STALE = 600_000;
const T0 = 1_700_000_000_000;

function dispatched(overrides: Partial<DispatchedEvent> = {}): DispatchedEvent {
  return {
    type: "dispatched",
    session: "acme-widgets-7",
    repo: "acme/widgets",
    issueNumber: 7,
    issueTitle: "Widgets wobble",
    requestedBy: { login: "octocat", avatarUrl: "https://avatars.example/octocat" },
    instruction: "reproduce this issue\nand then some detail",
    submissionId: "s1",
    at: T0,
    ...overrides
  };
}

const started = (at: number, submissionId = "s1"): CommandCenterEvent => ({ type: "turn-started", session: "acme-widgets-7", submissionId, at });
const tool = (at: number, ok = true, toolCallId?: string, submissionId = "s1"): CommandCenterEvent => ({
  type: "tool",
  session: "acme-widgets-7",
  submissionId,
  tool: "bash",
  ok,
  at,
  ...(toolCallId ? { toolCallId } : {})
});
const notice = (
  at: number,
  kind: "rocket" | "closing" | "stale",
  state: "sent" | "failed",
  extra: { url?: string; error?: string } = {},
  submissionId = "s1"
): CommandCenterEvent => ({ type: "notice", session: "acme-widgets-7", submissionId, kind, state, at, ...extra });
const COMMENT_URL = "https://github.com/acme/widgets/issues/7#issuecomment-99";
const repro = (at: number, url: string, submissionId = "s1"): CommandCenterEvent => ({ type: "reproduction", session: "acme-widgets-7", submissionId, url, at });
const REPRO_URL = "https://agent-think.example.dev/repro/0123456789abcdef0123456789abcdef/";
const REPRO_URL_2 = "https://agent-think.example.dev/repro/private/fedcba9876543210fedcba9876543210/";
const egress = (at: number, blocked: Array<{ host: string; method: string; count: number }>, submissionId = "s1"): CommandCenterEvent => ({
  type: "egress",
  session: "acme-widgets-7",
  submissionId,
  blocked,
  at
});
const EVIL = { host: "evil.example", method: "GET", count: 1 };
const ended = (at: number, status: "done" | "error" | "cancelled" = "done", extra: { error?: string; tokens?: { input: number; output: number } } = {}, submissionId = "s1"): CommandCenterEvent => ({
  type: "turn-ended",
  session: "acme-widgets-7",
  submissionId,
  status,
  at,
  ...extra
});

/** The agent was asked about the quiet run at `at` and said it is still active. */
function askedActive(store: MemoryRegistryStore, at: number, submissionId = "s1") {
  expect(settleQuiet(store, "acme-widgets-7", submissionId, { kind: "active" }, at, STALE)).toBe(true);
}

function thread(store: MemoryRegistryStore, now = T0) {
  const record = store.getThread("acme-widgets-7");
  return record && toSummary(record, now, STALE);
}

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

describe("thread registry: what the run posted on its issue", () => {
  it("shows each settled message of the current run, without counting it as activity", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, started(T0 + 10));
    expect(recordEvent(store, notice(T0 + 20, "rocket", "sent"))).toEqual({ applied: true });
    recordEvent(store, ended(T0 + 1_000, "done"));
    expect(recordEvent(store, notice(T0 + 1_500, "closing", "sent", { url: COMMENT_URL }))).toEqual({ applied: true });
    const summary = thread(store, T0 + 2_000)!;
    expect(summary.issueMessages).toEqual({ rocket: { state: "sent" }, closing: { state: "sent", url: COMMENT_URL } });
    expect(summary.lastActivityAt).toBe(T0 + 1_000);
    expect(threadSummarySchema.parse(summary)).toEqual(summary);
  });

  it("a stale notice does not make a quiet run look active", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, notice(T0 + STALE + 5, "stale", "sent", { url: COMMENT_URL }));
    askedActive(store, T0 + STALE + 6);
    expect(thread(store, T0 + STALE + 10)).toMatchObject({ stale: true, lastActivityAt: T0, issueMessages: { stale: { state: "sent" } } });
  });

  it("records why a message failed, redacted and cut, and drops a URL too long to be whole", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, notice(T0 + 1, "rocket", "sent", { url: `https://x.test/${"u".repeat(400)}` }));
    recordEvent(store, notice(T0 + 2, "closing", "failed", { error: `GitHub comment: 403 ghs_abcdefghijklmnopqrstuvwxyz0123 ${"e".repeat(1_000)}`, url: COMMENT_URL }));
    recordEvent(store, notice(T0 + 3, "stale", "failed"));
    const messages = thread(store)!.issueMessages!;
    expect(messages.rocket).toEqual({ state: "sent" });
    expect(messages.closing?.url).toBeUndefined();
    expect(messages.closing?.error).toMatch(/^GitHub comment: 403 \[redacted\] e+…$/);
    expect(messages.closing!.error!.length).toBeLessThanOrEqual(200);
    expect(messages.stale).toEqual({ state: "failed", error: "failed" });
  });

  it("is idempotent: the first report of a message wins, except that sent replaces failed", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, notice(T0 + 1, "closing", "failed", { error: "GitHub comment: 502" }));
    const once = thread(store);
    expect(recordEvent(store, notice(T0 + 1, "closing", "failed", { error: "GitHub comment: 502" }))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, notice(T0 + 2, "closing", "failed", { error: "other" }))).toEqual({ applied: false, reason: "duplicate" });
    expect(thread(store)).toEqual(once);
    expect(recordEvent(store, notice(T0 + 3, "closing", "sent", { url: COMMENT_URL }))).toEqual({ applied: true });
    expect(recordEvent(store, notice(T0 + 4, "closing", "failed", { error: "late" }))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, notice(T0 + 3, "closing", "sent", { url: COMMENT_URL }))).toEqual({ applied: false, reason: "duplicate" });
    expect(thread(store)?.issueMessages).toEqual({ closing: { state: "sent", url: COMMENT_URL } });
  });

  it("follows only the current run: an older run's message is ignored, a new run starts with none", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, notice(T0 + 1, "closing", "failed", { error: "GitHub comment: 404" }));
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 100 }));
    expect(thread(store)?.issueMessages).toBeUndefined();
    expect(recordEvent(store, notice(T0 + 150, "rocket", "sent", {}, "s1"))).toEqual({ applied: false, reason: "not_current" });
    expect(thread(store)?.issueMessages).toBeUndefined();
    recordEvent(store, notice(T0 + 200, "rocket", "sent", {}, "s2"));
    expect(thread(store)?.issueMessages).toEqual({ rocket: { state: "sent" } });
  });

  it("takes over a message that arrived before its run's dispatch", () => {
    const store = new MemoryRegistryStore();
    expect(recordEvent(store, notice(T0 + 50, "rocket", "sent"))).toEqual({ applied: false, reason: "not_current" });
    recordEvent(store, dispatched());
    expect(thread(store)?.issueMessages).toEqual({ rocket: { state: "sent" } });
  });

  it("keeps a message known after retention pruned the current run", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 10, "done"));
    recordEvent(store, notice(T0 + 20, "closing", "sent", { url: COMMENT_URL }));
    store.prune(T0 + 1_000_000, T0 + 1_000_000);
    expect(recordEvent(store, notice(T0 + 2_000_000, "closing", "failed", { error: "late" }))).toEqual({ applied: false, reason: "duplicate" });
    recordEvent(store, notice(T0 + 2_000_000, "rocket", "sent"));
    expect(thread(store)?.issueMessages).toEqual({ closing: { state: "sent", url: COMMENT_URL }, rocket: { state: "sent" } });
  });
});

describe("thread registry: the issue's reproduction page", () => {
  it("shows the current run's page on the thread, as activity", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 100, true, "a"));
    expect(recordEvent(store, repro(T0 + 200, REPRO_URL))).toEqual({ applied: true });
    const summary = thread(store, T0 + 300)!;
    expect(summary).toMatchObject({ reproductionUrl: REPRO_URL, lastActivityAt: T0 + 200, toolCalls: 1 });
    expect(threadSummarySchema.parse(summary)).toEqual(summary);
    expect(store.getRun("acme-widgets-7", "s1")).toMatchObject({ reproduction: { url: REPRO_URL, at: T0 + 200 }, touchedAt: T0 + 200 });
  });

  it("is idempotent: the same URL again is a duplicate, a newer one replaces it, an older one does not", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, repro(T0 + 200, REPRO_URL));
    expect(recordEvent(store, repro(T0 + 200, REPRO_URL))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, repro(T0 + 900, REPRO_URL))).toEqual({ applied: false, reason: "duplicate" });
    expect(thread(store)?.lastActivityAt).toBe(T0 + 200);

    expect(recordEvent(store, repro(T0 + 500, REPRO_URL_2))).toEqual({ applied: true });
    expect(thread(store)?.reproductionUrl).toBe(REPRO_URL_2);
    // A publication the newer one replaced, reported late (or at the same moment).
    expect(recordEvent(store, repro(T0 + 300, "https://agent-think.example.dev/repro/older/"))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, repro(T0 + 500, "https://agent-think.example.dev/repro/same-time/"))).toEqual({ applied: false, reason: "duplicate" });
    expect(thread(store)).toMatchObject({ reproductionUrl: REPRO_URL_2, lastActivityAt: T0 + 500 });
  });

  it("drops a URL that is not http(s) or is longer than 300 characters, never cutting it", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    const long = `https://agent-think.example.dev/repro/${"a".repeat(300)}/`;
    for (const bad of ["javascript:alert(1)", "data:text/html,x", "/repro/0123/", "", "not a url", long]) {
      expect(recordEvent(store, repro(T0 + 10, bad))).toEqual({ applied: false, reason: "invalid" });
    }
    expect(thread(store)?.reproductionUrl).toBeUndefined();
    expect(thread(store)?.lastActivityAt).toBe(T0);
    expect(store.getRun("acme-widgets-7", "s1")?.reproduction).toBeUndefined();

    const exactly300 = `http://x.test/${"a".repeat(300 - "http://x.test/".length)}`;
    expect(recordEvent(store, repro(T0 + 20, ` ${exactly300} `))).toEqual({ applied: true });
    expect(thread(store)?.reproductionUrl).toBe(exactly300);
  });

  it("keeps the page across later runs until a publication replaces it", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, repro(T0 + 200, REPRO_URL));
    recordEvent(store, ended(T0 + 1_000, "error", { error: "boom" }));
    // A continuation, then a new mention: the page stays published.
    claimThread(store, "acme-widgets-7", T0 + 2_000, STALE);
    expect(thread(store, T0 + 2_000)?.reproductionUrl).toBe(REPRO_URL);
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 2_100, instruction: "continue" }));
    expect(thread(store, T0 + 2_100)).toMatchObject({ submissionId: "s2", reproductionUrl: REPRO_URL });
    recordEvent(store, ended(T0 + 3_000, "done", {}, "s2"));
    recordEvent(store, dispatched({ submissionId: "s3", at: T0 + 4_000, instruction: "open a PR" }));
    expect(thread(store, T0 + 4_000)).toMatchObject({ submissionId: "s3", runCount: 3, reproductionUrl: REPRO_URL });

    expect(recordEvent(store, repro(T0 + 4_500, REPRO_URL_2, "s3"))).toEqual({ applied: true });
    expect(thread(store, T0 + 4_500)?.reproductionUrl).toBe(REPRO_URL_2);
  });

  it("a released claim keeps the page", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, repro(T0 + 200, REPRO_URL));
    recordEvent(store, ended(T0 + 1_000, "error", { error: "boom" }));
    claimThread(store, "acme-widgets-7", T0 + 2_000, STALE);
    releaseClaim(store, "acme-widgets-7", T0 + 2_100, "could not mint a token");
    expect(thread(store, T0 + 2_100)).toMatchObject({ status: "error", reproductionUrl: REPRO_URL });
  });

  it("follows only the current run: an older run's page does not reach the thread", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 100 }));
    expect(recordEvent(store, repro(T0 + 150, REPRO_URL, "s1"))).toEqual({ applied: false, reason: "not_current" });
    expect(thread(store)).toMatchObject({ submissionId: "s2", lastActivityAt: T0 + 100 });
    expect(thread(store)?.reproductionUrl).toBeUndefined();
    expect(store.getRun("acme-widgets-7", "s1")?.reproduction).toEqual({ url: REPRO_URL, at: T0 + 150 });
  });

  it("takes over a page published before its run's dispatch arrived, over the thread's earlier one", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, repro(T0 + 50, REPRO_URL));
    recordEvent(store, ended(T0 + 100, "done"));
    expect(recordEvent(store, repro(T0 + 900, REPRO_URL_2, "s2"))).toEqual({ applied: false, reason: "not_current" });
    expect(thread(store)?.reproductionUrl).toBe(REPRO_URL);
    expect(recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 500 }))).toEqual({ applied: true });
    expect(thread(store, T0 + 1_000)).toMatchObject({ submissionId: "s2", reproductionUrl: REPRO_URL_2, lastActivityAt: T0 + 900 });
  });
});

describe("thread registry: what the egress gateway refused a run", () => {
  it("keeps the run's tally and shows its total on the thread, without counting it as activity", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 100, true, "a"));
    expect(recordEvent(store, egress(T0 + 200, [EVIL]))).toEqual({ applied: true });
    const summary = thread(store, T0 + 300)!;
    expect(summary).toMatchObject({ blockedRequests: 1, lastActivityAt: T0 + 100 });
    expect(threadSummarySchema.parse(summary)).toEqual(summary);
    expect(store.getRun("acme-widgets-7", "s1")).toMatchObject({ blocked: [EVIL], touchedAt: T0 + 200 });
  });

  it("keeps the larger tally: the same one again, or an older one arriving late, changes nothing", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    const later = [
      { host: "api.github.com", method: "POST", count: 3 },
      { host: "evil.example", method: "GET", count: 1 }
    ];
    expect(recordEvent(store, egress(T0 + 500, later))).toEqual({ applied: true });
    expect(recordEvent(store, egress(T0 + 500, later))).toEqual({ applied: false, reason: "duplicate" });
    // The first tally, resent after the later one arrived.
    expect(recordEvent(store, egress(T0 + 200, [EVIL]))).toEqual({ applied: false, reason: "duplicate" });
    // As many requests in all is no news either, whatever its time.
    expect(recordEvent(store, egress(T0 + 900, [{ host: "other.example", method: "GET", count: 4 }]))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, egress(T0 + 900, []))).toEqual({ applied: false, reason: "duplicate" });
    expect(store.getRun("acme-widgets-7", "s1")?.blocked).toEqual(later);
    expect(thread(store)?.blockedRequests).toBe(4);

    const grown = [{ ...later[0]!, count: 4 }, later[1]!];
    expect(recordEvent(store, egress(T0 + 600, grown))).toEqual({ applied: true });
    expect(thread(store)?.blockedRequests).toBe(5);
  });

  it("takes the run's last tally after its end, as the agent sends it with the end", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 1_000, "done"));
    expect(recordEvent(store, egress(T0 + 1_000, [{ host: "evil.example", method: "GET", count: 2 }]))).toEqual({ applied: true });
    expect(thread(store, T0 + 2_000)).toMatchObject({ status: "done", blockedRequests: 2, lastActivityAt: T0 + 1_000 });
  });

  it("keeps an older run's tally on that run only, and a new run starts with none", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, egress(T0 + 50, [EVIL]));
    recordEvent(store, ended(T0 + 100, "error", { error: "boom" }));
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 200 }));
    expect(thread(store)?.blockedRequests).toBeUndefined();

    const tally = [{ host: "evil.example", method: "GET", count: 2 }];
    expect(recordEvent(store, egress(T0 + 300, tally, "s1"))).toEqual({ applied: false, reason: "not_current" });
    expect(recordEvent(store, egress(T0 + 300, tally, "s1"))).toEqual({ applied: false, reason: "duplicate" });
    expect(store.getRun("acme-widgets-7", "s1")?.blocked).toEqual(tally);
    expect(thread(store)?.blockedRequests).toBeUndefined();
    expect(thread(store)?.lastActivityAt).toBe(T0 + 200);

    const detail = threadDetail(store, "acme-widgets-7", T0 + 400, STALE);
    expect(detail?.runs.map((run) => [run.submissionId, run.blocked])).toEqual([
      ["s2", undefined],
      ["s1", tally]
    ]);
    expect(threadDetailSchema.parse(detail)).toEqual(detail);
  });

  it("takes over a tally that arrived before its run's dispatch", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    expect(recordEvent(store, egress(T0 + 900, [EVIL], "s2"))).toEqual({ applied: false, reason: "not_current" });
    expect(recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 500 }))).toEqual({ applied: true });
    expect(thread(store, T0 + 1_000)).toMatchObject({ submissionId: "s2", blockedRequests: 1 });
  });

  it("stores hosts redacted, most frequent first, at most 20", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    const token = `ghs_${"a".repeat(36)}`;
    const blocked = [
      { host: `${token}.evil.example`, method: "GET", count: 1 },
      ...Array.from({ length: 18 }, (_, i) => ({ host: `h${String(i).padStart(2, "0")}.example`, method: "GET", count: 2 })),
      { host: "api.github.com", method: "POST", count: 5 }
    ];
    expect(recordEvent(store, egress(T0 + 10, blocked))).toEqual({ applied: true });
    const kept = store.getRun("acme-widgets-7", "s1")!.blocked!;
    expect(kept).toHaveLength(20);
    expect(kept[0]).toEqual({ host: "api.github.com", method: "POST", count: 5 });
    expect(kept.at(-1)).toEqual({ host: "[redacted].evil.example", method: "GET", count: 1 });
    expect(JSON.stringify(kept)).not.toContain(token);

    // More than the schema allows (the command center refuses it as invalid; the registry alone still keeps 20).
    expect(recordEvent(store, egress(T0 + 20, [...kept, { host: "z.example", method: "GET", count: 1 }, { host: "y.example", method: "PUT", count: 9 }]))).toEqual({ applied: true });
    const capped = store.getRun("acme-widgets-7", "s1")!.blocked!;
    expect(capped).toHaveLength(20);
    expect(capped[0]).toEqual({ host: "y.example", method: "PUT", count: 9 });
    expect(capped.map((entry) => entry.host)).not.toContain("z.example");
  });
});

describe("thread registry: continuation claims", () => {
  function failed() {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 10, "error", { error: "boom" }));
    return store;
  }

  it("claims a failed thread once: running again, one more run", () => {
    const store = failed();
    const claim = claimThread(store, "acme-widgets-7", T0 + 1_000, STALE);
    expect(claim).toMatchObject({ ok: true, thread: { status: "running", runCount: 2, stale: false, lastActivityAt: T0 + 1_000 } });
    expect(claimThread(store, "acme-widgets-7", T0 + 1_001, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
  });

  it("reports unknown threads and threads that are done or still active", () => {
    const store = new MemoryRegistryStore();
    expect(claimThread(store, "nope-1", T0, STALE)).toEqual({ ok: false, reason: "not_found" });
    recordEvent(store, dispatched());
    expect(claimThread(store, "acme-widgets-7", T0 + STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
    recordEvent(store, ended(T0 + 10, "done"));
    expect(claimThread(store, "acme-widgets-7", T0 + 10 * STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
  });

  it("never claims a cancelled thread, however long ago it ended", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 10, "cancelled"));
    expect(isClaimable(store.getThread("acme-widgets-7")!, T0 + 10 * STALE, STALE)).toBe(false);
    expect(claimThread(store, "acme-widgets-7", T0 + 10 * STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
    expect(thread(store)).toMatchObject({ status: "cancelled", runCount: 1 });
  });

  it("a claimed continuation that is cancelled ends cancelled, and is not claimable again", () => {
    const store = failed();
    claimThread(store, "acme-widgets-7", T0 + 1_000, STALE);
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 1_100, instruction: "continue" }));
    recordEvent(store, ended(T0 + 1_500, "cancelled", {}, "s2"));
    expect(thread(store)).toMatchObject({ status: "cancelled", runCount: 2, durationMs: 400 });
    expect(claimThread(store, "acme-widgets-7", T0 + 10 * STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
  });

  it("claims a stale running thread and gives up its run for the metrics", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 100, true, "a"));
    expect(isStale(store.getThread("acme-widgets-7")!, T0 + 100 + STALE, STALE)).toBe(false);
    // Quiet, but its agent has not been asked yet: not stale, not claimable.
    expect(isStale(store.getThread("acme-widgets-7")!, T0 + 101 + STALE, STALE)).toBe(false);
    expect(claimThread(store, "acme-widgets-7", T0 + 101 + STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
    askedActive(store, T0 + 101 + STALE);
    expect(isStale(store.getThread("acme-widgets-7")!, T0 + 101 + STALE, STALE)).toBe(true);
    expect(thread(store, T0 + 101 + STALE)?.stale).toBe(true);
    expect(claimThread(store, "acme-widgets-7", T0 + 100 + STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });

    const claim = claimThread(store, "acme-widgets-7", T0 + 101 + STALE, STALE);
    expect(claim).toMatchObject({ ok: true, thread: { status: "running", runCount: 2, stale: false } });
    expect(store.getRun("acme-widgets-7", "s1")).toMatchObject({ status: "error", endedAt: T0 + 101 + STALE });
    expect(store.getRun("acme-widgets-7", "s1")?.error).toMatch(/^abandoned: no activity for 600 s$/);
  });

  it("the continuation's dispatch takes the claim without counting the run twice", () => {
    const store = failed();
    claimThread(store, "acme-widgets-7", T0 + 1_000, STALE);
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 1_100, instruction: "continue" }));
    expect(thread(store)).toMatchObject({ submissionId: "s2", runCount: 2, status: "running" });
    expect(store.getThread("acme-widgets-7")?.claim).toBeUndefined();
    recordEvent(store, ended(T0 + 2_000, "done", {}, "s2"));
    expect(thread(store)).toMatchObject({ status: "done", runCount: 2 });
  });

  it("the old run's late events do not reach a claimed thread", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    askedActive(store, T0 + STALE + 1);
    claimThread(store, "acme-widgets-7", T0 + STALE + 1, STALE);
    expect(recordEvent(store, ended(T0 + STALE + 2, "done"))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, tool(T0 + STALE + 3, true, "late"))).toEqual({ applied: false, reason: "not_current" });
    expect(thread(store)).toMatchObject({ status: "running", toolCalls: 0, runCount: 2 });
  });

  it("a released claim shows the error and can be claimed again", () => {
    const store = failed();
    claimThread(store, "acme-widgets-7", T0 + 1_000, STALE);
    expect(releaseClaim(store, "acme-widgets-7", T0 + 1_200, "could not mint a token")).toBe(true);
    expect(thread(store)).toMatchObject({ status: "error", runCount: 1, lastError: "could not mint a token", lastActivityAt: T0 + 1_200 });
    expect(releaseClaim(store, "acme-widgets-7", T0 + 1_300)).toBe(false);
    expect(claimThread(store, "acme-widgets-7", T0 + 1_400, STALE)).toMatchObject({ ok: true, thread: { runCount: 2 } });
    expect(releaseClaim(store, "acme-widgets-7", T0 + 1_500)).toBe(true);
    expect(thread(store)?.lastError).toBe("could not mint a token");
    expect(releaseClaim(store, "unknown-1", T0)).toBe(false);
  });

  it("a claim never followed by its dispatch goes stale and can be claimed again", () => {
    const store = failed();
    claimThread(store, "acme-widgets-7", T0 + 1_000, STALE);
    expect(claimThread(store, "acme-widgets-7", T0 + 1_000 + STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
    expect(claimThread(store, "acme-widgets-7", T0 + 1_001 + STALE, STALE)).toMatchObject({ ok: true, thread: { runCount: 2 } });
  });

  it("says why a thread is not claimable: its status (still going, or ended done or cancelled)", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    expect(claimThread(store, "acme-widgets-7", T0 + 1, STALE)).toEqual({ ok: false, reason: "not_claimable", status: "running" });
    recordEvent(store, ended(T0 + 10, "done"));
    expect(claimThread(store, "acme-widgets-7", T0 + 11, STALE)).toEqual({ ok: false, reason: "not_claimable", status: "done" });
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 20 }));
    recordEvent(store, ended(T0 + 30, "cancelled", {}, "s2"));
    expect(claimThread(store, "acme-widgets-7", T0 + 31, STALE)).toEqual({ ok: false, reason: "not_claimable", status: "cancelled" });
  });

  it("records a continuation from GitHub on its run and the thread, from the claim its `continue` took", () => {
    const store = failed();
    const fromGitHub = { login: "alice", commentUrl: COMMENT_URL };
    expect(claimThread(store, "acme-widgets-7", T0 + 1_000, STALE, fromGitHub).ok).toBe(true);
    // The claim is the command center's own: the thread lists no continuation until its dispatch arrives.
    expect(thread(store)?.continuedFromGitHub).toBeUndefined();
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 1_100 }));
    expect(thread(store)).toMatchObject({ status: "running", runCount: 2, continuedFromGitHub: fromGitHub });
    expect(thread(store)?.continuedBy).toBeUndefined();
    expect(store.getRun("acme-widgets-7", "s2")?.continuedFromGitHub).toEqual(fromGitHub);
    const detail = threadDetail(store, "acme-widgets-7", T0 + 1_200, STALE);
    expect(detail?.runs.map((run) => [run.submissionId, run.continuedFromGitHub])).toEqual([
      ["s2", fromGitHub],
      ["s1", undefined]
    ]);
    expect(threadDetailSchema.parse(detail)).toEqual(detail);

    // The next run a mention starts is nobody's continuation.
    recordEvent(store, ended(T0 + 1_500, "done", {}, "s2"));
    recordEvent(store, dispatched({ submissionId: "s3", at: T0 + 2_000 }));
    expect(thread(store)?.continuedFromGitHub).toBeUndefined();
  });

  it("a dashboard continuation names its operator, whatever claim came before it", () => {
    const store = failed();
    claimThread(store, "acme-widgets-7", T0 + 1_000, STALE, { login: "alice" });
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 1_100, continuedBy: "ops@example.com" }));
    expect(thread(store)).toMatchObject({ continuedBy: "ops@example.com" });
    expect(thread(store)?.continuedFromGitHub).toBeUndefined();
  });
});

describe("STALE_RUN_MS", () => {
  it("parses a positive integer and falls back to ten minutes", () => {
    expect(parseStaleRunMs("1500")).toBe(1500);
    for (const bad of [undefined, "", " ", "0", "-5", "1.5", "ten"]) expect(parseStaleRunMs(bad)).toBe(600_000);
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
