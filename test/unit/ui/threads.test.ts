import { describe, expect, it } from "vitest";
import {
  displayStatus,
  filterThreads,
  groupByRepo,
  mergeThreads,
  needsAttention,
  needsHuman,
  recoveryNote,
  runningNow,
  threadHref,
  threadRowView
} from "../../../src/ui/view-models/threads";
import { NOW, thread } from "./fixtures";

describe("displayStatus", () => {
  it("shows a running thread with no recent activity as stale", () => {
    expect(displayStatus({ status: "running", stale: false })).toBe("running");
    expect(displayStatus({ status: "running", stale: true })).toBe("stale");
    expect(displayStatus({ status: "error", stale: false })).toBe("error");
    expect(displayStatus({ status: "done", stale: true })).toBe("done");
    expect(displayStatus({ status: "cancelled", stale: true })).toBe("cancelled");
  });

  it("shows a recovering thread as recovering, and as stale past the stale window once checked, as running is", () => {
    expect(displayStatus({ status: "recovering", stale: false })).toBe("recovering");
    expect(displayStatus({ status: "recovering", stale: true })).toBe("stale");
  });
});

describe("recoveryNote", () => {
  it("counts the latest run's recoveries: which one while it recovers, how many once it runs or ended", () => {
    expect(recoveryNote({ status: "running" })).toBeUndefined();
    expect(recoveryNote({ status: "recovering" })).toBeUndefined();
    expect(recoveryNote({ status: "recovering", recoveries: 1 })).toBe("1st recovery");
    expect(recoveryNote({ status: "recovering", recoveries: 2 })).toBe("2nd recovery");
    expect(recoveryNote({ status: "recovering", recoveries: 3 })).toBe("3rd recovery");
    expect(recoveryNote({ status: "recovering", recoveries: 4 })).toBe("4th recovery");
    expect(recoveryNote({ status: "recovering", recoveries: 11 })).toBe("11th recovery");
    expect(recoveryNote({ status: "recovering", recoveries: 22 })).toBe("22nd recovery");
    expect(recoveryNote({ status: "recovering", recoveries: 112 })).toBe("112th recovery");
    expect(recoveryNote({ status: "running", recoveries: 2 })).toBe("recovered 2×");
    expect(recoveryNote({ status: "done", recoveries: 1 })).toBe("recovered 1×");
    expect(recoveryNote({ status: "error", recoveries: 1_000 })).toBe("recovered 1,000×");
  });
});

describe("threadRowView", () => {
  it("says in the title when a thread is an issue's reporter session", () => {
    expect(threadRowView(thread({ session: "cloudflare-agents-1859.reporter" }), NOW).title).toBe("#1859 (reporter) Streams stall after deploy");
    expect(threadRowView(thread({ issueTitle: undefined }), NOW).title).toBe("#1859");
  });

  it("reads a row: title, status, relative time, counters, continue", () => {
    const row = threadRowView(thread({ status: "error", toolErrors: 1, runCount: 2, lastError: "model timed out" }), NOW);
    expect(row).toMatchObject({
      session: "cloudflare-agents-1859",
      href: "/thread/cloudflare-agents-1859",
      title: "#1859 Streams stall after deploy",
      status: "error",
      statusLabel: "failed",
      tone: "bad",
      when: "2 min ago",
      requestedBy: "@octocat",
      counters: "run 2 · 4 tool calls · 1 error",
      lastError: "model timed out",
      canContinue: true
    });
  });

  it("has no title text beyond the number without an issue title, and no continue when done", () => {
    const row = threadRowView(thread({ issueTitle: undefined, toolCalls: 1 }), NOW);
    expect(row.title).toBe("#1859");
    expect(row.counters).toBe("1 tool call");
    expect(row.canContinue).toBe(false);
  });

  it("shows a cancelled thread in a neutral tone, with no continue", () => {
    const row = threadRowView(thread({ status: "cancelled" }), NOW);
    expect(row).toMatchObject({ status: "cancelled", statusLabel: "cancelled", tone: "neutral", canContinue: false });
    expect(row.lastError).toBeUndefined();
    expect(row.runningFor).toBeUndefined();
    expect(row.duration).toBe("42 s");
  });

  it("says when the closing comment could not be posted, at least as a warning", () => {
    const failed = { closing: { state: "failed" as const, error: "GitHub comment: 403 Resource not accessible by integration" } };
    const done = threadRowView(thread({ issueMessages: failed }), NOW);
    expect(done).toMatchObject({
      tone: "good",
      attentionTone: "warn",
      issueFailure: "Could not post on the issue: GitHub comment: 403 Resource not accessible by integration",
      canContinue: false
    });
    expect(threadRowView(thread({ status: "error", issueMessages: failed }), NOW).attentionTone).toBe("bad");
    expect(threadRowView(thread({ issueMessages: { closing: { state: "failed" } } }), NOW).issueFailure).toBe(
      "Could not post on the issue: no reason given"
    );
    const sent = threadRowView(thread({ issueMessages: { closing: { state: "sent", url: "https://github.com/x" }, stale: { state: "failed", error: "e" } } }), NOW);
    expect(sent.issueFailure).toBeUndefined();
    expect(sent.attentionTone).toBe("good");
  });

  it("shows a recovering thread with a warning badge that says why, its recovery and how long it has run", () => {
    const row = threadRowView(thread({ status: "recovering", recoveries: 2, durationMs: undefined }), NOW);
    expect(row).toMatchObject({
      status: "recovering",
      statusLabel: "recovering",
      tone: "warn",
      recoveries: "2nd recovery",
      runningFor: "10 min 00 s",
      attentionTone: "warn",
      canContinue: false
    });
    expect(row.statusTitle).toContain("interrupted");
    const stale = threadRowView(thread({ status: "recovering", stale: true, recoveries: 1 }), NOW);
    expect(stale).toMatchObject({ status: "stale", statusLabel: "stale", tone: "warn", recoveries: "1st recovery", canContinue: true });
  });

  it("keeps a recovered thread's count as a quiet detail once it runs again or ends", () => {
    expect(threadRowView(thread({ status: "running", recoveries: 1, durationMs: undefined }), NOW)).toMatchObject({
      status: "running",
      tone: "info",
      recoveries: "recovered 1×"
    });
    const done = threadRowView(thread({ recoveries: 3 }), NOW);
    expect(done).toMatchObject({ status: "done", tone: "good", recoveries: "recovered 3×", counters: "4 tool calls" });
    expect(done.statusTitle).toBeUndefined();
    expect(threadRowView(thread(), NOW).recoveries).toBeUndefined();
  });

  it("encodes the session in the link", () => {
    expect(threadHref("a/b")).toBe("/thread/a%2Fb");
  });
});

describe("groupByRepo", () => {
  it("groups by repository, the most recently active first, threads newest first", () => {
    const groups = groupByRepo([
      thread({ session: "a-x-1", repo: "a/x", lastActivityAt: NOW - 5_000 }),
      thread({ session: "b-y-1", repo: "b/y", lastActivityAt: NOW - 1_000, status: "running" }),
      thread({ session: "a-x-2", repo: "a/x", lastActivityAt: NOW - 500, status: "error" }),
      thread({ session: "A-x-3", repo: "A/x", lastActivityAt: NOW - 9_000, status: "running", stale: true })
    ]);
    expect(groups.map((group) => group.repo)).toEqual(["a/x", "b/y"]);
    expect(groups[0]!.threads.map((t) => t.session)).toEqual(["a-x-2", "a-x-1", "A-x-3"]);
    expect(groups[0]!.summary).toBe("3 threads · 1 stale · 1 failed");
    expect(groups[1]!.summary).toBe("1 thread · 1 running");
  });

  it("counts recovering threads in the summary, and a stale recovering one as stale", () => {
    const [group] = groupByRepo([
      thread({ session: "a-x-1", status: "recovering", recoveries: 1 }),
      thread({ session: "a-x-2", status: "running" }),
      thread({ session: "a-x-3", status: "recovering", stale: true }),
      thread({ session: "a-x-4", status: "recovering" })
    ]);
    expect(group!.summary).toBe("4 threads · 1 running · 2 recovering · 1 stale");
  });

  it("does not count cancelled threads as trouble in the summary", () => {
    const [group] = groupByRepo([thread({ session: "a-x-1", status: "cancelled" }), thread({ session: "a-x-2", status: "error" })]);
    expect(group!.summary).toBe("2 threads · 1 failed");
  });

  it("is empty for no threads", () => {
    expect(groupByRepo([])).toEqual([]);
  });
});

describe("mergeThreads", () => {
  it("keeps one copy per session, the latest activity winning, newest first", () => {
    const live = [thread({ session: "s1", lastActivityAt: NOW, status: "running" })];
    const page = [
      thread({ session: "s1", lastActivityAt: NOW - 60_000, status: "error" }),
      thread({ session: "s2", lastActivityAt: NOW - 30_000 })
    ];
    const merged = mergeThreads(live, page);
    expect(merged.map((t) => [t.session, t.status])).toEqual([
      ["s1", "running"],
      ["s2", "done"]
    ]);
  });

  it("prefers the earlier source on a tie and skips missing sources", () => {
    const a = thread({ session: "s1", status: "running" });
    const b = thread({ session: "s1", status: "error" });
    expect(mergeThreads(undefined, [a], [b])[0]!.status).toBe("running");
  });
});

describe("needsAttention and filterThreads", () => {
  const list = [
    thread({ session: "done-1" }),
    thread({ session: "failed-1", status: "error", lastActivityAt: NOW - 1_000 }),
    thread({ session: "stale-1", status: "running", stale: true, lastActivityAt: NOW - 50_000 }),
    thread({ session: "running-1", status: "running", repo: "other/repo", requestedBy: { login: "hubot" } }),
    thread({ session: "cancelled-1", status: "cancelled", lastActivityAt: NOW - 90_000 }),
    thread({ session: "recovering-1", status: "recovering", recoveries: 1, lastActivityAt: NOW - 70_000 })
  ];

  it("lists failed and stale threads, oldest first, plus the ones just continued; never a cancelled one", () => {
    expect(needsAttention(list).map((t) => t.session)).toEqual(["stale-1", "failed-1"]);
    expect(needsAttention(list, ["running-1", "unknown"]).map((t) => t.session)).toEqual(["stale-1", "failed-1", "running-1"]);
  });

  it("leaves a recovering thread to Think until it is stale", () => {
    expect(needsHuman(list[5]!)).toBe(false);
    const stale = thread({ session: "stale-recovering-1", status: "recovering", stale: true, lastActivityAt: NOW - 60_000 });
    expect(needsAttention([...list, stale]).map((t) => t.session)).toEqual(["stale-recovering-1", "stale-1", "failed-1"]);
  });

  it("lists a thread whose closing comment could not be posted, whatever its status, but not for a failed 🚀 or stale notice", () => {
    const unanswered = thread({ session: "unanswered-1", lastActivityAt: NOW - 20_000, issueMessages: { closing: { state: "failed", error: "GitHub comment: 404" } } });
    const noRocket = thread({ session: "no-rocket-1", issueMessages: { rocket: { state: "failed", error: "GitHub react rocket: 404" } } });
    const answered = thread({ session: "answered-1", issueMessages: { closing: { state: "sent", url: "https://github.com/x" } } });
    expect(needsAttention([...list, unanswered, noRocket, answered]).map((t) => t.session)).toEqual(["stale-1", "unanswered-1", "failed-1"]);
    expect(needsHuman(unanswered)).toBe(true);
    expect(needsHuman({ ...unanswered, status: "cancelled" })).toBe(true);
    expect(needsHuman(noRocket)).toBe(false);
    expect(needsHuman(answered)).toBe(false);
  });

  it("filters on repo, issue, requester and status label", () => {
    expect(filterThreads(list, "other/").map((t) => t.session)).toEqual(["running-1"]);
    expect(filterThreads(list, "@hubot".slice(1)).map((t) => t.session)).toEqual(["running-1"]);
    expect(filterThreads(list, "FAILED").map((t) => t.session)).toEqual(["failed-1"]);
    expect(filterThreads(list, "cancelled").map((t) => t.session)).toEqual(["cancelled-1"]);
    expect(filterThreads(list, "recovering").map((t) => t.session)).toEqual(["recovering-1"]);
    expect(filterThreads(list, "#1859")).toHaveLength(6);
    expect(filterThreads(list, "  ")).toHaveLength(6);
  });
});

describe("runningNow", () => {
  it("lists live running threads, the longest-running first, with how long", () => {
    const list = [
      thread({ session: "late", status: "running", startedAt: NOW - 60_000 }),
      thread({ session: "stale", status: "running", stale: true }),
      thread({ session: "early", status: "running", startedAt: NOW - 120_000 }),
      thread({ session: "done" })
    ];
    expect(runningNow(list).map((t) => t.session)).toEqual(["early", "late"]);
    expect(threadRowView(list[0]!, NOW).runningFor).toBe("1 min 00 s");
    expect(threadRowView(list[3]!, NOW).runningFor).toBeUndefined();
  });

  it("includes recovering threads (their run has not ended), but not stale ones", () => {
    const list = [
      thread({ session: "running", status: "running", startedAt: NOW - 60_000 }),
      thread({ session: "recovering", status: "recovering", recoveries: 1, startedAt: NOW - 90_000 }),
      thread({ session: "stale-recovering", status: "recovering", stale: true, startedAt: NOW - 300_000 })
    ];
    expect(runningNow(list).map((t) => t.session)).toEqual(["recovering", "running"]);
  });
});
