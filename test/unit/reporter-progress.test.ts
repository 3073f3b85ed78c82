/**
 * The reporter's side of the progress comment, over a GitHub a stub fetch
 * plays: `revise` keeps one edit entry whose body each change replaces
 * (nothing for a run with no progress comment, or one GitHub refused), the
 * edits are PATCHes of the created comment's id, the first at once and the
 * next after the throttle; `finishProgress` drops a waiting edit and sends
 * the pointer once the closing comment is posted, after which a change
 * edits nothing; none of it reaches the command center.
 */
import { describe, expect, it } from "vitest";
import { memoryClonedStorage } from "./memory-storage";
import { closingNotice } from "../../src/report/notices";
import { noticeEvent } from "../../src/report/notice-event";
import { progressEditNotice, progressFinalNotice, progressNotice } from "../../src/report/progress";
import { Reporter } from "../../src/report/reporter";

const run = { repo: "acme/app", issueNumber: 3, submissionId: "s1", threadUrl: "https://bot.test/thread/acme-app-3" };


function setup(statusForPost = 201) {
  const requests: Array<{ method: string; path: string; body: string }> = [];
  let id = 100;
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { body?: string }).body ?? "" : "";
    requests.push({ method: init?.method ?? "GET", path: url.pathname, body });
    if (init?.method === "POST" && statusForPost >= 400) return new Response(JSON.stringify({ message: "no" }), { status: statusForPost, headers: { "content-type": "application/json" } });
    const commentId = init?.method === "PATCH" ? Number(url.pathname.split("/").pop()) : ++id;
    return new Response(JSON.stringify({ id: commentId, html_url: `https://gh.test/c/${commentId}` }), { status: init?.method === "PATCH" ? 200 : 201, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  let now = 1_000;
  const settled: string[] = [];
  const retries: number[] = [];
  const reporter = new Reporter({
    storage: memoryClonedStorage(),
    apiUrl: () => "https://api.gh.test",
    token: async () => "ghs_x",
    botLogin: async () => "agent-think[bot]",
    scheduleDelivery: async (inMs) => void retries.push(inMs),
    waitUntil: () => {},
    log: () => {},
    onSettled: (entry) => void settled.push(`${entry.kind}:${noticeEvent("s", entry, { now: 0 }) ? "event" : "none"}`),
    now: () => now,
    fetch
  });
  const edits = () => requests.filter((request) => request.method === "PATCH");
  return { reporter, requests, edits, settled, retries, tick: (ms: number) => void (now += ms) };
}

describe("Reporter: the progress comment", () => {
  it("creates no progress comment for a run that already ended (cancelled while it was being prepared), and owes it nothing", async () => {
    const { reporter, requests } = setup();
    await reporter.post(closingNotice(run, { kind: "cancelled", reason: "stopped by @alice" }));
    await reporter.deliverPending();
    await reporter.startProgress(progressNotice(run, "start"));
    await reporter.deliverPending();
    expect(requests.filter((request) => request.method === "POST")).toHaveLength(1);
    expect(await reporter.owesEnding(run.submissionId)).toBe(false);
  });

  it("edits the created comment at once, then coalesces changes within the throttle into one edit with the latest text", async () => {
    const { reporter, edits, retries, tick } = setup();
    await reporter.enqueue(progressNotice(run, "start"));
    await reporter.deliverPending();
    await reporter.revise(progressEditNotice(run, "one", 10_000));
    await reporter.deliverPending();
    expect(edits().map((edit) => [edit.path, edit.body.split("\n")[1]])).toEqual([["/repos/acme/app/issues/comments/101", "one"]]);
    await reporter.revise(progressEditNotice(run, "two", 10_000));
    await reporter.revise(progressEditNotice(run, "three", 10_000));
    await reporter.deliverPending();
    expect(edits()).toHaveLength(1);
    expect(retries.at(-1)).toBe(10_000);
    tick(10_000);
    await reporter.deliverPending();
    expect(edits().map((edit) => edit.body.split("\n")[1])).toEqual(["one", "three"]);
  });

  it("keeps nothing for a run without a progress comment, nor for one GitHub refused", async () => {
    const none = setup();
    await none.reporter.revise(progressEditNotice(run, "one", 0));
    expect(await none.reporter.entries()).toEqual([]);
    const refused = setup(404);
    await refused.reporter.enqueue(progressNotice(run, "start"));
    await refused.reporter.deliverPending();
    await refused.reporter.revise(progressEditNotice(run, "one", 0));
    expect((await refused.reporter.entries()).map((entry) => [entry.kind, entry.state])).toEqual([["progress", "failed"]]);
  });

  it("drops a waiting edit at the end, points to the closing comment once posted, and edits nothing after; the center hears only the closing comment", async () => {
    const { reporter, edits, requests, settled } = setup();
    await reporter.enqueue(progressNotice(run, "start"));
    await reporter.deliverPending();
    await reporter.revise(progressEditNotice(run, "one", 60_000));
    await reporter.deliverPending();
    await reporter.revise(progressEditNotice(run, "two", 60_000));
    await reporter.enqueue(closingNotice(run, { kind: "interrupted" }));
    await reporter.finishProgress(progressFinalNotice(run));
    await reporter.deliverPending();
    expect(requests.filter((request) => request.method === "POST").map((request) => request.path)).toEqual(["/repos/acme/app/issues/3/comments", "/repos/acme/app/issues/3/comments"]);
    expect(edits().map((edit) => edit.body.split("\n")[1])).toEqual(["one", "✔️ **agent-think finished.** See the result below: [the result comment](https://gh.test/c/102)."]);
    expect((await reporter.entries()).find((entry) => entry.kind === "progress-edit")?.state).toBe("dropped");
    await reporter.revise(progressEditNotice(run, "late", 0));
    await reporter.deliverPending();
    expect(edits()).toHaveLength(2);
    expect(settled.filter((line) => line.endsWith(":event"))).toEqual(["closing:event"]);
  });
});
