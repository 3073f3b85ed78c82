/**
 * When a run's commits are made through GitHub's API (src/run/signed-commits.ts): where
 * `.github/agent-think.yml` asks, where a rule of the push branch or the default branch requires
 * signatures, and where GitHub could not be asked (said in `unread`, never a silent no); by git
 * only when every read said no. In that mode the command guard answers a `git push` with what to
 * do instead (src/run/write-policy.ts), and `open_pull_request` makes the commits before it
 * proves or opens anything, reports GitHub's refusal as its error and opens nothing then
 * (src/steps/open-pull-request.ts).
 */
import { describe, expect, it } from "vitest";
import type { PullRequestClient } from "../../src/github/pull-requests";
import { commitsFor, requiresSignatures } from "../../src/run/signed-commits";
import { refusal, type WritePolicy } from "../../src/run/write-policy";
import type { ApiCommitsResult } from "../../src/steps/api-commits";
import { openPullRequest } from "../../src/steps/open-pull-request";

const BRANCH = "agent-think/issue-7";
const no = (branch: string) => ({ branch, requiresSignatures: false });

describe("how a run's commits reach GitHub", () => {
  it("goes through the API where the config asks, or a rule of either branch requires signed commits", () => {
    expect(commitsFor({ configAsks: true, rules: [no(BRANCH), no("main")] })).toMatchObject({ via: "api", why: ".github/agent-think.yml asks for signed commits (commits: { signed: true })" });
    expect(commitsFor({ configAsks: false, rules: [{ branch: BRANCH, requiresSignatures: true }, no("main")] })).toMatchObject({ via: "api", why: `a ruleset requires signed commits on ${BRANCH}` });
    const onMain = commitsFor({ configAsks: false, rules: [no(BRANCH), { branch: "main", requiresSignatures: true }] });
    expect(onMain).toMatchObject({ via: "api", why: "a ruleset requires signed commits on main", how: expect.stringMatching(/^Do not git push/) });
    expect(onMain.unread).toBeUndefined();
  });

  it("counts a read GitHub did not answer as a yes, and says which", () => {
    const decided = commitsFor({ configAsks: false, configUnread: "GitHub read .github/agent-think.yml: 502", rules: [{ branch: BRANCH, unread: "GitHub read the rules: 403 Resource not accessible by integration" }, no("main")] });
    expect(decided).toMatchObject({ via: "api", why: expect.stringMatching(/^GitHub could not be asked whether this repository requires signed commits/) });
    expect(decided.unread).toEqual([".github/agent-think.yml: GitHub read .github/agent-think.yml: 502", `the rules of ${BRANCH}: GitHub read the rules: 403 Resource not accessible by integration`]);
    // A yes that was read stays the reason; what could not be read is still said.
    expect(commitsFor({ configAsks: true, rules: [{ branch: BRANCH, unread: "timed out" }, no("main")] })).toMatchObject({ via: "api", unread: [`the rules of ${BRANCH}: timed out`] });
  });

  it("stays with git only when every read said no", () => {
    expect(commitsFor({ configAsks: false, rules: [no(BRANCH), no("main")] })).toEqual({
      via: "git",
      why: `no ruleset requires signed commits on ${BRANCH} and main, and .github/agent-think.yml does not ask for them`
    });
  });

  it("reads required_signatures among a branch's rules, and nothing else as it", () => {
    expect(requiresSignatures([{ type: "deletion" }, { type: "required_signatures", ruleset_id: 4 }])).toBe(true);
    expect(requiresSignatures([{ type: "required_linear_history" }])).toBe(false);
    expect(requiresSignatures([])).toBe(false);
    expect(requiresSignatures({ type: "required_signatures" })).toBe(false);
  });

  it("answers a git push with what to do instead, however it is spelt, and lets commits be made", () => {
    const api: WritePolicy = { pushBranch: BRANCH, mayOpenPullRequest: true, commitsVia: "api" };
    for (const command of [`git push origin ${BRANCH}`, `git push origin HEAD:${BRANCH}`, `cd /workspace/repo && git commit -am fix && git push`]) {
      expect(refusal(command, api)).toMatch(/^refused: `git push` cannot land unsigned commits here: .* Commit locally, then call open_pull_request/);
    }
    expect(refusal("git commit -am fix", api)).toBeNull();
    expect(refusal(`git push origin ${BRANCH}`, { pushBranch: BRANCH, mayOpenPullRequest: true })).toBeNull();
  });
});

describe("open_pull_request where the commits must be signed", () => {
  const target = { repo: "acme/widgets", policy: { pushBranch: BRANCH, mayOpenPullRequest: true }, botLogin: "agent-think[bot]", commits: "api" as const };
  const made = { local: "a".repeat(40), oid: "c".repeat(40), headline: "Add, do not increment" };

  function deps(commit: () => Promise<ApiCommitsResult>) {
    const order: string[] = [];
    const client: PullRequestClient = {
      defaultBranch: async () => "main",
      openByAuthor: async () => null,
      open: async () => {
        order.push("open");
        return { number: 12, url: "https://github.com/acme/widgets/pull/12" };
      },
      update: async () => ({ number: 12, url: "https://github.com/acme/widgets/pull/12" })
    };
    return {
      order,
      deps: {
        client,
        links: { publicBaseUrl: "https://agent-think.example.com", githubWebUrl: "https://github.com", repo: "acme/widgets" },
        redact: (text: string) => text,
        commit: async (branch: string) => {
          order.push(`commit ${branch}`);
          return commit();
        },
        prove: async () => {
          order.push("prove");
          return undefined;
        }
      }
    };
  }

  it("makes the commits first, then proves and opens, and says which commits it made", async () => {
    const { deps: given, order } = deps(async () => ({ ok: true, made: [made], head: made.oid, created: { base: "b".repeat(40) }, synced: true }));
    const result = await openPullRequest({ title: "Fix the sum", body: "Fixes #7" }, target, given);
    expect(order).toEqual([`commit ${BRANCH}`, "prove", "open"]);
    expect(result).toMatchObject({ ok: true, action: "opened", number: 12, commits: { made: [made], head: made.oid, createdBranch: true, clone: "moved onto the commits GitHub made" } });
  });

  it("reports what GitHub refused and opens nothing", async () => {
    const refused = 'GitHub refused commit 1 of 1 (aaaaaaa "Add, do not increment"): GitHub refused the commit: STALE_DATA: Expected branch to point to "x" but it did not. Pull and try again.';
    const { deps: given, order } = deps(async () => ({ ok: false, error: refused }));
    const result = await openPullRequest({ title: "Fix the sum", body: "Fixes #7" }, target, given);
    expect(result).toEqual({ ok: false, error: `the commits were not made on GitHub: ${refused}` });
    expect(order).toEqual([`commit ${BRANCH}`]);
  });

  it("refuses where this deployment cannot make them, and leaves a git run alone", async () => {
    const { deps: given, order } = deps(async () => ({ ok: true, made: [], head: made.oid, synced: true }));
    const { commit: _commit, ...without } = given;
    expect(await openPullRequest({ title: "Fix", body: "" }, target, without)).toEqual({ ok: false, error: "this run's commits must be made through GitHub's API, and this deployment cannot make them" });
    const { commits: _via, ...byGit } = target;
    expect(await openPullRequest({ title: "Fix", body: "" }, byGit, given)).toMatchObject({ ok: true, action: "opened" });
    expect(order).toEqual(["prove", "open"]);
  });
});
