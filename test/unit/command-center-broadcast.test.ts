import { describe, expect, it } from "vitest";
import { boundedState, jsonBytes, nextStaleAt, trimForBroadcast } from "../../src/command-center/broadcast";
import { EMPTY_METRICS } from "../../src/command-center/metrics";
import { commandCenterStateSchema, MAX_BROADCAST_BYTES, MAX_RECENT_THREADS, type ThreadSummary } from "../../src/shared/command-center";
import { REPRODUCTION_URL_MAX_CHARS } from "../../src/shared/command-center-events";

const summary = (i: number, fields: Partial<ThreadSummary> = {}): ThreadSummary => ({
  session: `acme-repo-${i}`,
  repo: "acme/repo",
  issueNumber: i,
  instructionSummary: "reproduce this issue",
  status: "running",
  stale: false,
  runCount: 1,
  toolCalls: 0,
  toolErrors: 0,
  submissionId: `sub-${i}`,
  startedAt: 1_000 + i,
  lastActivityAt: 1_000 + i,
  ...fields
});

describe("boundedState", () => {
  it("keeps at most MAX_RECENT_THREADS threads, newest first as given", () => {
    const threads = Array.from({ length: 2_000 }, (_, i) => summary(2_000 - i));
    const state = boundedState({ metrics: EMPTY_METRICS, threads, total: 2_000, updatedAt: 5 });
    expect(state.recent).toHaveLength(MAX_RECENT_THREADS);
    expect(state.recent[0]?.session).toBe("acme-repo-2000");
    expect(state.total).toBe(2_000);
    expect(commandCenterStateSchema.parse(state)).toEqual(state);
  });

  it("drops threads from the tail until the JSON fits in MAX_BROADCAST_BYTES", () => {
    const fat = (i: number) =>
      summary(i, { issueTitle: "é".repeat(1_024), lastError: "✗".repeat(2_000), requestedBy: { login: "octocat", avatarUrl: "https://a.example/" + "x".repeat(200) } });
    const threads = Array.from({ length: 200 }, (_, i) => fat(i));
    const state = boundedState({ metrics: EMPTY_METRICS, threads, total: 200, updatedAt: 1 });
    expect(jsonBytes(state)).toBeLessThanOrEqual(MAX_BROADCAST_BYTES);
    expect(state.recent.length).toBeGreaterThan(0);
    expect(state.recent.length).toBeLessThanOrEqual(MAX_RECENT_THREADS);
    expect(state.recent[0]?.issueTitle?.length).toBeLessThanOrEqual(200);
    expect(state.recent[0]?.lastError?.length).toBeLessThanOrEqual(200);
    // A prefix of the input, in order.
    expect(state.recent.map((t) => t.session)).toEqual(threads.slice(0, state.recent.length).map((t) => t.session));
  });

  it("fits within tighter limits exactly, and cuts one thread that is too big alone", () => {
    const threads = Array.from({ length: 10 }, (_, i) => summary(i, { issueTitle: "t".repeat(150) }));
    for (const maxBytes of [400, 700, 1_000, 3_000]) {
      const state = boundedState({ metrics: EMPTY_METRICS, threads, total: 10, updatedAt: 1 }, { maxBytes, maxThreads: 50 });
      expect(jsonBytes(state)).toBeLessThanOrEqual(maxBytes);
    }
    const roomy = jsonBytes(boundedState({ metrics: EMPTY_METRICS, threads: [threads[0]!], total: 1, updatedAt: 1 }));
    const alone = boundedState({ metrics: EMPTY_METRICS, threads: [threads[0]!], total: 1, updatedAt: 1 }, { maxBytes: roomy - 50, maxThreads: 50 });
    expect(jsonBytes(alone)).toBeLessThanOrEqual(roomy - 50);
    expect(alone.recent).toHaveLength(1);
    expect(alone.recent[0]!.issueTitle!.length).toBeLessThanOrEqual(40);
    const tooSmall = boundedState({ metrics: EMPTY_METRICS, threads, total: 10, updatedAt: 1 }, { maxBytes: 250, maxThreads: 50 });
    expect(tooSmall.recent).toEqual([]);
  });

  it("trimForBroadcast keeps identifiers whole and drops over-long avatar URLs", () => {
    const long = "x".repeat(400);
    const trimmed = trimForBroadcast(summary(1, { session: `s-${long}`, requestedBy: { login: "o", avatarUrl: `https://a/${long}` } }));
    expect(trimmed.session).toBe(`s-${long}`);
    expect(trimmed.requestedBy).toEqual({ login: "o" });
  });

  it("cuts issue-message errors again and keeps their URLs whole", () => {
    const url = "https://github.com/acme/repo/issues/1#issuecomment-1";
    const fat = summary(1, {
      issueMessages: { closing: { state: "failed", error: "e".repeat(1_000) }, stale: { state: "sent", url }, rocket: { state: "sent" } }
    });
    const trimmed = trimForBroadcast(fat);
    expect(trimmed.issueMessages?.closing?.error).toHaveLength(200);
    expect(trimmed.issueMessages?.stale).toEqual({ state: "sent", url });
    expect(trimmed.issueMessages?.rocket).toEqual({ state: "sent" });
    expect(trimForBroadcast(fat, 40).issueMessages?.closing?.error).toHaveLength(40);
    expect(fat.issueMessages?.closing?.error).toHaveLength(1_000);
  });

  it("keeps a reproduction URL whole, even in a thread cut tight, and drops one too long to be whole", () => {
    const url = "https://agent-think.example.dev/repro/private/0123456789abcdef0123456789abcdef/";
    expect(trimForBroadcast(summary(1, { reproductionUrl: url })).reproductionUrl).toBe(url);
    expect(trimForBroadcast(summary(1, { reproductionUrl: url }), 40).reproductionUrl).toBe(url);
    const long = `https://agent-think.example.dev/repro/${"a".repeat(REPRODUCTION_URL_MAX_CHARS)}/`;
    const trimmed = trimForBroadcast(summary(1, { reproductionUrl: long }));
    expect("reproductionUrl" in trimmed).toBe(false);
  });

  it("fits 50 busy threads that each carry all three issue messages and a reproduction URL", () => {
    const url = (i: number) => `https://github.com/some-organization/some-repository/issues/${1_000 + i}#issuecomment-2512345678`;
    const threads = Array.from({ length: MAX_RECENT_THREADS + 10 }, (_, i) =>
      summary(i + 1, {
        session: `some-organization-some-repository-${1_000 + i}`,
        repo: "some-organization/some-repository",
        issueTitle: "Streams stall after a deploy when the socket reconnects mid-turn",
        requestedBy: { login: "octocat-maintainer", avatarUrl: `https://avatars.githubusercontent.com/u/${i}?v=4` },
        instructionSummary: "reproduce this issue and open a PR with a fix if it is a bug in the reconnect path of the client",
        submissionId: crypto.randomUUID(),
        status: "error",
        lastError: "x".repeat(300),
        turnStartedAt: 1_000,
        firstToolMs: 1_234,
        durationMs: 123_456,
        tokens: { input: 1_234_567, output: 123_456 },
        issueMessages: {
          closing: i % 2 ? { state: "failed", error: "GitHub comment: 403 Resource not accessible by integration" } : { state: "sent", url: url(i) },
          rocket: { state: "sent" },
          stale: { state: "sent", url: url(i) }
        },
        reproductionUrl: `https://agent-think.some-organization.workers.dev/repro/private/${crypto.randomUUID().replaceAll("-", "")}/`
      })
    );
    const state = boundedState({ metrics: EMPTY_METRICS, threads, total: threads.length, updatedAt: 1 });
    expect(state.recent).toHaveLength(MAX_RECENT_THREADS);
    expect(jsonBytes(state)).toBeLessThanOrEqual(MAX_BROADCAST_BYTES);
    expect(commandCenterStateSchema.parse(state)).toEqual(state);
  });
});

describe("nextStaleAt", () => {
  it("is when the first running, not yet stale thread turns stale", () => {
    const threads = [
      summary(1, { lastActivityAt: 5_000 }),
      summary(2, { lastActivityAt: 3_000 }),
      summary(3, { lastActivityAt: 1_000, stale: true }),
      summary(4, { lastActivityAt: 500, status: "done" })
    ];
    expect(nextStaleAt(threads, 10_000)).toBe(13_001);
    expect(nextStaleAt([summary(1, { status: "error" })], 10_000)).toBeUndefined();
    expect(nextStaleAt([summary(1, { status: "cancelled" })], 10_000)).toBeUndefined();
  });
});
