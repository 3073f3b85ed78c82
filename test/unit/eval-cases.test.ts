/**
 * The starter set's scripts report the way a model following the skills
 * would: each case's `scripted` lines end in a result that report_result
 * accepts as it is (no field the scripted model fills in for a one-line
 * `TEST: result`), with the outcome the case expects and the evidence that
 * outcome needs (a not-reproduced or not-a-bug says why and where, an
 * answer its sources, a fix upstream the release and the branch, a
 * needs-info its questions, a patch its diff), on the version the case
 * names; every outcome is some case's. Read from evals/cases/.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseCase } from "../../scripts/lib/eval/case";
import { planScript, SCRIPTED_FIELDS } from "../../src/model/script";
import { RESULT_OUTCOMES, runResultSchema } from "../../src/run/ending";

const files = readdirSync("evals/cases").filter((name) => name.endsWith(".json")).sort();
const cases = files.map((name) => parseCase(`evals/cases/${name}`, readFileSync(`evals/cases/${name}`, "utf8")));

/** The report_result calls a case's script makes, as the scripted model would make them. */
function results(scripted: string[]) {
  return planScript(scripted.join("\n")).flatMap((step) => (step.kind === "tool" && step.toolName === "report_result" ? [step.input] : []));
}

describe("the starter set's scripts", () => {
  it("cover every outcome a triage reports, and the intended-behaviour and needs-info distinctions", () => {
    const expected = cases.map((entry) => entry.expected);
    const count = (outcome: string) => expected.filter((one) => one === outcome).length;
    // What does not show and what shows as intended: three at least, the intended ones now told apart as not-a-bug.
    expect(count("not-reproduced") + count("not-a-bug")).toBeGreaterThanOrEqual(3);
    expect(count("not-a-bug")).toBeGreaterThanOrEqual(2);
    expect(count("needs-info")).toBeGreaterThanOrEqual(2);
    expect(expected).toEqual(expect.arrayContaining(["reproduced", "not-reproduced", "not-a-bug", "answered", "fixed-upstream", "needs-info", "pr-opened"]));
    // Every outcome report_result knows, the pull-request ones included, is some case's.
    expect(RESULT_OUTCOMES.filter((outcome) => count(outcome) === 0)).toEqual([]);
  });

  it.each(cases.map((entry) => [entry.id, entry] as const))("%s reports its expected outcome with that outcome's evidence", (_id, entry) => {
    const [result, ...more] = results(entry.scripted ?? []);
    expect(more).toEqual([]);
    // Accepted as written: nothing unknown, nothing the scripted model filled in.
    const parsed = runResultSchema.strict().parse(result);
    // pr-unproven is the Worker's word, from the proof it re-ran: the model reports the pull request it opened.
    expect(parsed.outcome).toBe(entry.expected === "pr-unproven" ? "pr-opened" : entry.expected);
    const placeholders = Object.values(SCRIPTED_FIELDS).flatMap((fields) => Object.values(fields ?? {}).flat());
    for (const value of Object.values(parsed).flat()) expect(placeholders).not.toContain(value);
    if (parsed.outcome === "not-reproduced" || parsed.outcome === "not-a-bug") expect(parsed.evidence).toMatch(/^Intended: |does not occur|documents|README|test/);
    if (parsed.outcome === "not-a-bug" || parsed.outcome === "answered") expect(parsed.sources!.length).toBeGreaterThan(0);
    // A report the documentation invited is answered with the wording that would have prevented it.
    if (parsed.outcome === "not-a-bug" && /ambiguous/i.test(parsed.evidence!)) expect(parsed.docFix).toBeDefined();
    if (parsed.outcome === "fixed-upstream") {
      expect(parsed.versions!.filter((tried) => tried.source === "latest-release").map((tried) => tried.showed)).toEqual([true]);
      expect(parsed.versions!.filter((tried) => tried.source === "default-branch").map((tried) => tried.showed)).toEqual([false]);
      expect(parsed.upstream!.fixedBy?.commit).toMatch(/^[0-9a-f]{7,40}$/);
    }
    if (parsed.outcome === "needs-info") for (const question of parsed.missing!) expect(question).toMatch(/\?$/);
    if (parsed.outcome === "reproduced") expect(parsed.steps!.length).toBeGreaterThan(1);
    // A pull request updated or a review addressed happens only where the case opens one (its pullRequest, by the App).
    if (parsed.outcome === "pr-updated") expect(entry.pullRequest).toMatchObject({ by: "app", mention: "issue" });
    if (parsed.outcome === "review-addressed") expect(entry.pullRequest).toMatchObject({ by: "app", mention: "pull-request" });
    if (parsed.outcome === "patch-suggested") {
      expect(entry.pullRequest).toMatchObject({ by: "user", mention: "pull-request" });
      expect(parsed.patch).toMatch(/^diff --git a\/(\S+) b\/\1\n/);
    }
    if (parsed.outcome === "review-addressed" || parsed.outcome === "patch-suggested") expect(parsed.addressed!.length).toBeGreaterThan(0);
    if (parsed.outcome === "no-pr") expect(parsed.verification).toBeDefined();
    // Where the result names the reporter's version, it is the one the case says the report was made against.
    const reporter = parsed.versions?.find((tried) => tried.source === "reporter");
    if (reporter) expect(reporter.version).toBe(entry.version);
  });
});
