/**
 * scripts/lib/doctor/ref-patterns.ts: does an environment's deployment
 * branch pattern let in a run for the App's branches or pull requests, read
 * as GitHub documents the patterns (Ruby's File.fnmatch, wildcards never
 * matching `/`), with "cannot tell" where the documentation leaves a
 * reading open. Each case gives the name GitHub would let in.
 */
import { describe, expect, it } from "vitest";
import { patternReachesApp } from "../../scripts/lib/doctor/ref-patterns";

describe("a deployment branch pattern against the App's branches and pull requests", () => {
  it.each([
    ["main"],
    ["release/*"],
    // A wildcard never matches `/`, so a one-segment pattern leaves out agent-think/<anything>.
    ["*"],
    ["agent-*"],
    ["agent-think*"],
    // An escaped `*` is the character itself, which no branch name may hold.
    ["agent-think/\\*"],
    ["refs/pull/*/head"],
    ["[!a]gent-think/*"]
  ])("%s lets in neither", (pattern) => {
    expect(patternReachesApp(pattern)).toEqual({ kind: "none" });
  });

  it.each([
    ["agent-think/*", "agent-think/issue-1"],
    ["agent-think/**", "agent-think/issue-1"],
    ["**/*", "agent-think/issue-1"],
    ["*/*", "agent-think/issue-1"],
    ["agent?think/*", "agent-think/issue-1"],
    ["[a-c]gent-think/issue-[0-9]*", "agent-think/issue-1"],
    ["agent**/*", "agent-think/issue-1"],
    ["agent-think/x[0-9]", "agent-think/x0"],
    ["**/fix", "agent-think/fix"],
    ["refs/pull/*/merge", "refs/pull/1/merge"],
    ["refs/pull/4[2-3]/merge", "refs/pull/42/merge"],
    ["refs/*/*/merge", "refs/pull/1/merge"]
  ])("%s lets in %s", (pattern, name) => {
    expect(patternReachesApp(pattern)).toEqual({ kind: "matches", name });
  });

  it("cannot tell where GitHub's documentation leaves the reading open, and says which way it would let the App in", () => {
    expect(patternReachesApp("**")).toEqual({
      kind: "unknown",
      why: "GitHub documents that wildcards never match /, and does not say whether ** is an exception; read the other way, it lets in agent-think/issue-1"
    });
    expect(patternReachesApp("{main,agent-think/*}")).toEqual({
      kind: "unknown",
      why: "GitHub does not document whether {a,b} is a choice or literal text; read the other way, it lets in agent-think/issue-1"
    });
    expect(patternReachesApp("[main")).toEqual({ kind: "unknown", why: "it has a [ that is not closed" });
  });

  it("answers the same whichever way a reading goes when both agree", () => {
    expect(patternReachesApp("{main,release/*}")).toEqual({ kind: "none" });
    expect(patternReachesApp("release/**")).toEqual({ kind: "none" });
    expect(patternReachesApp("agent-think/{a,b}*")).toEqual({ kind: "matches", name: "agent-think/{a,b}" });
  });
});
