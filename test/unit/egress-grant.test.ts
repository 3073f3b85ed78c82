/**
 * The grant: what the gateway may do for a sandbox given what the agent
 * knows right now. A missing fact makes it smaller: no running turn, no
 * credential at all; no write policy yet, no push and no write token.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_ALLOW } from "../../src/egress/allowlist";
import { egressOpen, grantFor } from "../../src/egress/grant";

const TOKENS = { readToken: "ghs_READ", writeToken: "ghs_WRITE" };
const RUN = { submissionId: "sub-1", repo: "Octo/Repo", ...TOKENS };

describe("grantFor", () => {
  it("grants nothing credentialed without a running turn", () => {
    const grant = grantFor({ ...TOKENS, pushBranch: "agent/issue-7", headRepo: "fork/repo" });
    expect(grant).toEqual({ readRepos: [], pushBranch: null, readToken: "", writeToken: "", allow: grant.allow, open: false });
    expect(grant).not.toHaveProperty("submissionId");
    expect(grant).not.toHaveProperty("repo");
  });

  it("grants nothing credentialed with a submission but no repository", () => {
    const grant = grantFor({ ...TOKENS, submissionId: "sub-1", pushBranch: "agent/issue-7" });
    expect(grant).toMatchObject({ readRepos: [], pushBranch: null, readToken: "", writeToken: "" });
    expect(grant).not.toHaveProperty("submissionId");
  });

  it("grants nothing credentialed with a repository but no submission", () => {
    const grant = grantFor({ ...TOKENS, repo: "octo/repo", pushBranch: "agent/issue-7" });
    expect(grant).toMatchObject({ readRepos: [], pushBranch: null, readToken: "", writeToken: "" });
    expect(grant).not.toHaveProperty("repo");
  });

  it("is read-only while no write policy is known (pushBranch undefined)", () => {
    expect(grantFor(RUN)).toEqual({
      submissionId: "sub-1",
      repo: "octo/repo",
      readRepos: ["octo/repo"],
      pushBranch: null,
      readToken: "ghs_READ",
      writeToken: "",
      allow: grantFor(RUN).allow,
      open: false
    });
  });

  it("is read-only when the policy allows no push", () => {
    expect(grantFor({ ...RUN, pushBranch: null })).toMatchObject({ pushBranch: null, readToken: "ghs_READ", writeToken: "" });
  });

  it("keeps the write token with a push branch", () => {
    expect(grantFor({ ...RUN, pushBranch: "agent/issue-7" })).toMatchObject({
      repo: "octo/repo",
      pushBranch: "agent/issue-7",
      readToken: "ghs_READ",
      writeToken: "ghs_WRITE"
    });
  });

  it("adds a pull request's head repository to the reads, lowercased", () => {
    expect(grantFor({ ...RUN, headRepo: "Fork-Owner/Repo" }).readRepos).toEqual(["octo/repo", "fork-owner/repo"]);
  });

  it("lists the run's repository once when the head is the same repository", () => {
    expect(grantFor({ ...RUN, headRepo: "OCTO/REPO" }).readRepos).toEqual(["octo/repo"]);
  });

  it("allows the defaults read-only, then the repository's entries, then the operator's", () => {
    const grant = grantFor({ ...RUN, repositoryAllow: ["api.example.com"], egressAllow: "Mirror.Corp, https://bad.example, *.com, *.internal.example" });
    const named = grant.allow.slice(DEFAULT_ALLOW.length);
    expect(grant.allow.slice(0, DEFAULT_ALLOW.length).every((entry) => entry.source === "default" && entry.methods?.join() === "GET,HEAD")).toBe(true);
    expect(named).toEqual([
      { pattern: "api.example.com", methods: null, source: "repository" },
      { pattern: "mirror.corp", methods: null, source: "operator" },
      { pattern: "*.internal.example", methods: null, source: "operator" }
    ]);
  });

  it("keeps the allowlist without a running turn", () => {
    const grant = grantFor({ ...TOKENS, egressAllow: "mirror.corp" });
    expect(grant.allow.at(-1)).toEqual({ pattern: "mirror.corp", methods: null, source: "operator" });
  });

  it.each([
    ["open", true],
    [" OPEN ", true],
    ["Open", true],
    [undefined, false],
    ["", false],
    ["allowlist", false],
    ["opened", false],
    ["open,allowlist", false]
  ] as const)("reads EGRESS=%j as open: %s", (egress, open) => {
    expect(egressOpen(egress)).toBe(open);
    expect(grantFor({ ...RUN, ...(egress === undefined ? {} : { egress }) }).open).toBe(open);
  });

  it("keeps GitHub's rules when egress is open: no push without a policy", () => {
    expect(grantFor({ ...RUN, egress: "open" })).toMatchObject({ open: true, pushBranch: null, writeToken: "" });
  });
});
