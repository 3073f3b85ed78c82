import { describe, expect, it } from "vitest";
import { readIssueMessages, readLiveState, readRun, readSnapshot, readThread, readThreadDetail } from "../../../src/ui/view-models/wire";
import { metrics, NOW, thread } from "./fixtures";

describe("readSnapshot", () => {
  it("reads a snapshot, keeping its cursor", () => {
    const read = readSnapshot({ metrics, threads: [thread()], total: 1, generatedAt: NOW, nextCursor: "c1" });
    expect(read).toEqual({ ok: true, value: { metrics, threads: [thread()], total: 1, generatedAt: NOW, nextCursor: "c1" }, dropped: 0 });
  });

  it("drops an unreadable thread row instead of failing the list", () => {
    const read = readSnapshot({ metrics, threads: [thread(), { session: "x" }, thread({ session: "b" })], total: 3, generatedAt: NOW });
    expect(read.ok && read.value.threads.map((t) => t.session)).toEqual(["cloudflare-agents-1859", "b"]);
    expect(read.ok && read.dropped).toBe(1);
  });

  it("rejects a body without metrics, a thread list or its counts", () => {
    expect(readSnapshot(null)).toMatchObject({ ok: false });
    expect(readSnapshot({ threads: [], total: 0, generatedAt: NOW })).toMatchObject({ ok: false, reason: "no readable metrics" });
    expect(readSnapshot({ metrics, total: 0, generatedAt: NOW })).toMatchObject({ ok: false, reason: "no thread list" });
    expect(readSnapshot({ metrics: { ...metrics, successRate: 2 }, threads: [], total: 0, generatedAt: NOW })).toMatchObject({ ok: false });
    expect(readSnapshot({ metrics, threads: [] })).toMatchObject({ ok: false });
  });
});

describe("readLiveState and readThread", () => {
  it("reads the synced state", () => {
    const state = { metrics, recent: [thread()], total: 9, updatedAt: NOW };
    expect(readLiveState(state)).toEqual({ ok: true, value: state, dropped: 0 });
    expect(readLiveState({ metrics, total: 9, updatedAt: NOW })).toMatchObject({ ok: false });
    expect(readLiveState(undefined)).toMatchObject({ ok: false });
  });

  it("checks a thread's status and optional fields", () => {
    expect(readThread(thread({ status: "paused" as never }))).toBeNull();
    expect(readThread(thread({ status: "toString" as never }))).toBeNull();
    expect(readThread(thread({ status: "cancelled" }))).toEqual(thread({ status: "cancelled" }));
    expect(readThread(thread({ tokens: { input: 10, output: 2 } }))).not.toBeNull();
    expect(readThread({ ...thread(), requestedBy: { avatarUrl: "x" } })).toBeNull();
    expect(readThread({ ...thread(), lastError: 5 })).toBeNull();
  });
});

describe("recovery on the wire", () => {
  it("reads a recovering thread and a thread's recovery count", () => {
    expect(readThread(thread({ status: "recovering", recoveries: 2 }))).toEqual(thread({ status: "recovering", recoveries: 2 }));
    expect(readThread(thread({ recoveries: 1, reproductionUrl: "https://x.test/repro/a/" }))).toEqual(
      thread({ recoveries: 1, reproductionUrl: "https://x.test/repro/a/" })
    );
  });

  it("leaves out a recovery count that is not a count of at least 1, and keeps the thread", () => {
    for (const recoveries of [0, -1, 1.5, "2", null]) {
      const read = readThread({ ...thread({ status: "recovering" }), recoveries });
      expect(read).toEqual(thread({ status: "recovering" }));
      expect(read && "recoveries" in read).toBe(false);
    }
  });

  it("reads the recovery metrics, as 0 from a server that does not send them", () => {
    const { recovering: _recovering, recoveries24h: _recoveries, ...older } = metrics;
    const read = readSnapshot({ metrics: older, threads: [], total: 0, generatedAt: NOW });
    expect(read.ok && read.value.metrics).toEqual({ ...metrics, recovering: 0, recoveries24h: 0 });
    const live = readLiveState({ metrics: { ...older, recovering: 2 }, recent: [], total: 0, updatedAt: NOW });
    expect(live.ok && live.value.metrics).toMatchObject({ recovering: 2, recoveries24h: 0 });
  });

  it("rejects recovery metrics that are there but not counts", () => {
    for (const bad of [{ recovering: -1 }, { recovering: 1.5 }, { recoveries24h: "3" }, { recoveries24h: null }]) {
      expect(readSnapshot({ metrics: { ...metrics, ...bad }, threads: [], total: 0, generatedAt: NOW })).toMatchObject({
        ok: false,
        reason: "no readable metrics"
      });
    }
  });
});

describe("issue messages on the wire", () => {
  const messages = {
    closing: { state: "sent" as const, url: "https://github.com/cloudflare/agents/issues/1859#issuecomment-1" },
    rocket: { state: "sent" as const },
    stale: { state: "failed" as const, error: "GitHub comment: 403 Resource not accessible by integration" }
  };

  it("reads a thread with them, and an old snapshot's thread without them", () => {
    expect(readThread(thread({ issueMessages: messages }))).toEqual(thread({ issueMessages: messages }));
    const old = readThread(thread());
    expect(old).toEqual(thread());
    expect(old && "issueMessages" in old).toBe(false);
    const state = { metrics, recent: [thread({ issueMessages: messages }), thread({ session: "old" })], total: 2, updatedAt: NOW };
    expect(readLiveState(state)).toEqual({ ok: true, value: state, dropped: 0 });
  });

  it("leaves out a message it cannot read and keeps the thread", () => {
    const read = readThread({
      ...thread(),
      issueMessages: { closing: { state: "pending" }, rocket: { state: "sent", url: 5 }, stale: messages.stale, progress: { state: "sent" } }
    });
    expect(read).toEqual(thread({ issueMessages: { stale: messages.stale } }));
    expect(readThread({ ...thread(), issueMessages: "broken" })).toEqual(thread());
    expect(readThread({ ...thread(), issueMessages: { closing: null } })).toEqual(thread());
    expect(readIssueMessages({ rocket: { state: "sent", extra: 1 } })).toEqual({ rocket: { state: "sent" } });
  });
});

describe("the reproduction URL on the wire", () => {
  const url = "https://agent-think.example.dev/repro/0123456789abcdef0123456789abcdef/";

  it("reads a thread with one, alone or beside issue messages", () => {
    expect(readThread(thread({ reproductionUrl: url }))).toEqual(thread({ reproductionUrl: url }));
    const both = thread({ reproductionUrl: url, issueMessages: { rocket: { state: "sent" } } });
    expect(readThread(both)).toEqual(both);
  });

  it("leaves out one that is not a string and keeps the thread", () => {
    const read = readThread({ ...thread(), reproductionUrl: 5 });
    expect(read).toEqual(thread());
    expect(read && "reproductionUrl" in read).toBe(false);
    expect(readThread({ ...thread(), reproductionUrl: { href: url }, issueMessages: { rocket: { state: "sent" } } })).toEqual(
      thread({ issueMessages: { rocket: { state: "sent" } } })
    );
  });
});

describe("blocked requests on the wire", () => {
  const run = { submissionId: "s1", status: "done", toolCalls: 2 } as const;
  const blocked = [
    { host: "api.github.com", method: "POST", count: 3 },
    { host: "evil.example", method: "GET", count: 1 }
  ];

  it("reads a run's blocked requests, and a thread's count of them", () => {
    expect(readRun({ ...run, blocked })).toEqual({ ...run, blocked });
    expect(readThread(thread({ blockedRequests: 4 }))).toEqual(thread({ blockedRequests: 4 }));
    expect(readThreadDetail({ thread: thread({ blockedRequests: 4 }), runs: [{ ...run, blocked }] })).toEqual({
      ok: true,
      value: { thread: thread({ blockedRequests: 4 }), runs: [{ ...run, blocked }] },
      dropped: 0
    });
  });

  it("leaves out an entry that does not read, and the list when none does, keeping the run", () => {
    const bad = [{ host: "", method: "GET", count: 1 }, { host: "x.example", method: "GET", count: 0 }, { host: "x.example", count: 2 }, null, "evil.example"];
    expect(readRun({ ...run, blocked: [...bad, blocked[1]] })).toEqual({ ...run, blocked: [blocked[1]] });
    const none = readRun({ ...run, blocked: bad });
    expect(none).toEqual(run);
    expect(none && "blocked" in none).toBe(false);
    expect(readRun({ ...run, blocked: "evil.example" })).toEqual(run);
  });

  it("keeps each outcome a run reports, the triage ones included, and leaves out one it does not know", () => {
    for (const outcome of ["not-a-bug", "answered", "fixed-upstream"]) expect(readRun({ ...run, outcome })).toEqual({ ...run, outcome });
    expect(readRun({ ...run, outcome: "wontfix" })).toEqual(run);
  });

  it("keeps a run's proof when it is a boolean, and leaves out anything else", () => {
    expect(readRun({ ...run, outcome: "pr-unproven", proven: false })).toEqual({ ...run, outcome: "pr-unproven", proven: false });
    expect(readRun({ ...run, proven: "yes" })).toEqual(run);
  });

  it("leaves out a thread's count that is not a count of at least 1, and keeps the thread", () => {
    for (const blockedRequests of [0, -1, 1.5, "2", null]) {
      const read = readThread({ ...thread(), blockedRequests });
      expect(read).toEqual(thread());
      expect(read && "blockedRequests" in read).toBe(false);
    }
  });
});

describe("private sources on the wire", () => {
  const run = { submissionId: "s1", status: "done", toolCalls: 2 } as const;

  it("reads a run's hosts, leaves out an entry that does not read, and the list when none does", () => {
    expect(readRun({ ...run, privateSources: ["maven.acme.example", "npm.acme.example"] })).toEqual({ ...run, privateSources: ["maven.acme.example", "npm.acme.example"] });
    expect(readRun({ ...run, privateSources: ["", 3, null, { host: "x" }, "npm.acme.example"] })).toEqual({ ...run, privateSources: ["npm.acme.example"] });
    for (const privateSources of [[""], "npm.acme.example", null, {}]) {
      const read = readRun({ ...run, privateSources });
      expect(read).toEqual(run);
      expect(read && "privateSources" in read).toBe(false);
    }
  });
});

describe("a continuation from GitHub on the wire", () => {
  const fromGitHub = { login: "alice", commentUrl: "https://github.com/octo/widgets/issues/7#issuecomment-99" };

  it("reads who continued a thread and a run from GitHub, and the comment", () => {
    expect(readThread(thread({ continuedFromGitHub: fromGitHub }))).toEqual(thread({ continuedFromGitHub: fromGitHub }));
    expect(readRun({ submissionId: "s", status: "running", toolCalls: 0, continuedFromGitHub: fromGitHub })).toEqual({
      submissionId: "s",
      status: "running",
      toolCalls: 0,
      continuedFromGitHub: fromGitHub
    });
  });

  it("leaves out a login or a link that does not read, and a value that is no continuation", () => {
    expect(readThread({ ...thread(), continuedFromGitHub: { login: 5, commentUrl: "javascript:alert(1)" } })).toEqual(thread({ continuedFromGitHub: {} }));
    expect(readThread({ ...thread(), continuedFromGitHub: "alice" })).toEqual(thread());
    expect(readRun({ submissionId: "s", status: "done", toolCalls: 0, continuedFromGitHub: null })).toEqual({ submissionId: "s", status: "done", toolCalls: 0 });
  });
});
