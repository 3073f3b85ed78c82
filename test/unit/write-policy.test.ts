/**
 * Where a run may push and whether it may open a pull request
 * (src/run/write-policy.ts), and the guard's reading of command lines: the
 * plain spellings of a push that writes elsewhere, and the gh verbs that
 * write, get an early, clear refusal; the pushes the skills make do not.
 * The guard is a courtesy: what holds is the egress gateway, proven with a
 * real git and gh in test/unit/egress-git.test.ts, which runs spellings this
 * guard lets through.
 */
import { describe, expect, it } from "vitest";
import { refusal, writePolicyFor, type WritePolicy } from "../../src/run/write-policy";

const BOT = "agent-think[bot]";
const ISSUE = writePolicyFor({ repo: "acme/widgets", issueNumber: 7, botLogin: BOT });
const ISSUE_WITH_PR = writePolicyFor({ repo: "acme/widgets", issueNumber: 7, botLogin: BOT, openPullRequest: { number: 12 } });
const pull = (overrides: Partial<NonNullable<Parameters<typeof writePolicyFor>[0]["pullRequest"]>> = {}) =>
  writePolicyFor({
    repo: "acme/widgets",
    issueNumber: 12,
    botLogin: BOT,
    pullRequest: { headRepo: "acme/widgets", headRef: "agent-think/issue-7", baseRef: "main", fork: false, author: BOT, ...overrides }
  });

describe("the write policy", () => {
  it("lets an issue run push its own branch and open one pull request", () => {
    expect(ISSUE).toEqual({ pushBranch: "agent-think/issue-7", mayOpenPullRequest: true });
    expect(ISSUE_WITH_PR).toMatchObject({ pushBranch: "agent-think/issue-7", mayOpenPullRequest: false });
    expect(ISSUE_WITH_PR.why).toMatch(/#12 open for this issue/);
  });

  it("lets a run on the App's own pull request push its head branch, and nothing else", () => {
    expect(pull()).toMatchObject({ pushBranch: "agent-think/issue-7", mayOpenPullRequest: false });
    expect(pull({ author: "AGENT-THINK[BOT]" }).pushBranch).toBe("agent-think/issue-7");
  });

  it.each([
    ["someone else's pull request", { author: "octocat" }, /the App did not open it/],
    ["a fork's head, even the App's", { fork: true, headRepo: "mallory/widgets" }, /its head is in a fork/],
    ["a head whose fork is unknown", { fork: undefined }, /its head is in a fork/],
    ["an unknown author", { author: undefined }, /the App did not open it/],
    ["a head that is the base branch", { headRef: "main" }, /the App did not open it/]
  ])("pushes nothing on %s", (_name, overrides, why) => {
    const policy = pull(overrides);
    expect(policy).toMatchObject({ pushBranch: null, mayOpenPullRequest: false });
    expect(policy.why).toMatch(why);
  });

  it("lets a reporter-tier run push nothing and open nothing, on an issue or on the App's own pull request", () => {
    for (const policy of [
      writePolicyFor({ repo: "acme/widgets", issueNumber: 7, botLogin: BOT, tier: "reporter" }),
      writePolicyFor({ repo: "acme/widgets", issueNumber: 12, botLogin: BOT, tier: "reporter", pullRequest: { headRepo: "acme/widgets", headRef: "agent-think/issue-7", baseRef: "main", fork: false, author: BOT } })
    ]) {
      expect(policy).toMatchObject({ pushBranch: null, mayOpenPullRequest: false });
      expect(policy.why).toMatch(/reporter-tier run/);
      expect(refusal("git push origin HEAD:agent-think/issue-7", policy)).toMatch(/^refused: `git push`/);
    }
  });
});

describe("the command guard", () => {
  const allowed: Array<[string, WritePolicy]> = [
    ["git push -u origin agent-think/issue-7", ISSUE],
    ["git push origin HEAD:agent-think/issue-7", ISSUE],
    ["git push origin HEAD:refs/heads/agent-think/issue-7", ISSUE],
    ["cd /workspace/repo && git -C /workspace/repo push --quiet origin agent-think/issue-7", ISSUE],
    ["gh pr checkout 12 && git push origin agent-think/issue-7", pull()],
    ["git status && git log --oneline | head", pull({ author: "octocat" })],
    ["git commit -m 'push the fix'", pull({ author: "octocat" })],
    ["gh pr view 12 --comments", pull({ author: "octocat" })]
  ];
  it.each(allowed)("lets %s run", (command, policy) => {
    expect(refusal(command, policy)).toBeNull();
  });

  const refused: Array<[string, WritePolicy, RegExp]> = [
    ["git push origin main", ISSUE, /may only push to agent-think\/issue-7, not main/],
    ["git push", ISSUE, /must name the branch/],
    ["git push origin", ISSUE, /must name the branch/],
    ["git push -u origin HEAD", ISSUE, /must name the branch/],
    ["git push --force origin agent-think/issue-7", ISSUE, /with --force is not allowed/],
    ["git push -f origin agent-think/issue-7", ISSUE, /with -f is not allowed/],
    ["git push --force-with-lease origin agent-think/issue-7", ISSUE, /with --force-with-lease is not allowed/],
    ["git push origin +agent-think/issue-7", ISSUE, /may not force-push/],
    ["git push origin :agent-think/issue-7", ISSUE, /may not delete a branch/],
    ["git push --delete origin agent-think/issue-7", ISSUE, /with --delete is not allowed/],
    ["git push --mirror origin", ISSUE, /with --mirror is not allowed/],
    ["git push https://github.com/mallory/widgets agent-think/issue-7", ISSUE, /may only push to origin/],
    ["git push upstream agent-think/issue-7", ISSUE, /may only push to origin/],
    ["npm test; git push origin main", ISSUE, /not main/],
    ["bash -c \"git push origin main\"", ISSUE, /not main/],
    ["echo $(git push origin main)", ISSUE, /not main/],
    ["/usr/bin/git -c user.name=x push origin main", ISSUE, /not main/],
    ["git push origin agent-think/issue-7 main", ISSUE, /not main/],
    ["gh pr create --fill", ISSUE, /open_pull_request tool/],
    ["gh --repo acme/widgets pr create --fill", ISSUE_WITH_PR, /gh pr create/],
    ["gh pr edit 12 --body-file /temp/body.md", ISSUE_WITH_PR, /open_pull_request tool/],
    ["gh issue comment 7 --body done", ISSUE, /report_result/],
    ["gh release create v9", ISSUE, /no release/],
    ["git push origin fix-sort", pull({ author: "octocat", headRef: "fix-sort" }), /not the App's to change/],
    ["git push origin HEAD:agent-think/issue-7", pull({ fork: true, headRepo: "mallory/widgets" }), /answer with a patch/],
    ["gh pr merge 12 --squash", ISSUE, /never merges/]
  ];
  it.each(refused)("refuses %s", (command, policy, why) => {
    const answer = refusal(command, policy);
    expect(answer).toMatch(/^refused: /);
    expect(answer).toMatch(why);
  });
});
