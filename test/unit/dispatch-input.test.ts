import { describe, expect, it } from "vitest";
import {
  CI_FIX_INSTRUCTION,
  dispatchInputSchema,
  InvalidInputError,
  MAX_CI_EXCERPT_CHARS,
  MAX_CI_FAILURES,
  parseInput,
  submissionStatusInputSchema
} from "../../src/shared/dispatch";
import { sessionName } from "../../src/shared/session-name";
import { parseRepo } from "../../src/shared/repo";
import { AllowedReposConfigError, assertRepoAllowed, RepoNotAllowedError, resolveAllowlist } from "../../src/run/repo-allowlist";

const valid = {
  repo: "cloudflare/agents",
  issueNumber: 1859,
  instruction: "reproduce this issue",
  installationToken: "ghs_x"
};

describe("parseRepo", () => {
  it.each([
    "cloudflare/agents",
    "a/b",
    "octo-org/hello.world",
    "a1-b2/x_y-z.q",
    "x/.github",
    "x/a..b",
    `${"a".repeat(39)}/${"b".repeat(100)}`,
    // Enterprise Managed Users: handle_shortcode.
    "octocat_acme/widgets",
    "mona-cat_octo/x",
    // Accounts kept from before GitHub's current rule.
    "-a/b",
    "a-/b",
    "a--b/c"
  ])("accepts %s", (repo) => expect(parseRepo(repo).ok).toBe(true));
  it.each([
    "",
    "a",
    "a/b/c",
    "/b",
    "a/",
    "-/b",
    "a_b/c",
    "a__bcd/c",
    "a b/c",
    "a/b c",
    "a/..",
    "a/.",
    "a/b.git",
    "a/b.wiki",
    `${"a".repeat(40)}/b`,
    `a/${"b".repeat(101)}`,
    "a/b?c",
    "ä/b"
  ])("rejects %j", (repo) => expect(parseRepo(repo).ok).toBe(false));
});

describe("dispatch input", () => {
  it("parses a full valid input", () => {
    const input = { ...valid, commentId: 5, issueTitle: "t", requestedBy: { login: "octocat", avatarUrl: "https://x.test/a.png" } };
    expect(parseInput(dispatchInputSchema, input, "input")).toEqual(input);
  });

  it("allows an empty token (local dev) but not a missing one", () => {
    expect(parseInput(dispatchInputSchema, { ...valid, installationToken: "" }, "input").installationToken).toBe("");
    const { installationToken: _omitted, ...missing } = valid;
    expect(() => parseInput(dispatchInputSchema, missing, "input")).toThrow("invalid input: installationToken:");
  });

  it("takes the token's expiry as an ISO 8601 date-time with a time zone, and rejects anything else", () => {
    for (const expiresAt of ["2016-07-11T22:14:10Z", "2016-07-11T22:14:10.123Z", "2016-07-11T23:14:10+01:00"]) {
      expect(parseInput(dispatchInputSchema, { ...valid, installationTokenExpiresAt: expiresAt }, "input").installationTokenExpiresAt).toBe(expiresAt);
    }
    expect(parseInput(dispatchInputSchema, valid, "input")).not.toHaveProperty("installationTokenExpiresAt");
    for (const expiresAt of ["garbage", "", "2016-07-11", "2016-07-11T22:14:10", "2016-02-30T22:14:10Z", 1468275250000]) {
      expect(() => parseInput(dispatchInputSchema, { ...valid, installationTokenExpiresAt: expiresAt }, "input")).toThrow(
        /^invalid input: installationTokenExpiresAt: /
      );
    }
    expect(() => parseInput(dispatchInputSchema, { ...valid, installationTokenExpiresAt: "in an hour" }, "input")).toThrow(
      "invalid input: installationTokenExpiresAt: must be an ISO 8601 date-time with a time zone, such as 2025-01-01T12:00:00Z"
    );
  });

  it("accepts bot logins and rejects malformed ones", () => {
    expect(() => parseInput(dispatchInputSchema, { ...valid, requestedBy: { login: "renovate[bot]" } }, "input")).not.toThrow();
    expect(() => parseInput(dispatchInputSchema, { ...valid, requestedBy: { login: "x y" } }, "input")).toThrow(
      "invalid input: requestedBy.login: must be letters, digits and hyphens, or an Enterprise Managed User's handle_shortcode (such as mona_acme)"
    );
  });

  it("takes an Enterprise Managed User's issue end to end: repository, requester and session", () => {
    const input = { ...valid, repo: "octocat_acme/widgets", requestedBy: { login: "mona_acme" } };
    const parsed = parseInput(dispatchInputSchema, input, "input");
    expect(parsed).toEqual(input);
    expect(sessionName(parsed.repo, parsed.issueNumber)).toBe("octocat_acme-widgets-1859");
    expect(parseInput(submissionStatusInputSchema, { session: "octocat_acme-widgets-1859", submissionId: "s" }, "input").session).toBe(
      "octocat_acme-widgets-1859"
    );
  });

  it("accepts logins kept from before GitHub's current rule", () => {
    for (const login of ["artur-", "-ACE-", "0----0"]) {
      expect(parseInput(dispatchInputSchema, { ...valid, requestedBy: { login } }, "input").requestedBy?.login).toBe(login);
    }
  });

  it("refuses what GitHub refuses, naming the field and the rule", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ repo: "octocat_a/widgets" }, "invalid input: repo: owner must be an Enterprise Managed User's handle_shortcode, with a short code of 3-8 letters or digits"],
      [{ repo: "mona__acme/widgets" }, "invalid input: repo: owner must be an Enterprise Managed User's handle_shortcode, with a handle of letters, digits and single inner hyphens"],
      [{ repo: "acme/widgets.git" }, "invalid input: repo: name must not end in .git (GitHub drops it from a repository's name: leave it out)"],
      [{ repo: "acme/.." }, 'invalid input: repo: name must not be ".."'],
      [{ requestedBy: { login: "mona_ac" } }, "invalid input: requestedBy.login: must be an Enterprise Managed User's handle_shortcode, with a short code of 3-8 letters or digits"],
      [{ requestedBy: { login: "a".repeat(40) } }, "invalid input: requestedBy.login: must be at most 39 characters"],
      [{ requestedBy: { login: "mona_acme[bot]" } }, "invalid input: requestedBy.login: must be an App's slug (letters, digits and hyphens) followed by [bot]"]
    ];
    for (const [fields, message] of cases) {
      expect(() => parseInput(dispatchInputSchema, { ...valid, ...fields }, "input")).toThrow(message);
    }
  });

  it("throws a typed error naming the field", () => {
    try {
      parseInput(dispatchInputSchema, { ...valid, issueNumber: "7" }, "input");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error).toMatchObject({ name: "InvalidInputError", code: "invalid_input", field: "issueNumber" });
    }
  });

  it("takes the App's bot as GitHub names it, and refuses a bad login or id naming bot.login or bot.id", () => {
    const bot = { login: "agent-think[bot]", id: 41898282 };
    expect(parseInput(dispatchInputSchema, { ...valid, bot }, "input").bot).toEqual(bot);
    expect(parseInput(dispatchInputSchema, valid, "input").bot).toBeUndefined();
    const cases: Array<[unknown, string]> = [
      [{ login: "agent-think", id: 1 }, "invalid input: bot.login: must end in [bot]"],
      [{ login: "agent think[bot]", id: 1 }, "invalid input: bot.login: must be an App's slug"],
      [{ login: "[bot]", id: 1 }, "invalid input: bot.login:"],
      [{ login: "agent-think[bot]", id: 0 }, "invalid input: bot.id:"],
      [{ login: "agent-think[bot]", id: -5 }, "invalid input: bot.id:"],
      [{ login: "agent-think[bot]", id: 1.5 }, "invalid input: bot.id:"],
      [{ login: "agent-think[bot]", id: "41898282" }, "invalid input: bot.id:"],
      [{ login: "agent-think[bot]" }, "invalid input: bot.id:"],
      [{ id: 1 }, "invalid input: bot.login:"],
      [{ ...bot, type: "Bot" }, "invalid input: bot.type: unknown field"]
    ];
    for (const [value, message] of cases) {
      expect(() => parseInput(dispatchInputSchema, { ...valid, bot: value }, "input")).toThrow(message);
    }
  });

  it("names an unknown field", () => {
    expect(() => parseInput(dispatchInputSchema, { ...valid, token: "x" }, "input")).toThrow("invalid input: token: unknown field");
  });
});

describe("a CI follow-up's ci field", () => {
  const sha = "a".repeat(40);
  const pullRequest = { number: 1859, headRepo: "cloudflare/agents", headRef: "agent-think/issue-12", headSha: sha, baseRef: "main", fork: false, author: "agent-think[bot]" };
  const failure = { name: "test (ubuntu-latest)", conclusion: "failure", url: "https://github.com/cloudflare/agents/actions/runs/1/job/2", summary: "Process completed with exit code 1.", excerpt: "FAIL test/x.test.ts" };
  const ci = { headSha: sha, failures: [failure] };
  const input = { ...valid, instruction: CI_FIX_INSTRUCTION, pullRequest, ci };
  const refused = (fields: Record<string, unknown>) => () => parseInput(dispatchInputSchema, { ...input, ...fields }, "input");

  it("parses the failures on the pull request's head, and a pull request whose head GitHub did not name", () => {
    expect(parseInput(dispatchInputSchema, input, "input").ci).toEqual(ci);
    const { headSha: _, ...noHead } = pullRequest;
    expect(parseInput(dispatchInputSchema, { ...input, pullRequest: noHead }, "input").ci).toEqual(ci);
    const bare = { headSha: sha, failures: [{ name: "lint", conclusion: "timed_out" }, { name: "build", conclusion: "startup_failure" }] };
    expect(parseInput(dispatchInputSchema, { ...input, ci: bare }, "input").ci).toEqual(bare);
  });

  it("needs the pull request, and the pull request's own head", () => {
    const { pullRequest: _, ...alone } = input;
    expect(() => parseInput(dispatchInputSchema, alone, "input")).toThrow("invalid input: ci: needs pullRequest");
    expect(refused({ ci: { ...ci, headSha: "b".repeat(40) } })).toThrow("invalid input: ci.headSha: must be pullRequest.headSha");
    expect(refused({ tier: "reporter" })).toThrow("invalid input: ci: is never a reporter-tier run");
  });

  it("is bounded: 1 to 10 failures, failing conclusions only, short strings, an http(s) link", () => {
    const cases: [unknown, string][] = [
      [{ ...ci, failures: [] }, "invalid input: ci.failures: must name at least one failure"],
      [{ ...ci, failures: Array.from({ length: MAX_CI_FAILURES + 1 }, () => failure) }, "invalid input: ci.failures: must have at most 10 failures"],
      [{ ...ci, failures: [{ ...failure, conclusion: "success" }] }, "invalid input: ci.failures.0.conclusion:"],
      [{ ...ci, failures: [{ ...failure, conclusion: "cancelled" }] }, "invalid input: ci.failures.0.conclusion:"],
      [{ ...ci, failures: [{ ...failure, name: "" }] }, "invalid input: ci.failures.0.name:"],
      [{ ...ci, failures: [{ ...failure, name: "x".repeat(201) }] }, "invalid input: ci.failures.0.name:"],
      [{ ...ci, failures: [{ ...failure, excerpt: "x".repeat(MAX_CI_EXCERPT_CHARS + 1) }] }, "invalid input: ci.failures.0.excerpt:"],
      [{ ...ci, failures: [{ ...failure, summary: "x".repeat(1001) }] }, "invalid input: ci.failures.0.summary:"],
      [{ ...ci, failures: [{ ...failure, url: "javascript:alert(1)" }] }, "invalid input: ci.failures.0.url:"],
      [{ ...ci, failures: [{ ...failure, log: "x" }] }, "invalid input: ci.failures.0.log: unknown field"],
      [{ ...ci, headSha: "abc" }, "invalid input: ci.headSha: must be a full commit SHA"],
      [{ ...ci, checkSuiteId: 5 }, "invalid input: ci.checkSuiteId: unknown field"]
    ];
    for (const [value, message] of cases) expect(refused({ ci: value })).toThrow(message);
    expect(parseInput(dispatchInputSchema, { ...input, ci: { ...ci, failures: [{ ...failure, excerpt: "x".repeat(MAX_CI_EXCERPT_CHARS) }] } }, "input").ci?.failures[0]?.excerpt).toHaveLength(MAX_CI_EXCERPT_CHARS);
  });
});

describe("ALLOWED_REPOS at dispatch (src/run/repo-allowlist.ts)", () => {
  const production = { LOCAL_DEV: "" };
  const local = { LOCAL_DEV: "1" };

  it("reads a list, an empty one by LOCAL_DEV, and one that does not parse", () => {
    expect(resolveAllowlist({ ...production, ALLOWED_REPOS: " Acme/Widgets, acme/gadgets ," })).toEqual({ kind: "listed", repos: new Set(["acme/widgets", "acme/gadgets"]) });
    expect(resolveAllowlist({ ...local, ALLOWED_REPOS: "acme/widgets" })).toEqual({ kind: "listed", repos: new Set(["acme/widgets"]) });
    expect(resolveAllowlist({ ...production, ALLOWED_REPOS: "" })).toEqual({ kind: "none" });
    expect(resolveAllowlist(production)).toEqual({ kind: "none" });
    expect(resolveAllowlist({ ...local, ALLOWED_REPOS: " , " })).toEqual({ kind: "any" });
    expect(resolveAllowlist({ ...local, ALLOWED_REPOS: "acme/widgets, acme" })).toEqual({
      kind: "invalid",
      error: 'ALLOWED_REPOS must be a comma-separated list of owner/name, and "acme" is not one'
    });
  });

  it("allows a listed repository in any case, and refuses any other, naming it and ALLOWED_REPOS", () => {
    const config = { ...production, ALLOWED_REPOS: "acme/widgets" };
    expect(() => assertRepoAllowed("ACME/Widgets", config)).not.toThrow();
    expect(() => assertRepoAllowed("acme/widgets-evil", config)).toThrow(RepoNotAllowedError);
    expect(() => assertRepoAllowed("acme/widgets-evil", config)).toThrow(/^acme\/widgets-evil is not in ALLOWED_REPOS: /);
    // A non-empty list holds in local dev too.
    expect(() => assertRepoAllowed("evil/widgets", { ...local, ALLOWED_REPOS: "acme/widgets" })).toThrow(RepoNotAllowedError);
  });

  it("empty: any repository in local dev, none outside it", () => {
    expect(() => assertRepoAllowed("anyone/anything", { ...local, ALLOWED_REPOS: "" })).not.toThrow();
    expect(() => assertRepoAllowed("acme/widgets", { ...production, ALLOWED_REPOS: "" })).toThrow(/^acme\/widgets is not in ALLOWED_REPOS, which is empty: /);
  });

  it("a list that does not parse refuses every repository with a configuration error", () => {
    let refused: unknown;
    try {
      assertRepoAllowed("acme/widgets", { ...local, ALLOWED_REPOS: "acme/widgets acme/gadgets" });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AllowedReposConfigError);
    expect(refused).toMatchObject({ name: "AllowedReposConfigError", code: "bad_allowed_repos", message: expect.stringMatching(/^ALLOWED_REPOS must be /) });
  });
});

describe("refusals after RPC", () => {
  it("are recognised with or without the class name a crossing puts before the message", async () => {
    const { CiRunInProgressError, isCiRefusal } = await import("../../src/shared/ci-refusal");
    const { NothingToContinueError, continueRefusalText, isContinueRefusal } = await import("../../src/shared/continue-refusal");
    const ci = new CiRunInProgressError("acme-widgets-7");
    for (const crossed of [ci, new Error(ci.message), new Error(`CiRunInProgressError: ${ci.message}`)]) expect(isCiRefusal(crossed)).toBe(true);
    expect(isCiRefusal(new Error("Error: something else"))).toBe(false);
    expect(isCiRefusal(new Error(`dispatch failed: ${ci.message}`))).toBe(false);
    const nothing = new NothingToContinueError("running");
    const crossed = new Error(`NothingToContinueError: ${nothing.message}`);
    expect(isContinueRefusal(crossed)).toBe(true);
    expect(continueRefusalText(crossed)).toBe(continueRefusalText(nothing));
  });
});
