/**
 * What a CI follow-up's payload alone decides (ingress/src/ci-trigger.ts), and
 * `ci.fix` read from the repository's file (repo-triggers.ts): only a failure,
 * only an App branch spelled exactly as the write policy names it, exactly one
 * pull request on the suite's own head.
 */
import { describe, expect, it } from "vitest";
import { appBranchIssue, failingConclusion, pickPull, type CiEvent } from "../../src/ci-trigger";
import { repoCiFixes } from "../../src/repo-triggers";

const SHA = "a".repeat(40);
const event = (fields: Partial<CiEvent>): CiEvent => ({
  event: "check_suite",
  sourceId: 1,
  sourceName: "GitHub Actions",
  conclusion: "failure",
  headBranch: "agent-think/issue-12",
  headSha: SHA,
  sameRepository: true,
  pulls: [{ number: 13, headRef: "agent-think/issue-12", headSha: SHA, baseRef: "main" }],
  updatedAt: null,
  repository: { owner: "acme", name: "widgets", fullName: "acme/widgets", visibility: undefined },
  installationId: 1,
  ...fields
});

describe("a CI follow-up's payload", () => {
  it("counts failure, timed_out and startup_failure as failures, nothing else", () => {
    expect(["failure", "timed_out", "startup_failure"].every(failingConclusion)).toBe(true);
    for (const other of ["success", "neutral", "cancelled", "skipped", "stale", "action_required", null]) expect(failingConclusion(other)).toBe(false);
  });

  it("knows the App's branches as the write policy spells them", () => {
    expect(appBranchIssue("agent-think/issue-12")).toBe(12);
    for (const other of ["agent-think/issue-012", "agent-think/issue-0", "agent-think/issue-", "agent-think/issue-12/x", "x/agent-think/issue-12", "Agent-Think/issue-12", "agent-think/issue-1e3", "agent-think/issue-99999999999999999"]) {
      expect(appBranchIssue(other), other).toBeNull();
    }
  });

  it("picks the one pull request on the suite's own head and App branch", () => {
    expect(pickPull(event({}))).toEqual({ ok: true, pull: { number: 13, headRef: "agent-think/issue-12", headSha: SHA, baseRef: "main" } });
    expect(pickPull(event({ headBranch: "main" }))).toEqual({ ok: false, ignore: "not_app_branch" });
    expect(pickPull(event({ headBranch: null }))).toEqual({ ok: false, ignore: "not_app_branch" });
    expect(pickPull(event({ pulls: [] }))).toEqual({ ok: false, ignore: "no_pull_request" });
    // A pull request GitHub lists for another head, or another branch, is not this suite's.
    expect(pickPull(event({ pulls: [{ number: 13, headRef: "agent-think/issue-12", headSha: "b".repeat(40), baseRef: "main" }] }))).toEqual({ ok: false, ignore: "no_pull_request" });
    const two = [13, 14].map((number) => ({ number, headRef: "agent-think/issue-12", headSha: SHA, baseRef: number === 13 ? "main" : "release" }));
    expect(pickPull(event({ pulls: two }))).toEqual({ ok: false, ignore: "ambiguous_pull_request" });
  });

  it("reads ci.fix from the repository's file: none is off, a bad one is its errors", () => {
    expect(repoCiFixes({ found: false })).toEqual({ ok: true, fix: 0 });
    expect(repoCiFixes({ found: true, text: "version: 1\n" })).toEqual({ ok: true, fix: 0 });
    expect(repoCiFixes({ found: true, text: "version: 1\nci:\n  fix: 3\n" })).toEqual({ ok: true, fix: 3 });
    expect(repoCiFixes({ found: true, text: "version: 1\nci:\n  fix: 9\n" })).toEqual({ ok: false, errors: ["ci.fix: must be at most 3"] });
    expect(repoCiFixes({ found: true, tooLargeBytes: 20_000 })).toEqual({ ok: false, errors: ["the file is larger than 16 KB"] });
  });
});
