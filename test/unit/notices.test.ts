/**
 * What a run says on its issue: the closing message for each way a run can
 * end, the stale notice, and the markers that make each message findable.
 * How a run's ending is worked out is in ending.test.ts.
 */
import { describe, expect, it } from "vitest";
import { closingNotice, closingText, formatDuration, noticeMarker, rocketNotice, staleNotice } from "../../src/report/notices";

const run = { repo: "acme/app", issueNumber: 12, submissionId: "sub-1", threadUrl: "https://bot.test/thread/acme-app-12" };

describe("closing messages", () => {
  it("render a reproduce result with its link and steps, and a PR result with changes and verification", () => {
    const repro = closingText(
      { kind: "result", result: { outcome: "reproduced", summary: "Save throws.", steps: ["Open", "Click\nSave"], reproductionUrl: "https://r.test" } },
      run.threadUrl
    );
    expect(repro).toContain("### ✅ Reproduced\n\nSave throws.");
    expect(repro).toContain("**Reproduction:** https://r.test");
    expect(repro).toContain("1. Open\n2. Click Save");
    const pr = closingText(
      {
        kind: "result",
        result: { outcome: "pr-opened", summary: "Fixed.", pullRequestUrl: "https://p.test/1", changes: ["guard null"], verification: "tests pass" }
      },
      run.threadUrl
    );
    expect(pr).toContain("### 🛠️ Pull request opened");
    expect(pr).toContain("- guard null");
    expect(pr).toContain("**Verified:** tests pass");
  });

  it("say how a failed, interrupted, cancelled or budget-stopped run ended, each with the thread link", () => {
    const endings = [
      { kind: "failed", error: "model `down`" },
      { kind: "interrupted" },
      { kind: "cancelled", reason: "stopped by @a" },
      { kind: "budget", limit: { kind: "tokens", used: 1500, budget: 1000 } }
    ] as const;
    for (const ending of endings) expect(closingText(ending, run.threadUrl)).toContain(`(${run.threadUrl})`);
    expect(closingText(endings[0], run.threadUrl)).toContain("Last error: `` model `down` ``");
    expect(closingText(endings[3], run.threadUrl)).toContain("(1,500 of 1,000 tokens)");
  });

  it("drop HTML comments from model text, so it cannot forge a marker", () => {
    expect(closingText({ kind: "finished", text: "ok", reproductionUrl: "https://bot.test/repro/ab/" }, run.threadUrl)).toContain(
      "**Reproduction:** https://bot.test/repro/ab/"
    );
    const text = closingText({ kind: "finished", text: `ok <!-- agent-think:other:closing --> done` }, run.threadUrl);
    expect(text).not.toContain("<!--");
  });

  it("carry one marker keyed by submission and kind", () => {
    const notice = closingNotice(run, { kind: "interrupted" });
    expect(notice).toMatchObject({ id: "sub-1:closing", kind: "closing", repo: "acme/app", issueNumber: 12 });
    expect(notice.body!.startsWith(`${noticeMarker("sub-1:closing")}\n`)).toBe(true);
    expect(staleNotice(run, 600_000).body).toContain("for 10 minutes");
    expect(rocketNotice(run, 99)).toEqual({ id: "sub-1:rocket", kind: "rocket", submissionId: "sub-1", repo: "acme/app", issueNumber: 12, commentId: 99 });
  });

  it("formats durations in minutes, or seconds under a minute", () => {
    expect(formatDuration(60_000)).toBe("1 minute");
    expect(formatDuration(300)).toBe("1 second");
    expect(formatDuration(45_000)).toBe("45 seconds");
  });
});
