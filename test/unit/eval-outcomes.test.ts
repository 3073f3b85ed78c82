/**
 * The eval's expectations for the outcomes a maintainer triages by: a case
 * may expect `not-a-bug`, `answered` or `fixed-upstream`; a run passes only
 * by reporting it, and a `reproduced` where working code, intended
 * behaviour or a question was expected counts as a false reproduction (not
 * under a fix upstream: its release is broken). Cases are built on a real
 * case file, so they follow the case schema as it stands.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { caseSchema, parseCase, type EvalCase } from "../../scripts/lib/eval/case";
import { caseResult, judge } from "../../scripts/lib/eval/judge";
import { byExpected, FALSE_REPRODUCTION_EXPECTED, falseReproductions } from "../../scripts/lib/eval/report";
import { NO_FIGURES, type CaseRun } from "../../scripts/lib/eval/target";
import type { ResultOutcome } from "../../src/shared/outcomes";

const DIR = "evals/cases";
const base = JSON.parse(readFileSync(`${DIR}/${readdirSync(DIR).filter((name) => name.endsWith(".json")).sort()[0]!}`, "utf8")) as Record<string, unknown>;

/** A valid case expecting `expected`, as a case file says it. */
function expecting(expected: ResultOutcome, id = `expects-${expected}`): EvalCase {
  return parseCase(`${DIR}/${id}.json`, JSON.stringify({ ...base, id, expected, scripted: [`TEST: result ${expected} Scripted.`] }));
}

const ended = (outcome: ResultOutcome | null): CaseRun => ({
  kind: "ended",
  figures: { ...NO_FIGURES, status: "done", outcome, cost: { usd: 0.1, complete: true }, timeToStartMs: 500, timeToCloseMs: 20_000, toolCalls: 4 }
});

describe("the eval's expectations for triage outcomes", () => {
  it("let a case expect not-a-bug, answered or fixed-upstream, and nothing it does not know", () => {
    for (const expected of ["not-a-bug", "answered", "fixed-upstream"] as const) expect(expecting(expected).expected).toBe(expected);
    expect(caseSchema.safeParse({ ...base, expected: "wontfix" }).error?.issues.map((issue) => issue.path.join("."))).toEqual(["expected"]);
  });

  it("pass a run that reports the outcome expected, and fail one that reports another, saying which", () => {
    expect(judge(expecting("answered"), ended("answered"), [])).toEqual({ verdict: "pass" });
    expect(judge(expecting("fixed-upstream"), ended("reproduced"), [])).toEqual({ verdict: "fail", reason: "the run reported reproduced, expected fixed-upstream" });
    expect(judge(expecting("not-a-bug"), ended("not-reproduced"), [])).toEqual({ verdict: "fail", reason: "the run reported not-reproduced, expected not-a-bug" });
    expect(judge(expecting("answered"), ended(null), [])).toEqual({ verdict: "fail", reason: "the run reported no outcome (expected answered)" });
  });

  it("count a reproduction where intended behaviour or a question was expected as a false one, but not under a fix upstream", () => {
    expect(FALSE_REPRODUCTION_EXPECTED).toEqual(["not-reproduced", "not-a-bug", "answered", "needs-info"]);
    const results = [
      caseResult(expecting("not-a-bug", "intended"), ended("reproduced"), []),
      caseResult(expecting("answered", "question"), ended("reproduced"), []),
      caseResult(expecting("fixed-upstream", "unreleased"), ended("reproduced"), []),
      caseResult(expecting("fixed-upstream", "released"), ended("fixed-upstream"), [])
    ];
    expect(falseReproductions(results).map((result) => result.id)).toEqual(["intended", "question"]);
    // One row per expected outcome, in the outcomes' order.
    expect(byExpected(results)).toEqual([
      { expected: "not-a-bug", cases: 1, passed: 0, reported: { reproduced: 1 } },
      { expected: "answered", cases: 1, passed: 0, reported: { reproduced: 1 } },
      { expected: "fixed-upstream", cases: 2, passed: 1, reported: { reproduced: 1, "fixed-upstream": 1 } }
    ]);
  });
});
