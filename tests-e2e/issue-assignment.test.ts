/**
 * Asking by assignment, end to end and offline: a maintainer assigns the
 * App's bot through the GitHub stand-in's API, the stand-in delivers
 * GitHub's `issues.assigned` to the webhook app under real `wrangler dev`,
 * which reads `.github/agent-think.yml`'s `triggers.assign` (none: the
 * default "reproduce this issue"), reacts 👀 on the issue and dispatches to
 * the agent Worker, whose scripted run posts its closing comment. Then
 * removing the assignment while a run is going (`triggers.assign` holding it
 * with `TEST: sleep`) delivers `issues.unassigned`, and the run is stopped.
 */
import { describe, expect, it } from "vitest";
import type { Octokit } from "@octokit/rest";
import { SHARED_CHAIN_REPOS, test, type Chain } from "./support/chain";
import type { StandinRecord } from "../scripts/lib/github-standin";
import type { Snapshot, ThreadDetail } from "../src/shared/command-center";

const REPO = SHARED_CHAIN_REPOS.assignment;
const [owner, name] = REPO.split("/") as [string, string];
const repo = { owner, repo: name };
const BOT = "agent-think[bot]";
const START_TIMEOUT_MS = 120_000;

let chain: Chain;
/** The maintainer: a user's token makes the stand-in act as `maria`, who may maintain the repository. */
let maintainer: Octokit;

// The job's shared chain (support/chain.ts): the other files on it work in repositories of their own.
test.beforeAll(({ sharedChain }) => {
  ({ chain, maintainer } = sharedChain);
}, START_TIMEOUT_MS);

const isProgress = (record: StandinRecord) => String((record.body as { body?: unknown } | undefined)?.body ?? "").includes(":progress -->");

/** The bot's comments on the issue (posted without a user's token), the run's progress comment aside. */
const botComments = (issueNumber: number) =>
  chain.standin.records().filter((record) => record.method === "POST" && record.path === `/repos/${REPO}/issues/${issueNumber}/comments` && !isProgress(record));

async function thread(session: string) {
  const snapshot = (await (await fetch(`${chain.agent.url}/api/command-center`)).json()) as Snapshot;
  return snapshot.threads.find((entry) => entry.session === session);
}

async function latestRun(session: string) {
  const response = await fetch(`${chain.agent.url}/api/command-center/threads/${session}`);
  if (!response.ok) return undefined;
  return ((await response.json()) as ThreadDetail).runs[0]?.status;
}

describe("asking by assigning the App's bot, through the stand-in", () => {
  it("starts a run with the default instruction on issues.assigned: 👀 on the issue and the run's closing comment", async () => {
    const issue = (await maintainer.rest.issues.create({ ...repo, title: "It crashes on start", body: "Run it: it crashes." })).data;
    const assigned = await maintainer.rest.issues.addAssignees({ ...repo, issue_number: issue.number, assignees: [BOT] });
    expect(assigned.data.assignees?.map((assignee) => assignee.login)).toEqual([BOT]);

    await expect.poll(() => botComments(issue.number).length, { timeout: 60_000, interval: 250 }).toBeGreaterThanOrEqual(1);
    const [closing] = botComments(issue.number);
    expect(String((closing!.body as { body: string }).body), chain.logs()).toContain("### ✅ Reproduced");

    await chain.standin.deliveriesSettled();
    // This file's: the chain's stand-in also delivers for the other files that share it.
    const deliveries = chain.standin.deliveries().filter((delivery) => delivery.repo === REPO);
    expect(deliveries.map((delivery) => [delivery.event, delivery.action, delivery.assignee, delivery.login, delivery.status])).toEqual([
      ["issues", "assigned", BOT, "maria", 202]
    ]);
    const reactions = chain.standin.records().filter((record) => record.path === `/repos/${REPO}/issues/${issue.number}/reactions`);
    expect(reactions.map((record) => (record.body as { content: string }).content)).toContain("eyes");
    expect(reactions.map((record) => (record.body as { content: string }).content)).not.toContain("confused");
    const session = `${owner}-${name}-${issue.number}`;
    expect(await thread(session)).toMatchObject({ repo: REPO, issueNumber: issue.number, status: "done", instructionSummary: "reproduce this issue", requestedBy: { login: "maria" } });
    expect(chain.standin.refusals()).toEqual([]);
  });

  it("stops a run that is going when the bot is unassigned (issues.unassigned)", async () => {
    // The repository's own instruction for an assignment, held going by the scripted model.
    chain.standin.seedFile({
      repo: REPO,
      path: ".github/agent-think.yml",
      content: 'version: 1\ntriggers:\n  assign: "reproduce this issue\\nTEST: sleep 30000\\nTEST: reply done"\n'
    });
    const issue = (await maintainer.rest.issues.create({ ...repo, title: "It hangs", body: "Run it: it hangs." })).data;
    const session = `${owner}-${name}-${issue.number}`;
    await maintainer.rest.issues.addAssignees({ ...repo, issue_number: issue.number, assignees: [BOT] });
    await expect.poll(async () => (await thread(session))?.status, { timeout: 30_000, interval: 250 }).toBe("running").catch((error: Error) => {
      throw new Error(`${error.message}\n${JSON.stringify(chain.standin.records().slice(-15).map((record) => `${record.method} ${record.path} ${String(JSON.stringify(record.body)).slice(0, 200)}`), null, 1)}\n${chain.logs()}`);
    });

    const startedAt = Date.now();
    await maintainer.rest.issues.removeAssignees({ ...repo, issue_number: issue.number, assignees: [BOT] });
    await expect.poll(() => latestRun(session), { timeout: 20_000, interval: 250 }).toBe("cancelled");
    // Stopped, well before its 30 s sleep would have ended; the instruction was the file's (it parsed).
    expect(Date.now() - startedAt).toBeLessThan(25_000);
    expect(chain.ingress.output()).not.toContain('"repo-config:invalid"');
    expect((await thread(session))?.instructionSummary).toBe("reproduce this issue");

    await chain.standin.deliveriesSettled();
    const deliveries = chain.standin.deliveries().filter((delivery) => delivery.repo === REPO && delivery.issueNumber === issue.number);
    expect(deliveries.map((delivery) => [delivery.action, delivery.status])).toEqual([
      ["assigned", 202],
      ["unassigned", 202]
    ]);
    expect(new Set(deliveries.map((delivery) => delivery.deliveryId)).size).toBe(2);
    expect(chain.standin.refusals()).toEqual([]);
  }, 90_000);
});
