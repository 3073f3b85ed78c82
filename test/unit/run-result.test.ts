/**
 * What `report_result` takes for the outcomes a maintainer triages by: "not
 * a bug" with the documentation or code it rests on, an answer with its
 * sources, a fix upstream with its release and branch, and the versions a
 * run tried, which must agree with the outcome. The other outcomes' fields
 * are in ending.test.ts.
 */
import { describe, expect, it } from "vitest";
import { runResultSchema } from "../../src/run/run-result";
import { SCRIPTED_FIELDS } from "../../src/model/script";
import { OUTCOME_LABEL_PREFIX, OUTCOME_LABELS, outcomeLabel, RESULT_OUTCOMES } from "../../src/shared/outcomes";

/** The fields the schema says are missing or wrong, by path. */
const problems = (input: object) => (runResultSchema.safeParse(input).error?.issues ?? []).map((issue) => issue.path.join("."));
const messages = (input: object) => (runResultSchema.safeParse(input).error?.issues ?? []).map((issue) => issue.message);

const sources = [{ where: "README.md:40-44", says: "Only own properties are compared." }];
const upstream = { failsOn: "v4.2.1", passesOn: "main at 1a2b3c4" };

describe("the outcomes a maintainer triages by", () => {
  it("come after not-reproduced, in words a maintainer uses, and each has its label", () => {
    expect(RESULT_OUTCOMES.slice(0, 5)).toEqual(["reproduced", "not-reproduced", "not-a-bug", "answered", "fixed-upstream"]);
    expect([OUTCOME_LABELS["not-a-bug"], OUTCOME_LABELS.answered, OUTCOME_LABELS["fixed-upstream"]]).toEqual(["Not a bug", "Answered", "Fixed upstream"]);
    expect(outcomeLabel("fixed-upstream")).toBe("agent-think:fixed-upstream");
    // GitHub's limit on a label's name is 50 characters.
    for (const outcome of RESULT_OUTCOMES) expect(outcomeLabel(outcome).startsWith(OUTCOME_LABEL_PREFIX) && outcomeLabel(outcome).length <= 50).toBe(true);
  });

  it("require a not-a-bug to cite what says it is intended, and take a proposed fix of ambiguous documentation", () => {
    expect(problems({ outcome: "not-a-bug", summary: "Works as documented." })).toEqual(["evidence", "sources"]);
    expect(problems({ outcome: "not-a-bug", summary: "Works as documented.", evidence: "README.md says so.", sources })).toEqual([]);
    const ambiguous = { outcome: "not-a-bug", summary: "Intended, but the docs are unclear.", evidence: "The code skips inherited keys on purpose; the README does not say so.", sources };
    expect(problems({ ...ambiguous, docFix: "README.md, Usage: say that only own enumerable properties are compared." })).toEqual([]);
    // A source names where it is and what it says.
    expect(problems({ ...ambiguous, sources: [{ where: "README.md" }] })).toEqual(["sources.0.says"]);
    expect(problems({ ...ambiguous, sources: [] })).toEqual(["sources"]);
  });

  it("require an answer to a question or a feature request, and its sources", () => {
    expect(problems({ outcome: "answered", summary: "Yes, with an option." })).toEqual(["answer", "sources"]);
    expect(problems({ outcome: "answered", summary: "Yes.", answer: "Pass `{ strict: false }`.", sources: [{ where: "https://example.test/docs#strict", says: "strict defaults to true." }] })).toEqual([]);
  });

  it("require a fix upstream's steps and releases, and take the fixing commit only as a SHA found by git log or bisect", () => {
    expect(problems({ outcome: "fixed-upstream", summary: "Fixed on main." })).toEqual(["steps", "upstream"]);
    const fixed = { outcome: "fixed-upstream", summary: "Fixed on main, not released.", steps: ["npm i pkg@4.2.1 && node repro.mjs"], upstream };
    expect(problems(fixed)).toEqual([]);
    expect(problems({ ...fixed, upstream: { ...upstream, fixedBy: { commit: "9f8e7d6c5b4a", subject: "Handle empty input", foundWith: "git bisect" } } })).toEqual([]);
    expect(problems({ ...fixed, upstream: { ...upstream, fixedBy: { commit: "HEAD~3", foundWith: "git log" } } })).toEqual(["upstream.fixedBy.commit"]);
    expect(problems({ ...fixed, upstream: { ...upstream, fixedBy: { commit: "9f8e7d6", foundWith: "a guess" } } })).toEqual(["upstream.fixedBy.foundWith"]);
    expect(problems({ ...fixed, upstream: { failsOn: "v4.2.1" } })).toEqual(["upstream.passesOn"]);
  });

  it("take the versions tried, and refuse a reproduction the default branch does not show, naming the outcome to report", () => {
    const reproduced = { outcome: "reproduced", summary: "It breaks.", steps: ["node repro.mjs"], evidence: "The README says otherwise." };
    const versions = [
      { version: "4.2.1", source: "reporter", showed: true },
      { version: "4.3.0", source: "latest-release", showed: true }
    ];
    expect(problems({ ...reproduced, versions })).toEqual([]);
    expect(problems({ ...reproduced, versions: [...versions, { version: "main at 1a2b3c4", source: "default-branch", showed: true }] })).toEqual([]);
    const fixedOnMain = { ...reproduced, versions: [...versions, { version: "main at 1a2b3c4", source: "default-branch", showed: false }] };
    expect(problems(fixedOnMain)).toEqual(["outcome"]);
    expect(messages(fixedOnMain)[0]).toMatch(/report "fixed-upstream" with `upstream`/);
    // The reverse: a fix upstream the default branch still shows is a reproduction.
    const stillShows = { outcome: "fixed-upstream", summary: "s", steps: ["x"], upstream, versions: [{ version: "main", source: "default-branch", showed: true }] };
    expect(messages(stillShows)).toEqual([expect.stringMatching(/default branch still shows it: report "reproduced"/)]);
    expect(problems({ ...reproduced, versions: [{ version: "4.2.1", source: "somewhere", showed: true }] })).toEqual(["versions.0.source"]);
    expect(problems({ ...reproduced, versions: [] })).toEqual(["versions"]);
  });

  it("describe every new field to the model, which reads the descriptions", () => {
    const shape = runResultSchema.shape;
    for (const field of ["versions", "sources", "answer", "docFix", "upstream"] as const) expect(shape[field].description, field).toMatch(/\w{3,}/);
    expect(shape.versions.description).toMatch(/^Expected with reproduced/);
    expect(shape.outcome.description).toContain("fixed-upstream: it fails on the latest release and passes on the default branch");
  });

  it("fills a scripted one-line result of each outcome with fields the tool accepts", () => {
    for (const outcome of ["not-a-bug", "answered", "fixed-upstream"] as const) {
      expect(problems({ outcome, summary: "Scripted.", ...SCRIPTED_FIELDS[outcome] }), outcome).toEqual([]);
    }
  });
});
