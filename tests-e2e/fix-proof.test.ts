/**
 * A fix's proof, end to end and offline: a maintainer's two mentions go
 * through the GitHub stand-in's API, which delivers them to the webhook app
 * under real `wrangler dev`, which dispatches to the agent Worker. The first
 * run reproduces the bug and names its check (recorded as a maintainer's
 * run's); the second opens a pull request through the stand-in, and the
 * Worker, asked to re-run that check on the base and the head, finds no
 * container here (wrangler dev has no engine). So the pull request's body
 * ends with the Worker's proof section saying so and whose check it was, and
 * the closing comment is `pr-unproven`, although the model reported
 * `pr-opened`: what a maintainer sees on GitHub when the proof could not
 * hold. The red-then-green path needs a container; it is played on the
 * recording container in test/fix-proof.test.ts (docs/skills.md).
 */
import { describe, expect, it } from "vitest";
import type { Octokit } from "@octokit/rest";
import { SHARED_CHAIN_REPOS, test, type Chain } from "./support/chain";
import type { StandinRecord } from "../scripts/lib/github-standin";
import type { ThreadDetail } from "../src/shared/command-center";
import { NO_CONTAINER } from "../src/run/fix-proof";

const REPO = SHARED_CHAIN_REPOS.fixProof;
const [owner, name] = REPO.split("/") as [string, string];
const repo = { owner, repo: name };
const START_TIMEOUT_MS = 120_000;
const CHECK = "cd /workspace/repro && npm install ../repo > /dev/null && npm run repro";

let chain: Chain;
let maintainer: Octokit;

// The job's shared chain (support/chain.ts): the other files on it work in repositories of their own.
test.beforeAll(({ sharedChain }) => {
  ({ chain, maintainer } = sharedChain);
}, START_TIMEOUT_MS);

const bodyOf = (record: StandinRecord) => String((record.body as { body?: unknown } | undefined)?.body ?? "");
/** The closing comments on the issue, oldest first. */
const closings = (issueNumber: number) =>
  chain.standin.records().filter((record) => record.method === "POST" && record.path === `/repos/${REPO}/issues/${issueNumber}/comments` && bodyOf(record).includes(":closing -->"));

describe("a fix's proof, through the stand-in and both Workers", () => {
  it("re-runs the thread's reproduction check for the pull request, and without a container here the pull request is not proven, on GitHub", async () => {
    const issue = (await maintainer.rest.issues.create({ ...repo, title: "sum(2, 2) is 5", body: "sum(2, 2) returns 5; the README says it adds." })).data;
    const reproduced = {
      outcome: "reproduced",
      summary: "sum(2, 2) returns 5.",
      steps: ["npm run repro", "prints actual 5, expected 4"],
      evidence: "README.md: sum adds its arguments.",
      check: CHECK
    };
    await maintainer.rest.issues.createComment({ ...repo, issue_number: issue.number, body: `@agent-think reproduce this issue\nTEST: result-json ${JSON.stringify(reproduced)}\nTEST: reply done` });
    await expect.poll(() => closings(issue.number).length, { timeout: 60_000, interval: 250 }).toBe(1);
    expect(bodyOf(closings(issue.number)[0]!), chain.logs()).toContain("### ✅ Reproduced");

    const fixed = {
      outcome: "pr-opened",
      summary: "sum adds again.",
      pullRequestUrl: `https://github.com/${REPO}/pull/1`,
      changes: ["src/sum.js: a + b"],
      verification: "The reproduction's check: exit 0 now."
    };
    const open = { title: "Add, do not increment", body: `Fixes #${issue.number}` };
    await maintainer.rest.issues.createComment({
      ...repo,
      issue_number: issue.number,
      body: [`@agent-think open a PR fixing this`, `TEST: call open_pull_request ${JSON.stringify(open)}`, `TEST: result-json ${JSON.stringify(fixed)}`, "TEST: reply done"].join("\n")
    });
    await expect.poll(() => closings(issue.number).length, { timeout: 60_000, interval: 250 }).toBe(2);

    // The pull request went through the stand-in, its body ending with the Worker's proof section.
    const opened = chain.standin.records().filter((record) => record.method === "POST" && record.path === `/repos/${REPO}/pulls`);
    expect(opened, chain.logs()).toHaveLength(1);
    const pullBody = bodyOf(opened[0]!);
    expect(pullBody.startsWith(`Fixes #${issue.number}`)).toBe(true);
    expect(pullBody).toContain("### Proof of the fix");
    expect(pullBody).toContain(`⚠️ **Not proven:** ${NO_CONTAINER}.`);
    // The recorded check is what it would have run, shown as code, with whose it was: the first run's, a maintainer's.
    expect(pullBody).toContain(CHECK);
    expect(pullBody).toMatch(/The check is the thread's reproduction's, recorded by a maintainer's run \(`[^`]+`\) at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\./);

    const closing = bodyOf(closings(issue.number)[1]!);
    expect(closing).toContain("### ⚠️ Pull request not proven");
    expect(closing).toContain(NO_CONTAINER);

    const session = `${owner}-${name}-${issue.number}`;
    const detail = (await (await fetch(`${chain.agent.url}/api/command-center/threads/${session}`)).json()) as ThreadDetail;
    expect(detail.runs.map((run) => [run.outcome, run.proven])).toEqual(expect.arrayContaining([["pr-unproven", false], ["reproduced", undefined]]));
  });
});
