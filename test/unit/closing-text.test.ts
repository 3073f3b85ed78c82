/**
 * What the closing comment says for each way a run can end: a result of
 * each kind, a pull-request run's review points and patch, a setup that
 * failed, and the footer with the run's figures; with the markers that make
 * each notice findable. How a run's ending is worked out is in
 * ending.test.ts; what keeps the text safe and within GitHub's limit, in
 * notices.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { RunEnding, RunResult } from "../../src/run/ending";
import { MAX_NOTICE_TEXT_CHARS } from "../../src/report/body-cap";
import { closingText, privateSourcesText, REPORTER_TIER_LINE } from "../../src/report/closing-text";
import { formatDuration } from "../../src/report/message-parts";
import { closingNotice, noticeMarker, rocketNotice, staleNotice } from "../../src/report/notices";
import { liveMarkup, run } from "./notice-fixtures";

describe("closing messages", () => {
  it("say a reporter-tier run was one, under the line to the requester", () => {
    const ending: RunEnding = { kind: "result", result: { outcome: "not-reproduced", summary: "Not on main." } as RunResult };
    expect(closingText(ending, { ...run, requestedBy: "octocat", tier: "reporter" })).toMatch(new RegExp(`^@octocat\n${REPORTER_TIER_LINE.replace(/[().]/g, "\\$&")}\n\n`));
    expect(closingText(ending, { ...run, tier: "reporter" }).startsWith(`${REPORTER_TIER_LINE}\n\n`)).toBe(true);
    expect(closingText(ending, { ...run, requestedBy: "octocat" })).not.toContain("reporter tier");
  });

  it("say a CI follow-up was one, naming the head and at most three failed checks as code", () => {
    const ending: RunEnding = { kind: "result", result: { outcome: "no-pr", summary: "The failure is in the runner." } as RunResult };
    const ci = { headSha: "c".repeat(40), checks: ["test (22)", "lint @octocat", "build", "e2e"] };
    const text = closingText(ending, { ...run, ci });
    expect(text.startsWith("This was a CI follow-up: the checks that failed on `ccccccc` (`test (22)`, `lint @octocat`, `build` and 1 more) started it.\n\n")).toBe(true);
    expect(closingText(ending, { ...run, ci: { ...ci, checks: [] } })).toContain("the checks that failed on `ccccccc` started it.");
  });

  it("render a reproduce result with its link and steps, and a PR result with changes and verification", () => {
    const repro = closingText(
      { kind: "result", result: { outcome: "reproduced", summary: "Save throws.", steps: ["Open", "Click\nSave"], reproductionUrl: "https://bot.test/repro/ab/" } },
      run
    );
    expect(repro).toContain("### ✅ Reproduced\n\nSave throws.");
    expect(repro).toContain("**Reproduction:** https://bot.test/repro/ab/");
    expect(repro).toContain("1. `Open`\n2. `Click Save`");
    const pr = closingText(
      {
        kind: "result",
        result: { outcome: "pr-opened", summary: "Fixed.", pullRequestUrl: "https://github.com/acme/app/pull/1", changes: ["guard null"], verification: "tests pass" }
      },
      run
    );
    expect(pr).toContain("### 🛠️ Pull request opened");
    expect(pr).toContain("**Pull request:** https://github.com/acme/app/pull/1");
    expect(pr).toContain("- guard null");
    expect(pr).toContain("**Verified:** tests pass");
  });

  it("render a result's evidence, and what a question needs, before the steps", () => {
    const notReproduced = closingText(
      { kind: "result", result: { outcome: "not-reproduced", summary: "Intended.", steps: ["npm run repro"], evidence: "README.md says own properties only" } },
      run
    );
    expect(notReproduced).toContain("Intended.\n\n**Evidence:** README.md says own properties only\n\n**Steps**\n1. `npm run repro`");
    const question = closingText({ kind: "result", result: { outcome: "needs-info", summary: "Which version?", missing: ["Which version of app?", "What did you expect?"] } }, run);
    expect(question).toContain("**To go on, this needs**\n- Which version of app?\n- What did you expect?");
  });

  it("say how a failed, interrupted, cancelled or budget-stopped run ended, each with the thread link", () => {
    const endings = [
      { kind: "failed", error: "model `down`" },
      { kind: "interrupted" },
      { kind: "cancelled", reason: "stopped by @a" },
      { kind: "budget", limit: { kind: "tokens", used: 1500, budget: 1000 } }
    ] as const;
    for (const ending of endings) expect(closingText(ending, run)).toContain(`(${run.threadUrl})`);
    expect(closingText(endings[0], run)).toContain("Last error: `` model `down` ``");
    expect(closingText(endings[2], run)).toContain("(stopped by `@a`)");
    expect(closingText(endings[3], run)).toContain("(1,500 of 1,000 tokens)");
  });

  it("drop HTML comments from model text, so it cannot forge a marker", () => {
    expect(closingText({ kind: "finished", text: "ok", reproductionUrl: "https://bot.test/repro/ab/" }, run)).toContain(
      "**Reproduction:** https://bot.test/repro/ab/"
    );
    const text = closingText({ kind: "finished", text: `ok <!-- agent-think:other:closing --> done` }, run);
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

describe("the closing message of a pull-request run", () => {
  it("lists each review point and shows the patch as a diff that renders as code", () => {
    const result: RunResult = {
      outcome: "patch-suggested",
      summary: "A patch for @octocat's review.",
      addressed: [{ comment: `https://github.com/${run.repo}/pull/7#discussion_r1`, path: "src/a.ts", change: "Compares numerically; cc @mallory" }],
      patch: "diff --git a/src/a.ts b/src/a.ts\n-a.sort()\n+a.sort((x, y) => x - y) // @mallory ```\n"
    };
    const text = closingText({ kind: "result", result }, run);
    expect(text).toContain("### 🩹 Patch suggested");
    expect(text).toContain("**Review**\n- `src/a.ts` ");
    expect(text).toContain("<details><summary>Patch</summary>");
    // The patch's own ``` cannot close the block: its fence is longer.
    expect(text).toContain("````diff\ndiff --git a/src/a.ts b/src/a.ts");
    expect(liveMarkup(text).mentions).toEqual([]);
  });

  it("cuts a patch that does not fit at a line, and says the whole one is in the thread", () => {
    const line = `+${"x".repeat(99)}\n`;
    // The most a result may hold: 30 review points and 30 changes of 1,000 characters, and a 29,000-character patch.
    const result: RunResult = {
      outcome: "patch-suggested",
      summary: "Big.",
      addressed: Array.from({ length: 30 }, (_, i) => ({ change: `${i} ${"a".repeat(990)}` })),
      changes: Array.from({ length: 30 }, (_, i) => `${i} ${"c".repeat(990)}`),
      patch: line.repeat(290)
    };
    const text = closingText({ kind: "result", result }, run);
    expect(text.length).toBeLessThanOrEqual(MAX_NOTICE_TEXT_CHARS);
    expect(text).toContain("_The patch was cut to fit; the whole patch is in the run's thread._");
    // Cut at a line end, inside its fence.
    expect(text).toMatch(/\n\+x{99}\n```\n\n_The patch was cut/);
  });
});

describe("the closing message of a run whose setup failed", () => {
  it("names the step, shows the end of its output as code, and says what to fix", () => {
    const text = closingText(
      {
        kind: "setup-failed",
        failure: { kind: "step", file: ".github/agent-think.yml", index: 2, of: 3, command: "npm ci", exitCode: 1, durationMs: 12_000, output: "npm ERR! @mallory\n".repeat(400) }
      },
      run
    );
    expect(text).toContain("⚠️ **agent-think could not prepare the repository: step 2 of 3 npm ci exited 1.**");
    expect(text).toContain("`npm ci` ran for 12 seconds. The model did not start.");
    expect(text).toContain("Its last output:\n\n```\n…\n");
    expect(text.length).toBeLessThan(6_000);
    expect(liveMarkup(text).mentions).toEqual([]);
  });

  it("lists what is wrong with an invalid file, each as code", () => {
    const text = closingText({ kind: "setup-failed", failure: { kind: "config", file: ".github/agent-think.yml", errors: ["version: must be 1", "setup.x: is not a field"] } }, run);
    expect(text).toContain(".github/agent-think.yml is invalid (2 problems)");
    expect(text).toContain("- `version: must be 1`\n- `setup.x: is not a field`");
  });

  it("says a failed checkout is about access, and timed-out steps say so", () => {
    expect(closingText({ kind: "setup-failed", failure: { kind: "checkout", command: "gh pr checkout 7 --repo acme/widgets", exitCode: 1, output: "" } }, run)).toContain(
      "It printed nothing."
    );
    const timedOut = closingText(
      { kind: "setup-failed", failure: { kind: "step", file: ".github/agent-think.yml", index: 1, of: 1, command: "sleep 999", timedOut: true, exitCode: 124, output: "" } },
      run
    );
    expect(timedOut).toContain("step 1 of 1 sleep 999 timed out");
  });

  it("says a clone that never ran could not run, and that its backend's answer is the cause, not the repository", () => {
    const output = "container backend unavailable: the Sandbox Durable Object has no container (a deploy: check the containers block in wrangler.jsonc)";
    const text = closingText({ kind: "setup-failed", failure: { kind: "checkout", command: "gh repo clone acme/widgets", output } }, run);
    expect(text).toContain("⚠️ **agent-think could not prepare the repository: gh repo clone acme/widgets could not run.**");
    expect(text).toContain(`Its last output:\n\n\`\`\`\n${output}\n\`\`\``);
    expect(text).toContain("The command never ran: its backend answered the error above (the container, not the repository).");
    expect(text).not.toContain("Check that the App can read the repository");
  });
});

describe("the closing message's footer", () => {
  const stats = { durationMs: 185_000, toolCalls: 12, cost: { usd: 0.4237, complete: true } };

  it("says how long the run took, its tool calls and what it cost, on every ending", () => {
    const result = closingText({ kind: "result", result: { outcome: "reproduced", summary: "Yes." } }, { ...run, stats });
    expect(result.endsWith(`<sub>agent-think · 3 minutes · 12 tool calls · cost $0.42 · [thread](${run.threadUrl})</sub>`)).toBe(true);
    const failed = closingText({ kind: "failed", error: "boom" }, { ...run, stats: { toolCalls: 1 } });
    expect(failed.endsWith(`<sub>agent-think · 1 tool call · cost unknown · [thread](${run.threadUrl})</sub>`)).toBe(true);
  });

  it("shows an incomplete cost as a floor, and marks a scripted run as a demonstration", () => {
    const text = closingText(
      { kind: "cancelled" },
      { ...run, stats: { durationMs: 2_000, toolCalls: 3, cost: { usd: 1.5, complete: false }, scripted: true } }
    );
    expect(text).toContain("· cost ≥ $1.50 · scripted demonstration: no model ran ·");
  });

  it("stays the thread link alone without the run's figures", () => {
    expect(closingText({ kind: "result", result: { outcome: "reproduced", summary: "Yes." } }, run)).toContain(`<sub>agent-think · [thread](${run.threadUrl})</sub>`);
    expect(closingText({ kind: "failed", error: "boom" }, run)).not.toContain("<sub>");
  });

  it("names the private sources the run used, by host as code, a few and how many more; nothing when it used none", () => {
    expect(privateSourcesText([])).toBe("");
    expect(privateSourcesText(["npm.acme.example"])).toBe("private source: `npm.acme.example`");
    expect(privateSourcesText(["a.example", "b.example", "c.example", "d.example", "e.example"])).toBe(
      "private sources: `a.example`, `b.example`, `c.example` and 2 more"
    );
    const used = closingText(
      { kind: "result", result: { outcome: "reproduced", summary: "Yes." } },
      { ...run, stats: { ...stats, blocked: [{ host: "evil.example", method: "GET", count: 1 }], privateSources: ["npm.acme.example", "pypi.acme.example"] } }
    );
    expect(used.endsWith(`· 1 request blocked: \`evil.example\` · private sources: \`npm.acme.example\`, \`pypi.acme.example\` · [thread](${run.threadUrl})</sub>`)).toBe(true);
    // Every ending's footer says it, and none says it of a run that used none.
    expect(closingText({ kind: "failed", error: "boom" }, { ...run, stats: { toolCalls: 1, privateSources: ["npm.acme.example"] } })).toContain(
      "· private source: `npm.acme.example` ·"
    );
    expect(closingText({ kind: "result", result: { outcome: "reproduced", summary: "Yes." } }, { ...run, stats })).not.toContain("private source");
  });

  it("says a money budget stopped the run", () => {
    expect(closingText({ kind: "budget", limit: { kind: "cost", used: 2.04, budget: 2 } }, run)).toContain(
      "⏸️ **agent-think stopped this run: it spent its budget ($2.04 of $2.00) before finishing.**"
    );
  });
});
