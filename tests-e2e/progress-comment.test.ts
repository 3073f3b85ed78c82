/**
 * The live progress comment as a maintainer sees it on GitHub: a real
 * `wrangler dev` (behind Access, the scripted model) posts to the recording
 * GitHub stand-in; the comment's bodies as the stand-in recorded them (its
 * creation, an edit mid-run, its last edit) are rendered as GitHub-flavoured
 * Markdown (marked, GFM task lists) and loaded in Debian's Chromium, which
 * shows the checklist boxes checked and unchecked, the current step, the
 * live thread's link and, at the end, the link to the closing comment.
 * Screenshots land in test-results/screenshots/.
 */
import { marked } from "marked";
import { describe, expect } from "vitest";
import type { StandinRecord } from "../scripts/lib/github-standin";
import { freshIssueNumber, waitForSubmission } from "./dev-api";
import { SHOTS, useChromium } from "./support/browser";
import { dispatchRun, standinRecords, standinRefusals, test, waitForClosingComment } from "./support/reporting-server";

const browser = useChromium();

/** The dev Worker's throttle (PROGRESS_EDIT_INTERVAL_MS) is 10 s: the run waits past one window so an edit with its plan lands mid-run. */
const INSTRUCTION = [
  "TEST: run echo getting ready",
  `TEST: plan ${JSON.stringify({
    steps: [
      { text: "Read the issue", status: "done" },
      { text: "Reproduce the bug", status: "in_progress" },
      { text: "Report the result", status: "pending" }
    ]
  })}`,
  "TEST: sleep 11000",
  "TEST: run echo reproduced",
  "TEST: result reproduced The progress comment showed it live.",
  "TEST: reply done"
].join("\n");

const FINAL_TIMEOUT_MS = 20_000;

/** GitHub's rendering of a comment body, as a page. */
function page(body: string): string {
  return `<!doctype html><meta charset="utf-8"><title>comment</title><body><article class="comment">${marked.parse(body, { gfm: true, async: false })}</article></body>`;
}

const bodyOf = (record: StandinRecord) => String((record.body as { body?: unknown } | undefined)?.body ?? "");

describe("the progress comment", () => {
  test("renders as GitHub would: a checklist ticked as the run goes, the current step, the thread link, and at the end the pointer", async ({
    reportingServer: server
  }) => {
    const issueNumber = freshIssueNumber();
    const run = await dispatchRun(server, { repo: "acme/progress", issueNumber, commentId: freshIssueNumber(), instruction: INSTRUCTION });
    const settled = await waitForSubmission(server.url, run, { credentials: await server.jwtHeader() });
    expect(settled.submission.status, server.output()).toBe("completed");
    await waitForClosingComment(server.github, run.submissionId);

    // The progress comment: created by a POST, then edited by PATCHes of its id until its pointer.
    const marker = `<!-- agent-think:${run.submissionId}:progress -->`;
    const deadline = Date.now() + FINAL_TIMEOUT_MS;
    let records = await standinRecords(server.github);
    const ofProgress = () => records.filter((record) => bodyOf(record).includes(marker));
    while (!ofProgress().some((record) => record.method === "PATCH" && bodyOf(record).includes("See the result below")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      records = await standinRecords(server.github);
    }
    const progress = ofProgress();
    const created = progress.filter((record) => record.method === "POST");
    expect(created, JSON.stringify(progress.map((record) => `${record.method} ${record.path}`))).toHaveLength(1);
    const edits = progress.filter((record) => record.method === "PATCH");
    const final = edits.at(-1)!;
    expect(bodyOf(final)).toContain("See the result below");
    const midRun = edits.slice(0, -1).findLast((record) => bodyOf(record).includes("- [x]"));
    expect(midRun, JSON.stringify(edits.map(bodyOf))).toBeDefined();
    // The issue as GitHub lists it: the progress comment, then the closing comment below it; every edit was of the first.
    const listed = (await (await fetch(`${server.github.url}/repos/acme/progress/issues/${issueNumber}/comments`, { headers: { authorization: "token anything" } })).json()) as Array<{
      id: number;
      body: string;
      html_url: string;
    }>;
    expect(listed.map((comment) => (comment.body.includes(marker) ? "progress" : comment.body.includes(":closing -->") ? "closing" : "other"))).toEqual(["progress", "closing"]);
    expect(new Set(edits.map((record) => record.path))).toEqual(new Set([`/repos/acme/progress/issues/comments/${listed[0]!.id}`]));
    expect(await standinRefusals(server.github)).toEqual([]);

    const context = await browser().newContext({ viewport: { width: 800, height: 420 } });
    const tab = await context.newPage();
    const threadUrl = `${server.url}/thread/${run.session}`;

    // At the start: working, the thread linked, no plan yet.
    await tab.setContent(page(bodyOf(created[0]!)));
    await expect.poll(() => tab.locator("article").innerText()).toContain("agent-think is working on this.");
    expect(await tab.locator(`a[href="${threadUrl}"]`).innerText()).toBe("Follow it live");
    expect(await tab.locator("input[type=checkbox]").count()).toBe(0);
    await tab.screenshot({ path: `${SHOTS}/progress-start.png` });

    // Mid-run: the plan as checkboxes, one checked; what it is doing now.
    await tab.setContent(page(bodyOf(midRun!)));
    const boxes = tab.locator("li:has(input[type=checkbox])");
    expect(await boxes.count()).toBe(3);
    expect(await tab.locator("input[type=checkbox]:checked").count()).toBe(1);
    expect(await boxes.nth(0).locator("input").isChecked()).toBe(true);
    expect(await boxes.nth(0).innerText()).toContain("Read the issue");
    expect(await boxes.nth(1).locator("input").isChecked()).toBe(false);
    expect(await boxes.nth(1).innerText()).toContain("Reproduce the bug");
    expect(await boxes.nth(1).locator("strong").innerText()).toBe("Reproduce the bug");
    expect(await boxes.nth(2).locator("input").isChecked()).toBe(false);
    const now = tab.locator("p", { hasText: "Now:" });
    expect(await now.innerText()).toMatch(/Now: Running echo (getting ready|reproduced) in the shell\./);
    expect(await now.locator("code").innerText()).toMatch(/^echo /);
    expect(await tab.locator(`a[href="${threadUrl}"]`).count()).toBe(1);
    await tab.screenshot({ path: `${SHOTS}/progress-mid-run.png` });

    // At the end: a pointer to the closing comment, nothing left of the checklist.
    await tab.setContent(page(bodyOf(final)));
    expect(await tab.locator("article").innerText()).toContain("agent-think finished.");
    const pointer = tab.locator("a", { hasText: "the result comment" });
    expect(await pointer.count()).toBe(1);
    expect(await pointer.getAttribute("href")).toBe(listed[1]!.html_url);
    expect(await tab.locator("input[type=checkbox]").count()).toBe(0);
    await tab.screenshot({ path: `${SHOTS}/progress-end.png` });
    await context.close();
  });
});
