/**
 * The progress comment, pure: its text (the plan as a GitHub task list, the
 * current step in words, elapsed time and cost, the thread and the
 * reproduction; model text neutralized), the tool activity in words, and
 * its delivery through the outbox: the first edit at once, later ones held
 * by the throttle and coalesced to the latest body, the pointer to the
 * closing comment only once that settled, and nothing after the end.
 */
import { marked } from "marked";
import { describe, expect, it } from "vitest";
import { memoryClonedStorage } from "./memory-storage";
import type { GitHubClient } from "../../src/github/client";
import { closingNotice, noticeId } from "../../src/report/notices";
import { deliver, Outbox, type DeliveryClient, type OutboxEntry } from "../../src/report/outbox";
import {
  describeActivity,
  planSchema,
  progressEditNotice,
  progressFinalNotice,
  progressNotice,
  progressPointerText,
  progressText,
  type ProgressState
} from "../../src/report/progress";

const run = {
  repo: "acme/app",
  issueNumber: 3,
  submissionId: "s1",
  threadUrl: "https://bot.test/thread/acme-app-3",
  publicBaseUrl: "https://bot.test",
  githubWebUrl: "https://github.com"
};

const state: ProgressState = {
  startedAt: 0,
  enabled: true,
  plan: [
    { text: "Reproduce the bug", status: "done" },
    { text: "Write a failing test", status: "in_progress" },
    { text: "Fix it", status: "pending" }
  ],
  now: describeActivity("bash", { command: "npm test", backend: "container" })!,
  reproductionUrl: "https://bot.test/repro/abc/"
};


function fakeClient() {
  const calls: string[] = [];
  const client: GitHubClient & Required<Pick<DeliveryClient, "editComment" | "reactToReviewComment">> = {
    async react(_repo, id, content) {
      calls.push(`react ${id} ${content}`);
    },
    async comment(_repo, _issue, body) {
      calls.push(`comment ${body.includes(":progress") ? "progress" : "closing"}`);
      return { id: body.includes(":progress") ? 11 : 12, url: `https://github.com/acme/app/issues/3#issuecomment-${body.includes(":progress") ? 11 : 12}` };
    },
    async findComment() {
      return null;
    },
    async editComment(_repo, id, body) {
      calls.push(`edit ${id} ${body.split("\n")[1]}`);
    },
    async reactToReviewComment(_repo, id, content) {
      calls.push(`review-react ${id} ${content}`);
    }
  };
  return { client, calls };
}

describe("the progress comment's text", () => {
  it("renders as a GitHub task list with the current step, the time and cost, the thread and the reproduction", () => {
    const text = progressText(state, run, { at: 125_000, cost: { usd: 0.42, complete: true } });
    expect(text).toContain("2 minutes in · cost so far $0.42");
    expect(text).toContain("- [x] Reproduce the bug\n- [ ] **Write a failing test** _(in progress)_\n- [ ] Fix it");
    expect(text).toContain("**Now:** Running `npm test` in the container.");
    expect(text).toContain("**Reproduction:** https://bot.test/repro/abc/");
    expect(text).toContain("[Follow it live](https://bot.test/thread/acme-app-3)");
    const html = marked.parse(text, { gfm: true, async: false });
    expect(html.match(/<input checked="" disabled="" type="checkbox">/g)).toHaveLength(1);
    expect(html.match(/<input disabled="" type="checkbox">/g)).toHaveLength(2);
  });

  it("shows no cost before one is known, never $0.00 for unknown", () => {
    expect(progressText({ ...state, plan: [] }, run, { at: 1_000 })).not.toContain("cost");
    expect(progressText(state, run, { at: 1_000, cost: { usd: 0.1, complete: false } })).toContain("cost so far ≥ $0.10");
  });

  it("neutralizes a plan step: no mention, no cross-reference, no link outside our pages, no forged marker, no fake box", () => {
    const hostile = {
      ...state,
      plan: [{ text: "[x] Ask @alice and other/repo#1 about [this](https://evil.example/x) <!-- agent-think:s2:closing -->", status: "pending" as const }]
    };
    const text = progressText(hostile, run, { at: 0 });
    const html = marked.parse(text, { gfm: true, async: false });
    expect(html).not.toMatch(/href="https:\/\/evil/);
    expect(text).toContain("`@alice`");
    expect(text).toContain("`other/repo#1`");
    expect(text).not.toContain("agent-think:s2");
    expect(html.match(/type="checkbox"/g)).toHaveLength(1);
    expect(html).not.toMatch(/checked/);
  });

  it("links a reproduction only under our pages", () => {
    expect(progressText({ ...state, reproductionUrl: "https://evil.example/r" }, run, { at: 0 })).not.toContain("evil.example");
  });

  it("says each tool call in words, commands and paths as code, and nothing for update_plan", () => {
    expect(describeActivity("bash", { command: "ls", backend: "shell" })).toBe("Running `ls` in the shell.");
    expect(describeActivity("edit", { path: "src/a.ts" })).toBe("Editing `src/a.ts`.");
    expect(describeActivity("activate_skill", { name: "reproduce" })).toBe("Following the `reproduce` skill.");
    expect(describeActivity("update_plan", { steps: [] })).toBeNull();
    expect(describeActivity("open_pull_request", { title: "Fix", body: "Fixes #7" })).toBe("Opening the pull request.");
    expect(describeActivity("open_pull_request", { title: "Fix", body: "Fixes #7", check: "npm run repro" })).toBe(
      "Re-running the reproduction's check `npm run repro` on the base and on the head, then opening the pull request."
    );
    expect(describeActivity("bash", { command: "x".repeat(500) })!.length).toBeLessThan(160);
  });

  it("bounds the plan: 20 steps of 200 characters, three statuses", () => {
    expect(planSchema.safeParse({ steps: Array.from({ length: 21 }, () => ({ text: "a", status: "pending" })) }).success).toBe(false);
    expect(planSchema.safeParse({ steps: [{ text: "a".repeat(201), status: "pending" }] }).success).toBe(false);
    expect(planSchema.safeParse({ steps: [{ text: "a", status: "blocked" }] }).success).toBe(false);
    expect(planSchema.safeParse({ steps: [{ text: "a", status: "in_progress" }] }).success).toBe(true);
  });

  it("ends as a pointer to the closing comment, or to the thread when that could not be posted", () => {
    expect(progressPointerText("https://github.com/acme/app/issues/3#issuecomment-12", run.threadUrl)).toContain(
      "See the result below: [the result comment](https://github.com/acme/app/issues/3#issuecomment-12)."
    );
    expect(progressPointerText(undefined, run.threadUrl)).toContain("[the run's thread](https://bot.test/thread/acme-app-3)");
  });
});

describe("the progress comment's delivery", () => {
  async function setup() {
    const outbox = new Outbox(memoryClonedStorage());
    const { client, calls } = fakeClient();
    let now = 1_000;
    const deps = { outbox, client, now: () => now };
    const pass = async () => {
      const results = [];
      for (const entry of await outbox.pending()) results.push(await deliver(entry, deps));
      return results;
    };
    const revise = async (text: string) => {
      const notice = progressEditNotice(run, text, 10_000);
      const existing = await outbox.get(notice.id);
      const entry: OutboxEntry = { ...(existing ?? { attempts: 0, createdAt: now }), ...notice, state: "pending", attempts: 0, revision: (existing?.revision ?? 0) + 1 };
      await outbox.put(entry);
    };
    return { outbox, calls, pass, revise, tick: (ms: number) => void (now += ms) };
  }

  it("edits at once the first time, then at most once a window, with the latest text", async () => {
    const { outbox, calls, pass, revise, tick } = await setup();
    await outbox.add(progressNotice(run, "start"), 1_000);
    await revise("one");
    await pass();
    expect(calls).toEqual(["comment progress", "edit 11 one"]);
    await revise("two");
    await revise("three");
    const [held] = await pass();
    expect(held).toMatchObject({ outcome: "waiting", inMs: 10_000 });
    tick(10_000);
    await pass();
    expect(calls).toEqual(["comment progress", "edit 11 one", "edit 11 three"]);
  });

  it("waits for the comment it edits, and gives up when that was never posted", async () => {
    const { outbox, revise, pass } = await setup();
    await revise("orphan");
    const [result] = await pass();
    expect(result).toMatchObject({ outcome: "failed", entry: { lastError: "the progress comment was not posted" } });
    expect((await outbox.get(noticeId("s1", "progress-edit")))?.state).toBe("failed");
  });

  it("points to the closing comment once it settled, drops an edit queued after the end, and edits nothing more", async () => {
    const { outbox, calls, pass, revise } = await setup();
    await outbox.add(progressNotice(run, "start"), 1_000);
    await pass();
    await outbox.add(closingNotice(run, { kind: "interrupted" }), 2_000);
    await outbox.add(progressFinalNotice(run), 3_000);
    await revise("late");
    await pass();
    expect(calls).toEqual(["comment progress", "comment closing", "edit 11 ✔️ **agent-think finished.** See the result below: [the result comment](https://github.com/acme/app/issues/3#issuecomment-12)."]);
    expect((await outbox.get(noticeId("s1", "progress-edit")))?.state).toBe("dropped");
    await pass();
    expect(calls).toHaveLength(3);
  });

  it("puts 🚀 on a review comment through the review-comment reactions", async () => {
    const { outbox, calls, pass } = await setup();
    const { rocketNotice } = await import("../../src/report/notices");
    await outbox.add(rocketNotice(run, { reviewCommentId: 99 }), 1_000);
    await pass();
    expect(calls).toEqual(["review-react 99 rocket"]);
  });
});
