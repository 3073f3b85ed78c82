/**
 * The reporter tier's pure decisions (ingress/src/reporter-tier.ts): which
 * first lines ask for a reproduction, who is the issue's author, and what a
 * repository's file says; in plain Node.
 */
import { describe, expect, it } from "vitest";
import { decideReporter, isIssueAuthor, isReproduceRequest, reportersOn, reporterRunClaim } from "../../src/reporter-tier";
import type { Trigger } from "../../src/trigger";

describe("isReproduceRequest", () => {
  it.each([
    "reproduce",
    "reproduce this",
    "reproduce this issue",
    "Reproduce This Issue",
    "REPRODUCE",
    "please reproduce",
    "Please reproduce this issue.",
    "please reproduce it",
    "reproduce this, please",
    "  reproduce this issue  \nit crashes on start, see above"
  ])("%j asks for a reproduction", (instruction) => {
    expect(isReproduceRequest(instruction)).toBe(true);
  });
  it.each([
    "open a PR fixing this",
    "reproduce and fix this",
    "reproduce this issue and open a PR",
    "fix this",
    "continue",
    "stop",
    "",
    "can you reproduce?",
    "thanks\nreproduce this"
  ])("%j does not", (instruction) => {
    expect(isReproduceRequest(instruction)).toBe(false);
  });
});

const trigger = (overrides: Partial<Trigger>): Trigger =>
  ({
    ref: { kind: "comment", id: 1 },
    user: { login: "Reporter", type: "User", id: 42 },
    issueAuthor: { login: "reporter", id: 42 },
    pullRequest: undefined,
    ...overrides
  }) as Trigger;

describe("isIssueAuthor", () => {
  it("the same account on an issue: yes (logins compare without case)", () => {
    expect(isIssueAuthor(trigger({}))).toBe(true);
  });
  it("another login, another id, a deleted author, a pull request or a review comment: no", () => {
    expect(isIssueAuthor(trigger({ issueAuthor: { login: "someone", id: 42 } }))).toBe(false);
    expect(isIssueAuthor(trigger({ issueAuthor: { login: "reporter", id: 43 } }))).toBe(false);
    expect(isIssueAuthor(trigger({ issueAuthor: null }))).toBe(false);
    expect(isIssueAuthor(trigger({ pullRequest: "fetch" }))).toBe(false);
    expect(isIssueAuthor(trigger({ ref: { kind: "review_comment", id: 1 } }))).toBe(false);
    expect(isIssueAuthor(trigger({ ref: { kind: "review", id: 1 } }))).toBe(false);
  });
});

describe("reportersOn and decideReporter", () => {
  it("only `reporters: reproduce` in a file that parses turns the tier on", () => {
    expect(reportersOn({ found: true, text: "version: 1\nreporters: reproduce\n" })).toBe(true);
    expect(reportersOn({ found: true, text: "version: 1\nreporters: off\n" })).toBe(false);
    expect(reportersOn({ found: true, text: "version: 1\n" })).toBe(false);
    expect(reportersOn({ found: true, text: "reporters: reproduce\n" })).toBe(false);
    expect(reportersOn({ found: true, tooLargeBytes: 20_000 })).toBe(false);
    expect(reportersOn({ found: false })).toBe(false);
  });
  it("a reproduction on a repository with the tier runs; anything else says why not", () => {
    expect(decideReporter("reproduce this", true)).toEqual({ ok: true });
    expect(decideReporter("open a PR fixing this", true)).toEqual({ ok: false, reason: "not_a_reproduction" });
    expect(decideReporter("reproduce this", false)).toEqual({ ok: false, reason: "reporters_off" });
  });
  it("the day's claim names the UTC day, the repository and the issue", () => {
    const at = Date.UTC(2026, 11, 2, 23, 59);
    expect(reporterRunClaim({ owner: "Acme", name: "Widgets" }, 7, at)).toBe("reporter-run:2026-12-02:acme/widgets#7");
    expect(reporterRunClaim({ owner: "acme", name: "widgets" }, 7, at + 60_000)).toBe("reporter-run:2026-12-03:acme/widgets#7");
  });
});
