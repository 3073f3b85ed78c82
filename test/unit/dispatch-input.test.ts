import { describe, expect, it } from "vitest";
import { dispatchInputSchema, InvalidInputError, parseInput } from "../../src/shared/dispatch";
import { parseRepo } from "../../src/shared/repo";

const valid = {
  repo: "cloudflare/agents",
  issueNumber: 1859,
  instruction: "reproduce this issue",
  installationToken: "ghs_x"
};

describe("parseRepo", () => {
  it.each(["cloudflare/agents", "a/b", "octo-org/hello.world", "a1-b2/x_y-z.q", "x/.github", `${"a".repeat(39)}/${"b".repeat(100)}`])(
    "accepts %s",
    (repo) => expect(parseRepo(repo).ok).toBe(true)
  );
  it.each(["", "a", "a/b/c", "/b", "a/", "-a/b", "a-/b", "a--b/c", "a b/c", "a/b c", "a/..", "a/.", `${"a".repeat(40)}/b`, `a/${"b".repeat(101)}`, "a/b?c", "ä/b"])(
    "rejects %j",
    (repo) => expect(parseRepo(repo).ok).toBe(false)
  );
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
    expect(() => parseInput(dispatchInputSchema, { ...valid, requestedBy: { login: "-x" } }, "input")).toThrow(
      "invalid input: requestedBy.login:"
    );
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

  it("names an unknown field", () => {
    expect(() => parseInput(dispatchInputSchema, { ...valid, token: "x" }, "input")).toThrow("invalid input: token: unknown field");
  });
});
