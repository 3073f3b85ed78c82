import { describe, expect, it } from "vitest";
import { formatRunMessage, type RunEnvelope } from "../../../src/run/envelope";
import type { RunSummary } from "../../../src/shared/command-center";
import type { TranscriptMessage } from "../../../src/shared/dispatch";
import { headerStatus, runViews, SCRIPTED_LABEL, splitRuns, threadCostView } from "../../../src/ui/view-models/runs";
import { threadStatusView } from "../../../src/ui/view-models/thread";
import { transcriptItems } from "../../../src/ui/view-models/transcript";
import { envelope as baseEnvelope, NOW, thread } from "./fixtures";

/** The shared envelope, half an hour before NOW. */
const envelope = (overrides: Partial<RunEnvelope> = {}): RunEnvelope => baseEnvelope({ submittedAt: new Date(NOW - 30 * 60_000).toISOString(), ...overrides });
const user = (id: string, env: RunEnvelope): TranscriptMessage => ({ id, role: "user", parts: [{ type: "text", text: formatRunMessage(env) }] });
const say = (id: string, text: string, tools = 0): TranscriptMessage => ({
  id,
  role: "assistant",
  parts: [
    ...Array.from({ length: tools }, (_, n) => ({ type: "tool-bash", toolCallId: `${id}-t${n}`, state: "output-available", input: { command: "ls" }, output: { exitCode: 0 } })),
    { type: "text", text, state: "done" }
  ]
});

const messages: TranscriptMessage[] = [
  user("u1", envelope()),
  say("a1", "first try", 2),
  user("u2", envelope({ continuationOf: "sub-1", submittedAt: new Date(NOW - 10 * 60_000).toISOString() })),
  say("a2", "second try", 1),
  user("u3", envelope({ continuationOf: "sub-2", submittedAt: new Date(NOW - 60_000).toISOString() })),
  say("a3", "third try")
];

// Newest first, as the API lists them.
const runs: RunSummary[] = [
  { submissionId: "sub-3", status: "done", dispatchedAt: NOW - 60_000, endedAt: NOW - 20_000, toolCalls: 0, cost: { usd: 0.1, complete: true }, continuedBy: "ops@example.com", scripted: true },
  { submissionId: "sub-2", status: "error", dispatchedAt: NOW - 600_000, endedAt: NOW - 590_000, toolCalls: 1, error: "still broken", continuedBy: "local operator" },
  { submissionId: "sub-1", status: "error", dispatchedAt: NOW - 1_800_000, endedAt: NOW - 1_790_000, toolCalls: 2, error: "fell over", cost: { usd: 0.32, complete: false } }
];

const idle = { streaming: false, turnError: null, recovering: false, hasMessages: true };

describe("splitRuns", () => {
  it("cuts the transcript at each run's envelope, oldest first", () => {
    const split = splitRuns(transcriptItems(messages));
    expect(split.map((run) => [run.marker?.runNumber, run.items.map((item) => item.kind)])).toEqual([
      [1, ["tool", "tool", "text"]],
      [2, ["tool", "text"]],
      [3, ["text"]]
    ]);
  });

  it("gives messages before any envelope to the first run, and a transcript without envelopes one unnamed run", () => {
    const plain: TranscriptMessage = { id: "p", role: "user", parts: [{ type: "text", text: "hello" }] };
    expect(splitRuns(transcriptItems([plain, ...messages.slice(0, 2)]))[0]!.items.map((item) => item.kind)).toEqual(["user", "tool", "tool", "text"]);
    const unnamed = splitRuns(transcriptItems([plain, say("a", "hi")]));
    expect(unnamed).toHaveLength(1);
    expect(unnamed[0]!.marker).toBeUndefined();
    expect(splitRuns([])).toEqual([]);
  });
});

describe("runViews", () => {
  const summary = thread({ status: "done", submissionId: "sub-3", runCount: 3, continuedBy: "ops@example.com", cost: { usd: 0.42, complete: false } });
  const header = threadStatusView(summary, idle);
  const views = runViews({ items: transcriptItems(messages), runs, thread: summary, header, now: NOW });

  it("puts the latest run first, open, with the header's status; older runs after it, newest first", () => {
    expect(views.map((view) => [view.number, view.latest, view.status, view.submissionId])).toEqual([
      [3, true, "done", "sub-3"],
      [2, false, "error", "sub-2"],
      [1, false, "error", "sub-1"]
    ]);
    expect(views[0]).toMatchObject({ label: header.label, tone: header.tone });
  });

  it("gives each run its cost, who asked or continued it, and whether it was scripted", () => {
    expect(views[0]).toMatchObject({ cost: { text: "$0.10" }, who: "continued by ops@example.com from the dashboard", scripted: true });
    expect(views[1]).toMatchObject({ cost: { text: "unknown", kind: "unknown" }, who: "continued by local operator from the dashboard", error: "still broken" });
    expect(views[2]).toMatchObject({ cost: { text: "≥ $0.32", kind: "floor" }, who: "@octocat asked", scripted: false, error: "fell over" });
    expect(SCRIPTED_LABEL).toBe("scripted demonstration — no model ran");
  });

  it("sums an older run up in one line: outcome, cost, tool calls, when it ended", () => {
    expect(views[1]!.line).toBe("failed · unknown · 1 tool call · ended 9 min ago");
    expect(views[2]!.line).toBe("failed · ≥ $0.32 · 2 tool calls · ended 29 min ago");
    // With the outcome it reported, after its status.
    const reported = runViews({ items: transcriptItems(messages), runs: [runs[0]!, { ...runs[1]!, status: "done", outcome: "not-reproduced" }, runs[2]!], thread: summary, header, now: NOW });
    expect(reported[1]!.line).toBe("done · not reproduced · unknown · 1 tool call · ended 9 min ago");
    expect(reported[1]!.outcome).toBe("not reproduced");
    // The outcomes a maintainer triages by, in their words.
    const triaged = runViews({
      items: transcriptItems(messages),
      runs: [{ ...runs[0]!, outcome: "answered" }, { ...runs[1]!, status: "done", outcome: "not-a-bug" }, { ...runs[2]!, status: "done", outcome: "fixed-upstream" }],
      thread: summary,
      header,
      now: NOW
    });
    expect(triaged.map((view) => view.outcome)).toEqual(["answered", "not a bug", "fixed upstream"]);
    expect(triaged[1]!.line).toBe("done · not a bug · unknown · 1 tool call · ended 9 min ago");
    // A pull request's proof is a tag of its own; a run that needed none has none.
    const proofs = runViews({
      items: transcriptItems(messages),
      runs: [{ ...runs[0]!, outcome: "pr-opened", proven: true }, { ...runs[1]!, status: "done", outcome: "pr-unproven", proven: false }, runs[2]!],
      thread: summary,
      header,
      now: NOW
    });
    expect(proofs.map((view) => view.proof)).toEqual(["proven", "not proven", undefined]);
    expect(proofs[1]!.outcome).toBe("pull request not proven");
    expect(views[2]!.items.map((item) => item.kind)).toEqual(["tool", "tool", "text"]);
  });

  it("says what the egress gateway refused each run that had requests refused", () => {
    const blocked = [
      { host: "api.github.com", method: "POST", count: 3 },
      { host: "evil.example", method: "GET", count: 1 }
    ];
    const refused = runViews({ items: transcriptItems(messages), runs: [{ ...runs[0]!, blocked }, runs[1]!, { ...runs[2]!, blocked: [blocked[1]!] }], thread: summary, header, now: NOW });
    expect(refused[0]!.blocked).toEqual({
      text: "4 requests blocked: api.github.com, evil.example",
      total: 4,
      entries: [
        { key: "0:POST api.github.com", text: "POST api.github.com × 3" },
        { key: "1:GET evil.example", text: "GET evil.example × 1" }
      ]
    });
    expect(refused[1]!.blocked).toBeUndefined();
    expect(refused[2]!.blocked?.text).toBe("1 request blocked: evil.example");
    expect(views.every((view) => view.blocked === undefined)).toBe(true);
  });

  it("names the private registries each run that used one was given a credential for", () => {
    const used = runViews({
      items: transcriptItems(messages),
      runs: [{ ...runs[0]!, privateSources: ["maven.acme.example", "npm.acme.example"] }, runs[1]!, { ...runs[2]!, privateSources: ["npm.acme.example"] }],
      thread: summary,
      header,
      now: NOW
    });
    expect(used[0]!.privateSources).toEqual({ text: "private sources: maven.acme.example, npm.acme.example", hosts: ["maven.acme.example", "npm.acme.example"], more: false });
    expect(used[1]!.privateSources).toBeUndefined();
    expect(used[2]!.privateSources?.text).toBe("private source: npm.acme.example");
    expect(views.every((view) => view.privateSources === undefined)).toBe(true);
  });

  it("shows a run the transcript has not got yet (queued), and one the command center has not listed yet", () => {
    const queued: RunSummary = { submissionId: "sub-4", status: "queued", dispatchedAt: NOW - 1_000, toolCalls: 0 };
    const running = thread({ status: "running", submissionId: "sub-4", durationMs: undefined });
    const status = headerStatus(threadStatusView(running, { ...idle }), queued, running, false);
    expect(status).toMatchObject({ status: "queued", label: "queued" });
    const ahead = runViews({ items: transcriptItems(messages), runs: [queued, ...runs], thread: running, header: status, now: NOW });
    expect(ahead[0]).toMatchObject({ number: 4, latest: true, status: "queued", label: "queued", items: [] });
    expect(ahead[0]!.cost).toBeUndefined();
    // The transcript ahead of the detail: the newest run takes the header's status, with no cost yet.
    const behind = runViews({ items: transcriptItems(messages), runs: runs.slice(1), thread: thread({ status: "running", submissionId: "sub-3" }), header: threadStatusView(thread({ status: "running" }), idle), now: NOW });
    expect(behind.map((view) => [view.number, view.status])).toEqual([
      [3, "running"],
      [2, "error"],
      [1, "error"]
    ]);
    expect(behind[0]!.cost).toBeUndefined();
  });

  it("goes by the transcript alone without a detail: the latest with the header's status, older ones without one", () => {
    const alone = runViews({ items: transcriptItems(messages), runs: null, thread: undefined, header: threadStatusView(undefined, idle), now: NOW });
    expect(alone.map((view) => [view.number, view.status, view.label])).toEqual([
      [3, "unknown", ""],
      [2, "unknown", ""],
      [1, "unknown", ""]
    ]);
    expect(alone[0]!.who).toBe("continued from the dashboard");
    expect(alone[2]!.line).toBe("2 tool calls · 30 min ago");
  });

  it("says a run continued from GitHub was, by whom, linking the comment; a dashboard's keeps its own words", () => {
    const commentUrl = "https://github.com/octo/widgets/issues/7#issuecomment-99";
    const fromGitHub: RunSummary = { ...runs[0]!, continuedBy: undefined, continuedFromGitHub: { login: "alice", commentUrl } };
    const viewed = runViews({ items: transcriptItems(messages), runs: [fromGitHub, runs[1]!, runs[2]!], thread: summary, header, now: NOW });
    expect(viewed[0]).toMatchObject({ who: "continued from GitHub by @alice", whoUrl: commentUrl, continuedFromGitHub: "continued from GitHub by @alice" });
    expect(viewed[0]!.continuedBy).toBeUndefined();
    expect(viewed[1]).toMatchObject({ who: "continued by local operator from the dashboard", continuedBy: "local operator" });
    expect(viewed[1]!.whoUrl).toBeUndefined();
    expect(viewed[1]!.continuedFromGitHub).toBeUndefined();

    // An older run says it on its one line too; one with no login (a local dispatch) says only where it came from.
    const older = runViews({
      items: transcriptItems(messages),
      runs: [runs[0]!, { ...runs[1]!, continuedBy: undefined, continuedFromGitHub: {} }, runs[2]!],
      thread: summary,
      header,
      now: NOW
    });
    expect(older[1]).toMatchObject({ who: "continued from GitHub", continuedFromGitHub: "continued from GitHub" });

    // The current run before the command center lists it: the thread's record says where it came from.
    const thread3 = thread({ status: "running", submissionId: "sub-3", continuedFromGitHub: { login: "alice", commentUrl } });
    const ahead = runViews({ items: transcriptItems(messages), runs: runs.slice(1), thread: thread3, header: threadStatusView(thread3, idle), now: NOW });
    expect(ahead[0]).toMatchObject({ number: 3, who: "continued from GitHub by @alice", whoUrl: commentUrl });
  });
});

describe("headerStatus", () => {
  const queued: RunSummary = { submissionId: "sub-9", status: "queued", toolCalls: 0 };
  const running = thread({ status: "running", submissionId: "sub-9", durationMs: undefined });
  it("says queued only while the current run waits and nothing streams", () => {
    const view = threadStatusView(running, idle);
    expect(headerStatus(view, queued, running, false).status).toBe("queued");
    expect(headerStatus(view, queued, running, true).status).toBe("running");
    expect(headerStatus(view, { ...queued, status: "running" }, running, false).status).toBe("running");
    expect(headerStatus(view, { ...queued, submissionId: "sub-8" }, running, false).status).toBe("running");
    const failed = threadStatusView(thread({ status: "error" }), idle);
    expect(headerStatus(failed, queued, running, false)).toBe(failed);
  });
});

describe("threadCostView", () => {
  it("shows the thread's total and, with several runs, the latest run's beside it", () => {
    expect(threadCostView(thread({ cost: { usd: 0.42, complete: true }, runCount: 2 }), runs)).toEqual({
      total: { text: "$0.42", kind: "complete" },
      latest: { text: "$0.10", kind: "complete" }
    });
    expect(threadCostView(thread({ cost: { usd: 0.42, complete: true } }), [runs[0]!])).toEqual({ total: { text: "$0.42", kind: "complete" } });
  });

  it("calls an ended thread without a cost unknown, and leaves a first run still going without one", () => {
    expect(threadCostView(thread({ status: "done" }), null)?.total.text).toBe("unknown");
    expect(threadCostView(thread({ status: "running" }), [{ submissionId: "s", status: "running", toolCalls: 0 }])).toBeNull();
    expect(threadCostView(undefined, null)).toBeNull();
  });
});
