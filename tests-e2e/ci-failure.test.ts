/**
 * CI failures come back, end to end and offline: the App's own pull request
 * (seeded in the GitHub stand-in, opened by the App's bot from
 * `agent-think/issue-<n>`), a failed run of GitHub Actions on its head, and
 * the stand-in's `check_suite.completed` (GitHub's published example, renamed
 * to the stand-in's repository) to the webhook app under real `wrangler
 * dev`: it reads the pull request, the default branch's `ci.fix`, the check
 * runs and the failing job's log from the stand-in and dispatches a
 * follow-up to the agent Worker, whose scripted run ends with one closing
 * comment on the pull request. The same head's `workflow_run.completed`
 * starts nothing; neither does a pull request a person opened, a fork's, a
 * repository with `ci` off, or a pull request whose thread has a run going
 * on (the agent refuses it, and nothing is posted).
 */
import { describe, expect, it } from "vitest";
import type { Octokit } from "@octokit/rest";
import { SHARED_CHAIN_REPOS, test, type Chain } from "./support/chain";
import type { StandinRecord } from "../scripts/lib/github-standin";
import type { Snapshot } from "../src/shared/command-center";
import { CI_FIX_INSTRUCTION } from "../src/shared/dispatch";

const REPO = SHARED_CHAIN_REPOS.ci;
/** Allowed too, with no `.github/agent-think.yml`: `ci` is off there. */
const OFF_REPO = SHARED_CHAIN_REPOS.ciOff;
const BOT = "agent-think[bot]";
const START_TIMEOUT_MS = 120_000;

let chain: Chain;
let maintainer: Octokit;

// The job's shared chain (support/chain.ts): the other files on it work in repositories of their own.
test.beforeAll(({ sharedChain }) => {
  ({ chain, maintainer } = sharedChain);
  chain.standin.seedFile({ repo: REPO, path: ".github/agent-think.yml", content: "version: 1\nci:\n  fix: 2\n" });
}, START_TIMEOUT_MS);

let shas = 0;
const newSha = () => (++shas).toString(16).padStart(4, "0").repeat(10);

const FAILING_JOBS = [
  {
    name: "test",
    conclusion: "failure",
    steps: [
      { name: "Run npm ci", conclusion: "success" },
      { name: "Run npm test", conclusion: "failure" }
    ],
    log: "npm test\n> vitest run\nFAIL test/parser.test.ts > parses empty input\nAssertionError: expected undefined to equal []\n##[error]Process completed with exit code 1."
  },
  { name: "lint", conclusion: "success" }
];

/** The App's pull request `number` from `agent-think/issue-<issue>` at `sha`, and a failed CI run on that head. */
function appPullWithFailedCi(number: number, issue: number, sha: string, options: { repo?: string; author?: string; headRepo?: string } = {}) {
  const repo = options.repo ?? REPO;
  const branch = `agent-think/issue-${issue}`;
  chain.standin.seedPull({ repo, number, title: `Fix #${issue}`, head: { ref: branch, sha, ...(options.headRepo ? { repo: options.headRepo } : {}) }, user: { login: options.author ?? BOT } });
  return chain.standin.seedCiRun({ repo, headSha: sha, headBranch: branch, name: "CI", jobs: FAILING_JOBS, ...(options.headRepo ? { headRepo: options.headRepo } : {}) });
}

const isProgress = (record: StandinRecord) => String((record.body as { body?: unknown } | undefined)?.body ?? "").includes(":progress -->");
const botComments = (repo: string, number: number) =>
  chain.standin.records().filter((record) => record.method === "POST" && record.path === `/repos/${repo}/issues/${number}/comments` && !isProgress(record));

async function thread(session: string) {
  const snapshot = (await (await fetch(`${chain.agent.url}/api/command-center`)).json()) as Snapshot;
  return snapshot.threads.find((entry) => entry.session === session);
}

/** Deliveries for `sha`, once settled: [event, receiver's status]. */
async function deliveriesFor(sha: string) {
  // A delivery starts once the current turn of the event loop is over (as after a call's answer).
  await new Promise((resolve) => setTimeout(resolve, 20));
  await chain.standin.deliveriesSettled();
  return chain.standin.deliveries().filter((delivery) => delivery.headSha === sha).map((delivery) => [delivery.event, delivery.status]);
}

/** The webhook app's `delivery:ignored` reasons for `sha`. */
const ignoredFor = (sha: string) =>
  chain.ingress
    .output()
    .split("\n")
    .filter((line) => line.includes('"delivery:ignored"') && line.includes(sha))
    .map((line) => /"reason":"([a-z_]+)"/.exec(line)?.[1]);

describe("a failed CI run on the App's own pull request", () => {
  it("starts one follow-up run on it with the failures read from GitHub, which ends in one closing comment; the same head's workflow_run starts nothing", async () => {
    const sha = newSha();
    const run = appPullWithFailedCi(21, 20, sha);
    chain.standin.deliverCi("check_suite", run.checkSuiteId);

    await expect.poll(() => botComments(REPO, 21).length, { timeout: 60_000, interval: 250 }).toBeGreaterThanOrEqual(1);
    expect(await deliveriesFor(sha)).toEqual([["check_suite", 202]]);
    const closing = String((botComments(REPO, 21)[0]!.body as { body: string }).body);
    // Nobody asked, so nobody is mentioned; the scripted model reports that it could not fix it (no-pr).
    expect(closing, chain.logs()).toContain("### ❔");
    expect(closing).not.toMatch(/^@/);
    // It says what started it: the head and the checks that failed there.
    expect(closing).toContain(`This was a CI follow-up: the checks that failed on \`${sha.slice(0, 7)}\``);
    const session = "acme-widgets-21";
    await expect.poll(async () => (await thread(session))?.status, { timeout: 20_000, interval: 250 }).toBe("done");
    expect(await thread(session)).toMatchObject({ repo: REPO, issueNumber: 21, runCount: 1, instructionSummary: CI_FIX_INSTRUCTION });
    expect((await thread(session))?.requestedBy).toBeUndefined();

    // The webhook app read the pull request, the config, the suite's check runs and the failing job's log (its 302 followed, without a token).
    const reads = chain.standin.records().filter((record) => record.method === "GET").map((record) => record.path);
    expect(reads).toEqual(
      expect.arrayContaining([
        `/repos/${REPO}/pulls/21`,
        `/repos/${REPO}/contents/.github%2Fagent-think.yml`,
        `/repos/${REPO}/check-suites/${run.checkSuiteId}/check-runs`,
        `/repos/${REPO}/actions/jobs/${run.jobs[0]!.id}/logs`
      ])
    );
    expect(reads).not.toContain(`/repos/${REPO}/actions/jobs/${run.jobs[1]!.id}/logs`);
    expect(chain.ingress.output()).toContain('"event":"ci:failures"');
    // No 👀 and no not-started comment: there was no comment to answer.
    expect(chain.standin.records().filter((record) => record.path.endsWith("/reactions") && record.path.includes("/issues/21"))).toEqual([]);

    chain.standin.deliverCi("workflow_run", run.workflowRunId);
    expect(await deliveriesFor(sha)).toEqual([
      ["check_suite", 202],
      ["workflow_run", 204]
    ]);
    expect(ignoredFor(sha)).toEqual(["duplicate"]);
    // Give a wrongly started run the time to show.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await thread(session))?.runCount).toBe(1);
    expect(botComments(REPO, 21)).toHaveLength(1);
    expect(chain.standin.refusals()).toEqual([]);
  }, 90_000);

  it("starts nothing for a pull request a person opened, a fork's, or a repository with ci off", async () => {
    const person = newSha();
    const fork = newSha();
    const off = newSha();
    chain.standin.deliverCi("check_suite", appPullWithFailedCi(31, 30, person, { author: "octocat" }).checkSuiteId);
    chain.standin.deliverCi("workflow_run", appPullWithFailedCi(32, 30, fork, { headRepo: "mallory/widgets" }).workflowRunId);
    chain.standin.deliverCi("check_suite", appPullWithFailedCi(33, 30, off, { repo: OFF_REPO }).checkSuiteId);
    expect(await deliveriesFor(person)).toEqual([["check_suite", 204]]);
    expect(await deliveriesFor(fork)).toEqual([["workflow_run", 204]]);
    expect(await deliveriesFor(off)).toEqual([["check_suite", 204]]);
    expect(ignoredFor(person)).toEqual(["not_app_pull_request"]);
    expect(ignoredFor(fork)).toEqual(["fork"]);
    expect(ignoredFor(off)).toEqual(["ci_off"]);
    for (const [repo, number] of [[REPO, 31], [REPO, 32], [OFF_REPO, 33]] as const) {
      expect(await thread(`${repo.replace("/", "-")}-${number}`)).toBeUndefined();
      expect(botComments(repo, number)).toEqual([]);
    }
    // A fork's CI is not even asked about: no read of its pull request.
    expect(chain.standin.records().some((record) => record.path === `/repos/${REPO}/pulls/32`)).toBe(false);
    expect(chain.standin.refusals()).toEqual([]);
  }, 60_000);

  it("starts nothing while a run is going on in the pull request's thread: the agent refuses, nothing is posted", async () => {
    const sha = newSha();
    const run = appPullWithFailedCi(41, 40, sha);
    const session = "acme-widgets-41";
    await maintainer.rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 41, body: "@agent-think look at this\nTEST: sleep 30000\nTEST: reply done" });
    await expect.poll(async () => (await thread(session))?.status, { timeout: 30_000, interval: 250 }).toBe("running");
    const commentsBefore = botComments(REPO, 41).length;

    chain.standin.deliverCi("check_suite", run.checkSuiteId);
    expect(await deliveriesFor(sha)).toEqual([["check_suite", 202]]);
    await expect
      .poll(() => chain.ingress.output().includes('"reason":"run_in_progress"'), { timeout: 20_000, interval: 250 })
      .toBe(true)
      .catch((error: Error) => {
        throw new Error(`${error.message}\n${chain.ingress.output().split("\n").filter((line) => line.includes(sha)).join("\n")}\n${chain.logs()}`);
      });
    expect(await thread(session)).toMatchObject({ status: "running", runCount: 1 });
    expect(botComments(REPO, 41)).toHaveLength(commentsBefore);

    await maintainer.rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 41, body: "@agent-think stop" });
    await expect.poll(async () => (await thread(session))?.status, { timeout: 20_000, interval: 250 }).toBe("cancelled");
    expect(chain.standin.refusals()).toEqual([]);
  }, 90_000);
});
