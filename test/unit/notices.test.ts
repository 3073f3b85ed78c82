/**
 * What keeps every message a run posts on its issue sound: it fits GitHub's
 * size limit, nothing a model wrote in it pings anyone or links outside our
 * pages and the run's repository, and our own words mention no one but the
 * requester, on the closing message's first line. What each ending says is
 * in closing-text.test.ts; how text is neutralized, in neutralize.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { RunEnding, RunResult } from "../../src/run/ending";
import { GITHUB_COMMENT_MAX_CHARS, MAX_NOTICE_TEXT_CHARS } from "../../src/report/body-cap";
import { closingText, requesterMention } from "../../src/report/closing-text";
import { closingNotice, staleNotice } from "../../src/report/notices";
import { type RunRef } from "../../src/report/run-ref";
import { INERT } from "./live-markup";
import { liveMarkup, policy, run } from "./notice-fixtures";

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
