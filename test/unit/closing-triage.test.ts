/**
 * The closing comment for the outcomes a maintainer triages by: "not a bug"
 * with its evidence, sources and a proposed fix of the documentation, an
 * answer with its sources, a fix upstream with its release, branch and
 * commit, and the versions a run tried. What the model wrote stays inert,
 * the whole fits GitHub's limit, and each heading reads back as its outcome
 * the way the eval harness reads it.
 */
import { describe, expect, it } from "vitest";
import { GITHUB_COMMENT_MAX_CHARS, MAX_NOTICE_TEXT_CHARS } from "../../src/report/body-cap";
import { closingText, OUTCOME_HEADINGS } from "../../src/report/closing-text";
import { closingNotice } from "../../src/report/notices";
import type { RunResult } from "../../src/run/run-result";
import { RESULT_OUTCOMES } from "../../src/shared/outcomes";
import { INERT } from "./live-markup";
import { liveMarkup, policy, run } from "./notice-fixtures";

const result = (value: RunResult) => closingText({ kind: "result", result: value }, run);

describe("closing comments for triage outcomes", () => {
  it("say a not-a-bug with its evidence, the proposed documentation fix and its sources, a path as code and a URL linked only to the run's repository", () => {
    const text = result({
      outcome: "not-a-bug",
      summary: "Works as intended: inherited keys are skipped.",
      evidence: "src/equal.ts skips them on purpose; the README does not say so.",
      docFix: "README.md, Usage: say that only own enumerable properties are compared.",
      sources: [
        { where: "src/equal.ts:40-44", says: "`hasOwnProperty` guards the loop." },
        { where: "https://github.com/acme/app/blob/main/README.md#usage", says: "Compares two values deeply." },
        { where: "https://evil.test/docs", says: "Elsewhere." }
      ]
    });
    expect(text).toContain("### 📘 Not a bug\n\nWorks as intended: inherited keys are skipped.");
    expect(text).toContain("**Evidence:** src/equal.ts skips them on purpose; the README does not say so.");
    expect(text).toContain("**Proposed documentation fix**\n\nREADME.md, Usage: say that only own enumerable properties are compared.");
    expect(text).toContain("**Sources**\n- `src/equal.ts:40-44`: `hasOwnProperty` guards the loop.\n- <https://github.com/acme/app/blob/main/README.md#usage>: Compares two values deeply.\n- `https://evil.test/docs`: Elsewhere.");
    expect(liveMarkup(text)).toEqual(INERT);
  });

  it("give an answer under the summary, with its sources", () => {
    const text = result({
      outcome: "answered",
      summary: "Yes: it is an option.",
      answer: "Pass `{ strict: false }` to `parse`.\n\nIt has been there since 2.0.",
      sources: [{ where: "docs/options.md:12", says: "strict: reject unknown keys (default true)." }]
    });
    expect(text).toContain("### 💡 Answered\n\nYes: it is an option.\n\n**Answer**\n\nPass `{ strict: false }` to `parse`.\n\nIt has been there since 2.0.");
    expect(text).toContain("**Sources**\n- `docs/options.md:12`: strict: reject unknown keys (default true).");
  });

  it("say where a fix upstream fails and passes, linking the fixing commit on the run's repository", () => {
    const upstream = { failsOn: "v4.2.1", passesOn: "main at 1a2b3c4", fixedBy: { commit: "9F8E7D6C5B4A3921", subject: "Handle empty input (thanks @alice)", foundWith: "git bisect" as const } };
    const text = result({ outcome: "fixed-upstream", summary: "Fixed on main, not released yet.", steps: ["npm i app@4.2.1 && node repro.mjs"], upstream });
    expect(text).toContain("### ⬆️ Fixed upstream\n\nFixed on main, not released yet.");
    expect(text).toContain(
      "**Upstream:** fails on `v4.2.1` and passes on `main at 1a2b3c4`. Fixed by [`9f8e7d6`](https://github.com/acme/app/commit/9f8e7d6c5b4a3921) (found with `git bisect`): Handle empty input (thanks `@alice`)"
    );
    expect(liveMarkup(text)).toEqual(INERT);
    // Without GitHub's web host there is no repository to link the commit on.
    const unlinked = closingText({ kind: "result", result: { outcome: "fixed-upstream", summary: "s", steps: ["x"], upstream } }, { ...run, githubWebUrl: "" });
    expect(unlinked).toContain("Fixed by `9f8e7d6` (found with `git bisect`)");
    expect(result({ outcome: "fixed-upstream", summary: "s", steps: ["x"], upstream: { failsOn: "1.0.0", passesOn: "main" } })).toContain(
      "**Upstream:** fails on `1.0.0` and passes on `main`.\n"
    );
  });

  it("list the versions a run tried, each with where it came from and whether it showed", () => {
    const text = result({
      outcome: "reproduced",
      summary: "It breaks.",
      steps: ["node repro.mjs"],
      evidence: "The README says otherwise.",
      versions: [
        { version: "4.2.1", source: "reporter", showed: true },
        { version: "v4.3.0", source: "latest-release", showed: true },
        { version: "main at `1a2b3c4`", source: "default-branch", showed: true },
        { version: "3.9.0", source: "other", showed: false }
      ]
    });
    expect(text).toContain(
      "**Versions tried**\n- `4.2.1` (the reporter's version): shows it\n- `v4.3.0` (the latest release): shows it\n- `` main at `1a2b3c4` `` (the default branch): shows it\n- `3.9.0` (another version): does not show it\n\n**Steps**"
    );
  });

  it("keep what a model wrote in every new field inert", () => {
    const hostile = "ping @alice, see other/repo#3 and [this](https://evil.test/x) <img src=x>";
    const text = result({
      outcome: "not-a-bug",
      summary: hostile,
      evidence: hostile,
      docFix: hostile,
      answer: hostile,
      sources: [{ where: `@bob ${hostile}`, says: hostile }],
      versions: [{ version: hostile, source: "reporter", showed: true }],
      upstream: { failsOn: hostile, passesOn: hostile, fixedBy: { commit: "abcdef1", subject: hostile, foundWith: "git log" } }
    });
    expect(liveMarkup(text)).toEqual(INERT);
  });

  it("fit the largest triage result under GitHub's limit, cutting the longest parts and saying so", { timeout: 30_000 }, () => {
    const largest: RunResult = {
      outcome: "not-a-bug",
      summary: "S".repeat(4_000),
      steps: Array.from({ length: 30 }, (_, i) => `${i} ${"t".repeat(996)}`),
      evidence: "E".repeat(2_000),
      answer: "A ".repeat(2_000),
      docFix: "D ".repeat(1_000),
      sources: Array.from({ length: 10 }, (_, i) => ({ where: `https://github.com/acme/app/blob/main/${"p".repeat(440)}${i}.md`, says: `${i} ${"s ".repeat(499)}` })),
      versions: Array.from({ length: 10 }, (_, i) => ({ version: `${i}${"v".repeat(199)}`, source: "other" as const, showed: i % 2 === 0 })),
      upstream: { failsOn: "f".repeat(200), passesOn: "p".repeat(200), fixedBy: { commit: "a".repeat(40), subject: "x".repeat(300), foundWith: "git log" } },
      missing: Array.from({ length: 10 }, (_, i) => `${i} ${"m".repeat(496)}`),
      changes: Array.from({ length: 30 }, (_, i) => `${i} ${"c".repeat(996)}`),
      verification: "V".repeat(2_000)
    };
    const text = closingText({ kind: "result", result: largest }, run);
    expect(text.length).toBeLessThanOrEqual(MAX_NOTICE_TEXT_CHARS);
    expect(text).toContain("cut to fit GitHub's size limit");
    expect(text).toContain("**Versions tried**");
    expect(text).toContain("**Upstream:**");
    expect(closingNotice(run, { kind: "result", result: largest }).body!.length).toBeLessThanOrEqual(GITHUB_COMMENT_MAX_CHARS);
    expect(liveMarkup(text, policy)).toEqual(INERT);
  });

  it("give each outcome its own heading, read back as that outcome the way the eval harness reads it", () => {
    const headings = Object.values(OUTCOME_HEADINGS);
    expect(new Set(headings).size).toBe(RESULT_OUTCOMES.length);
    for (const outcome of RESULT_OUTCOMES) {
      const fields = { "not-a-bug": { evidence: "e", sources: [{ where: "w", says: "s" }] }, answered: { answer: "a", sources: [{ where: "w", says: "s" }] } }[outcome as string] ?? {};
      const body = result({ outcome, summary: "s", ...fields } as RunResult);
      // scripts/lib/eval/github-target.ts `parseClosing`: the first outcome whose heading line the body holds.
      expect(RESULT_OUTCOMES.find((candidate) => body.includes(`### ${OUTCOME_HEADINGS[candidate]}\n`)), outcome).toBe(outcome);
    }
  });
});
