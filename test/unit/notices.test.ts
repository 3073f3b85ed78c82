/**
 * What a run says on its issue: the closing message for each way a run can
 * end, the stale notice, and the markers that make each message findable;
 * that every message fits GitHub's size limit, and that nothing a model
 * wrote in it pings anyone or links outside our pages and the run's
 * repository, while the closing message's first line mentions the requester.
 * How a run's ending is worked out is in ending.test.ts; how text is
 * neutralized, in neutralize.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { RunEnding, RunResult } from "../../src/run/ending";
import { GITHUB_COMMENT_MAX_CHARS, MAX_NOTICE_TEXT_CHARS } from "../../src/report/body-cap";
import { closingNotice, closingText, formatDuration, noticeMarker, REPORTER_TIER_LINE, requesterMention, rocketNotice, staleNotice, type RunRef } from "../../src/report/notices";
import { INERT, liveMarkup as live } from "./live-markup";

const run: RunRef = {
  repo: "acme/app",
  issueNumber: 12,
  submissionId: "sub-1",
  threadUrl: "https://bot.test/thread/acme-app-12",
  publicBaseUrl: "https://bot.test",
  githubWebUrl: "https://github.com"
};
const policy = { publicBaseUrl: "https://bot.test", githubWebUrl: "https://github.com", repo: "acme/app" };

/** What is live in a message, less our own HTML: the marker and the footer's <sub>. */
function liveMarkup(markdown: string, runPolicy = policy) {
  const found = live(markdown, runPolicy);
  return { ...found, html: found.html.filter((html) => !/^(<\/?sub>|<!-- agent-think:[\w:-]+ -->)$/.test(html)) };
}

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

/** The largest result `report_result` accepts (runResultSchema's limits). */
const maximalResult: RunResult = {
  outcome: "pr-opened",
  summary: "S".repeat(4_000),
  steps: Array.from({ length: 30 }, (_, i) => `${i} ${"t".repeat(996)}`),
  reproductionUrl: "https://bot.test/repro/0123456789abcdef0123456789abcdef/",
  pullRequestUrl: "https://github.com/acme/app/pull/123456",
  changes: Array.from({ length: 30 }, (_, i) => `${i} ${"c".repeat(996)}`),
  verification: "V".repeat(2_000),
  evidence: "E".repeat(2_000),
  missing: Array.from({ length: 10 }, (_, i) => `${i} ${"m".repeat(496)}`)
};

describe("the size of a comment", () => {
  it("fits a maximal result under GitHub's limit, cutting the longest parts first and pointing at the thread", { timeout: 30_000 }, () => {
    const body = closingNotice(run, { kind: "result", result: maximalResult }).body!;
    expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_MAX_CHARS);
    const text = closingText({ kind: "result", result: maximalResult }, run);
    expect(text.length).toBeLessThanOrEqual(MAX_NOTICE_TEXT_CHARS);
    expect(text).toContain(`cut to fit GitHub's size limit. The full text is in [the run's thread](${run.threadUrl})`);
    // The short parts are whole; the long lists were cut, and say so.
    expect(text).toContain("S".repeat(4_000));
    expect(text).toContain(`**Verified:** ${"V".repeat(2_000)}`);
    expect(text).toMatch(/ …`?\n/);
    expect(text).toContain("**Pull request:** https://github.com/acme/app/pull/123456");
    expect(text.endsWith(`<sub>agent-think · [thread](${run.threadUrl})</sub>`)).toBe(true);
    expect(liveMarkup(text, policy)).toEqual(INERT);
  });

  it("fits a huge finished text, and any text that grows when neutralized", { timeout: 30_000 }, () => {
    for (const text of ["word ".repeat(40_000), "@x ".repeat(30_000), "&".repeat(100_000), `\`\`\`\n${"@y\n".repeat(30_000)}`]) {
      const ending: RunEnding = { kind: "finished", text };
      const body = closingNotice(run, ending).body!;
      expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_MAX_CHARS);
      expect(body).toContain("The full text is in [the run's thread]");
      expect(body).toContain(`Details: [the run's thread](${run.threadUrl}).`);
      expect(liveMarkup(body, policy)).toEqual(INERT);
    }
  });

  it("leaves a message that fits as it is", () => {
    const text = closingText({ kind: "finished", text: "All good." }, run);
    expect(text).not.toContain("cut to fit");
  });
});

describe("what a model wrote, on the issue", () => {
  const hostile = [
    "Ping @alice and @acme/maintainers, **@bob**, &#64;carol.",
    "Same as other/repo#12, GH-3, https://github.com/other/repo/issues/4 and [see](https://evil.test/phish).",
    "<img src=https://evil.test/pixel.png> ![x](https://evil.test/p.png) [r]: https://evil.test",
    "```\n@inside code\n```\nand `@in span` then @after"
  ].join("\n\n");

  it("pings no one and links nowhere else, in every ending that carries model text", () => {
    const endings: RunEnding[] = [
      {
        kind: "result",
        result: {
          outcome: "reproduced",
          summary: hostile,
          steps: ["curl https://evil.test/@x", "ask @alice", "other/repo#1"],
          changes: ["thanks @bob for other/repo#2", "[link](https://evil.test)"],
          verification: "reviewed by @carol, see GH-9",
          evidence: "as @frank wrote in other/repo#5, https://evil.test/doc",
          missing: ["ask @grace", "[docs](https://evil.test)"]
        }
      },
      { kind: "finished", text: hostile },
      { kind: "failed", error: "fetch https://evil.test failed for @dave" },
      { kind: "cancelled", reason: "stopped by @erin" }
    ];
    for (const ending of endings) {
      expect(liveMarkup(closingText(ending, run), policy), ending.kind).toEqual(INERT);
    }
    const finished = closingText({ kind: "finished", text: hostile }, run);
    expect(finished).toContain("Ping `@alice` and `@acme/maintainers`");
    expect(finished).toContain("see (`https://evil.test/phish`)");
  });

  it("renders steps as code", () => {
    const text = closingText({ kind: "result", result: { outcome: "reproduced", summary: "s", steps: ["run `npm test` as @x", "open <b>it</b>"] } }, run);
    expect(text).toContain("1. ``run `npm test` as @x``\n2. `open <b>it</b>`");
  });

  it("links a pull request only of the run's repository, and a reproduction only of ours", () => {
    const result = (fields: Partial<RunResult>) => closingText({ kind: "result", result: { outcome: "pr-opened", summary: "s", ...fields } }, run);
    expect(result({ pullRequestUrl: "https://github.com/acme/app/pull/7" })).toContain("**Pull request:** https://github.com/acme/app/pull/7\n");
    const foreign = result({ pullRequestUrl: "https://github.com/evil/app/pull/7" });
    expect(foreign).toContain("**Pull request:** `https://github.com/evil/app/pull/7` _(not a pull request of `acme/app`, so not linked)_");
    expect(liveMarkup(foreign, policy)).toEqual(INERT);
    expect(result({ pullRequestUrl: "https://evil.test/acme/app/pull/7" })).toContain("so not linked");
    expect(result({ reproductionUrl: "https://bot.test/repro/ab/" })).toContain("**Reproduction:** https://bot.test/repro/ab/\n");
    const phish = result({ reproductionUrl: "https://evil.test/repro/ab/" });
    expect(phish).toContain("**Reproduction:** `https://evil.test/repro/ab/` _(not one of this bot's pages, so not linked)_");
    expect(liveMarkup(phish, policy)).toEqual(INERT);
    expect(closingText({ kind: "finished", text: "ok", reproductionUrl: "https://evil.test/r/" }, run)).toContain("so not linked");
    // Without a configured web host no GitHub page counts as the run's repository.
    expect(closingText({ kind: "result", result: { outcome: "pr-opened", summary: "s", pullRequestUrl: "https://github.com/acme/app/pull/7" } }, { ...run, githubWebUrl: "" })).toContain(
      "so not linked"
    );
  });

  it("never @-mentions anyone in our own words, for a run with no requester", () => {
    const ours: string[] = [
      staleNotice(run, 600_000).body!,
      ...(
        [
          { kind: "interrupted" },
          { kind: "budget", limit: { kind: "steps", steps: 3 } },
          { kind: "budget", limit: { kind: "tokens", used: 1, budget: 1 } },
          { kind: "cancelled" },
          { kind: "finished", text: "" }
        ] as RunEnding[]
      ).map((ending) => closingText(ending, run))
    ];
    for (const text of ours) expect(liveMarkup(text, policy)).toEqual(INERT);
  });
});


/** One of each way a run can end, each carrying model text where it can. */
const everyEnding: RunEnding[] = [
  { kind: "result", result: { outcome: "reproduced", summary: "Save throws." } },
  { kind: "finished", text: "All good." },
  { kind: "failed", error: "model down" },
  { kind: "interrupted" },
  { kind: "cancelled", reason: "stopped by @bob" },
  { kind: "budget", limit: { kind: "steps", steps: 3 } }
];

/** The first line of each ending's closing message for `ref`, and that it is followed by a blank line. */
const openings = (ref: RunRef) =>
  everyEnding.map((ending) => {
    const [first, second] = closingText(ending, ref).split("\n");
    return { kind: ending.kind, first, second };
  });

describe("the closing message, addressed to the requester", () => {
  it("starts every ending with a line mentioning the requester, the only mention in it", () => {
    const asked = { ...run, requestedBy: "alice" };
    for (const { kind, first, second } of openings(asked)) {
      expect(first, kind).toBe("@alice");
      expect(second, kind).toBe("");
    }
    for (const ending of everyEnding) {
      expect(liveMarkup(closingText(ending, asked)), ending.kind).toEqual({ ...INERT, mentions: ["@alice"] });
    }
    // The rest of the message is what it was without a requester.
    for (const ending of everyEnding) expect(closingText(ending, asked)).toBe(`@alice\n\n${closingText(ending, run)}`);
  });

  it("starts no ending with a greeting when no one is named, as before", () => {
    const headings = ["### ✅ Reproduced", "**agent-think finished.**", "❌ **agent-think could not finish", "❌ **agent-think was interrupted", "⏹️ **agent-think stopped", "⏸️ **agent-think stopped"];
    openings(run).forEach(({ kind, first }, i) => expect(first!.startsWith(headings[i]!), kind).toBe(true));
  });

  it("says a continuation was continued from the dashboard, still to the original requester and naming no operator", () => {
    for (const { kind, first, second } of openings({ ...run, requestedBy: "alice", continued: true })) {
      expect(first, kind).toBe("@alice — continued from the dashboard.");
      expect(second, kind).toBe("");
    }
    for (const { kind, first } of openings({ ...run, continued: true })) expect(first, kind).toBe("Continued from the dashboard.");
    const text = closingText({ kind: "result", result: { outcome: "reproduced", summary: "s" } }, { ...run, requestedBy: "alice", continued: true });
    expect(liveMarkup(text)).toEqual({ ...INERT, mentions: ["@alice"] });
  });

  it("tells a maintainer on GitHub how to continue a run that ended short, as code that mentions no one", () => {
    const onGitHub = { ...run, continueHandle: "@agent-think" };
    const endings: RunEnding[] = [
      { kind: "failed", error: "boom" },
      { kind: "interrupted" },
      { kind: "setup-failed", failure: { kind: "config", file: ".github/agent-think.yml", errors: ["version: must be 1"] } },
      { kind: "setup-failed", failure: { kind: "checkout", command: "gh repo clone acme/app", exitCode: 1, output: "not found" } }
    ];
    for (const ending of endings) {
      const text = closingText(ending, onGitHub);
      expect(text, ending.kind).toContain("`@agent-think continue`");
      expect(text, ending.kind).toContain("dashboard");
      expect(liveMarkup(text), ending.kind).toEqual(INERT);
      // Without a known bot, the dashboard alone, as before.
      expect(closingText(ending, run), ending.kind).not.toContain("continue`");
    }
    expect(closingText({ kind: "failed", error: "boom" }, onGitHub)).toContain("; comment `@agent-think continue` to continue it, or an operator can from the dashboard.");
    const stale = staleNotice(onGitHub, 600_000).body!;
    expect(stale).toContain("Comment `@agent-think continue` to continue it, or an operator can from the dashboard; this issue still gets");
    expect(liveMarkup(stale)).toEqual(INERT);
  });

  it("says a continuation asked for on GitHub was continued from GitHub, naming no one who continued it", () => {
    for (const { kind, first } of openings({ ...run, requestedBy: "alice", continued: true, continuedFrom: "github" })) {
      expect(first, kind).toBe("@alice — continued from GitHub.");
    }
    for (const { kind, first } of openings({ ...run, continued: true, continuedFrom: "github" })) expect(first, kind).toBe("Continued from GitHub.");
  });

  it("mentions only a login GitHub cannot misread: no bot, no Enterprise Managed User, no old-style or malformed name", () => {
    expect(requesterMention("alice")).toBe("@alice");
    expect(requesterMention("a")).toBe("@a");
    expect(requesterMention("Mona-Lisa-42")).toBe("@Mona-Lisa-42");
    expect(requesterMention("x".repeat(39))).toBe(`@${"x".repeat(39)}`);
    for (const login of [
      undefined,
      "",
      "dependabot[bot]",
      "agent-think[bot]",
      "mona-cat_octo",
      "foo-",
      "-ACE-",
      "a--b",
      "x".repeat(40),
      "alice bob",
      "alice\n@bob",
      "acme/maintainers",
      "@alice",
      "al`ice",
      "ålice"
    ]) {
      expect(requesterMention(login), String(login)).toBeNull();
    }
    for (const login of ["dependabot[bot]", "mona-cat_octo", "foo-", "alice\n@bob", "acme/maintainers"]) {
      for (const { kind, first } of openings({ ...run, requestedBy: login })) expect(first!.startsWith("@"), `${login} ${kind}`).toBe(false);
      for (const ending of everyEnding) expect(liveMarkup(closingText(ending, { ...run, requestedBy: login })), login).toEqual(INERT);
      expect(openings({ ...run, requestedBy: login, continued: true }).map(({ first }) => first)).toEqual(everyEnding.map(() => "Continued from the dashboard."));
    }
  });

  it("still neutralizes every mention in model text", () => {
    const asked = { ...run, requestedBy: "alice" };
    const finished = closingText({ kind: "finished", text: "Thanks @bob, and @alice too, see @acme/team here." }, asked);
    expect(finished).toContain("Thanks `@bob`, and `@alice` too, see `@acme/team` here.");
    expect(liveMarkup(finished)).toEqual({ ...INERT, mentions: ["@alice"] });
    const result = closingText(
      { kind: "result", result: { outcome: "pr-opened", summary: "@carol asked", changes: ["for @dave"], verification: "by @erin", steps: ["ping @frank"] } },
      { ...asked, continued: true }
    );
    expect(liveMarkup(result)).toEqual({ ...INERT, mentions: ["@alice"] });
    expect(liveMarkup(closingText({ kind: "cancelled", reason: "stopped by @alice" }, asked))).toEqual({ ...INERT, mentions: ["@alice"] });
  });

  it("fits GitHub's limit with the greeting line counted", { timeout: 30_000 }, () => {
    const asked = { ...run, requestedBy: "x".repeat(39), continued: true };
    for (const ending of [{ kind: "result", result: maximalResult }, { kind: "finished", text: "@x ".repeat(30_000) }] as RunEnding[]) {
      const text = closingText(ending, asked);
      expect(text.length, ending.kind).toBeLessThanOrEqual(MAX_NOTICE_TEXT_CHARS);
      expect(text.startsWith(`@${"x".repeat(39)} — continued from the dashboard.\n\n`)).toBe(true);
      expect(text).toContain("cut to fit GitHub's size limit");
      expect(closingNotice(asked, ending).body!.length).toBeLessThanOrEqual(GITHUB_COMMENT_MAX_CHARS);
    }
  });

  it("leaves the stale notice unaddressed: the closing message is the run's one notification", () => {
    const body = staleNotice({ ...run, requestedBy: "alice", continued: true }, 600_000).body!;
    expect(body).toBe(staleNotice(run, 600_000).body);
    expect(liveMarkup(body)).toEqual(INERT);
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

  it("says a money budget stopped the run", () => {
    expect(closingText({ kind: "budget", limit: { kind: "cost", used: 2.04, budget: 2 } }, run)).toContain(
      "⏸️ **agent-think stopped this run: it spent its budget ($2.04 of $2.00) before finishing.**"
    );
  });
});
