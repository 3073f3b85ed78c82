/**
 * The reporter tier end to end (docs/security.md "Reporter tier"): both
 * Workers under `wrangler dev` and the GitHub stand-in. An issue's author
 * with read permission asks for a reproduction and gets a read-only run,
 * shown apart on the command center and the dashboard; anything else gets
 * one polite comment, a second that day only 😕, anyone else nothing. The
 * test sends each `issue_comment.created` itself, signed: the stand-in's own
 * delivery names GitHub's example author as the issue's opener.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Octokit } from "@octokit/rest";
import { startChain, type Chain } from "./support/chain";
import { issueCommentPayload, signedDelivery } from "../scripts/lib/github-delivery";
import type { StandinRecord } from "../scripts/lib/github-standin";
import { WEBHOOK_PATH } from "../scripts/lib/ingress-dev";
import { REPORTER_TIER_LINE } from "../src/report/closing-text";
import type { Snapshot, ThreadDetail } from "../src/shared/command-center";
import { sessionName } from "../src/shared/session-name";

const REPO = "acme/gadgets";
const repo = { owner: "acme", repo: "gadgets" };
const BOT = "agent-think[bot]";
/** The issues' author: read permission only. */
const AUTHOR = "rita";
/** Someone else without write access. */
const OTHER = "mallory";
const START_TIMEOUT_MS = 120_000;
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

let chain: Chain;
/** The issues' author, acting through the stand-in with a user's token. */
let author: Octokit;

beforeAll(async () => {
  chain = await startChain({ allowedRepos: REPO, standin: { userLogin: AUTHOR, permissions: { [AUTHOR]: "read", [OTHER]: "read" }, webhook: null } });
  chain.standin.seedFile({ repo: REPO, path: ".github/agent-think.yml", content: "version: 1\nreporters: reproduce\n" });
  author = new Octokit({ baseUrl: chain.standin.url, auth: "ghp_rita_reporter", log: quiet });
}, START_TIMEOUT_MS);

afterAll(() => chain?.stop());

type Issue = { number: number; user: { login: string; id: number } };
type Account = { login: string; id: number };

async function openIssue(title: string): Promise<Issue> {
  const { data } = await author.rest.issues.create({ ...repo, title, body: "sortNumbers([10, 2]) gives [10, 2]." });
  expect(data.user).toMatchObject({ login: AUTHOR, type: "User" });
  return { number: data.number, user: { login: data.user!.login, id: data.user!.id } };
}

/** What GitHub sends for `commenter`'s comment on `issue`: the issue's own opener as `issue.user`. */
async function deliver(issue: Issue, comment: { id: number; body: string }, commenter: Account, association: string): Promise<Response> {
  const payload = issueCommentPayload({ repo: REPO, issueNumber: issue.number, commentId: comment.id, body: comment.body, login: commenter.login, userId: commenter.id, association });
  const example = (payload.issue as { user?: Record<string, unknown> }).user;
  const opened = { ...payload, issue: { ...payload.issue, user: { ...example, login: issue.user.login, id: issue.user.id, node_id: `U_standin${issue.user.id}`, type: "User" } } };
  const delivery = await signedDelivery(chain.secret, opened);
  return fetch(`${chain.ingress.url}${WEBHOOK_PATH}`, { method: "POST", headers: delivery.headers, body: delivery.body });
}

/** The author comments through the stand-in, and GitHub delivers it. */
async function authorAsks(issue: Issue, body: string): Promise<{ commentId: number; response: Response }> {
  const { data } = await author.rest.issues.createComment({ ...repo, issue_number: issue.number, body });
  const response = await deliver(issue, { id: data.id, body }, issue.user, data.author_association);
  return { commentId: data.id, response };
}

/** The bot's comments on the issue as GitHub lists them, the run's progress comment aside. */
async function botComments(issueNumber: number): Promise<string[]> {
  const { data } = await author.rest.issues.listComments({ ...repo, issue_number: issueNumber, per_page: 100 });
  return data.filter((comment) => comment.user?.login === BOT && !String(comment.body).includes(":progress -->")).map((comment) => String(comment.body));
}

const reactionsOn = (commentId: number) =>
  chain.standin
    .records()
    .filter((record) => record.method === "POST" && record.path === `/repos/${REPO}/issues/comments/${commentId}/reactions`)
    .map((record) => (record.body as { content: string }).content);

async function detail(session: string): Promise<ThreadDetail | undefined> {
  const response = await fetch(`${chain.agent.url}/api/command-center/threads/${session}`);
  return response.ok ? ((await response.json()) as ThreadDetail) : undefined;
}

/** Every write to the repository the stand-in saw that a run (not the author, not the webhook app's reactions and notices) could have made. */
const repositoryWrites = (records: StandinRecord[]) =>
  records.filter(
    (record) =>
      record.method !== "GET" &&
      record.path.startsWith(`/repos/${REPO}/`) &&
      !/\/issues\/(?:\d+\/)?comments(?:\/\d+)?$/.test(record.path) &&
      !record.path.endsWith("/reactions") &&
      !/\/issues$/.test(record.path)
  );

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the reporter tier, through both Workers and the stand-in", () => {
  let issue: Issue;
  // A reporter run has a session of its own beside the issue's (src/shared/session-name.ts).
  const session = () => sessionName(REPO, issue.number, "reporter");

  it("gives the issue's author with read permission a read-only reproduction: 👀, 🚀, a closing comment saying so, nothing pushed or opened", async () => {
    issue = await openIssue("sortNumbers sorts as strings");
    const body = [
      "@agent-think reproduce this issue",
      // A reporter run that tries to open a pull request and to write through the API: both refused outside the sandbox.
      'TEST: call open_pull_request {"title":"Fix sortNumbers","body":"Sorts numerically."}',
      `TEST: run curl -s -o /dev/null -w "%{http_code}" -X POST https://api.github.com/repos/${REPO}/pulls -d '{"title":"x","head":"agent-think/issue-${issue.number}","base":"main"}'`,
      "TEST: result reproduced Scripted."
    ].join("\n");
    const asked = await authorAsks(issue, body);
    expect(asked.response.status, chain.logs()).toBe(202);

    await expect.poll(() => botComments(issue.number).then((comments) => comments.length), { timeout: 60_000, interval: 250 }).toBeGreaterThanOrEqual(1);
    const [closing, ...more] = await botComments(issue.number);
    expect(more).toEqual([]);
    expect(closing, chain.logs()).toContain("### ✅ Reproduced");
    expect(closing).toContain(REPORTER_TIER_LINE);
    expect(closing).toContain(`@${AUTHOR}`);
    expect(reactionsOn(asked.commentId)).toEqual(["eyes", "rocket"]);

    // The run was a reporter-tier run, and the command center says so.
    const thread = await detail(session());
    expect(thread?.runs).toHaveLength(1);
    expect(thread?.runs[0]).toMatchObject({ status: "done", tier: "reporter" });
    expect(thread?.thread).toMatchObject({ repo: REPO, requestedBy: { login: AUTHOR } });
    expect(chain.ingress.output()).toMatch(/"event":"delivery:claimed".*"login":"rita".*"trustedBy":"reporter"/);
    // The webhook app posted with a token that may only comment and react, and the run got a read-only one, never the bot's.
    const mints = chain.standin
      .records()
      .filter((record) => record.method === "POST" && record.path.endsWith("/access_tokens"))
      .map((record) => (record.body as { permissions?: unknown }).permissions);
    expect(mints).toContainEqual({ issues: "write", metadata: "read" });
    expect(mints).toContainEqual({ issues: "read", contents: "read", pull_requests: "read", metadata: "read" });
    expect(chain.ingress.output()).toMatch(new RegExp(`"event":"token:minted"[^\n]*"commentId":${asked.commentId}[^\n]*"access":"report"`));
    expect(chain.ingress.output()).toMatch(new RegExp(`"event":"token:minted"[^\n]*"commentId":${asked.commentId}[^\n]*"access":"read"`));
    expect(chain.ingress.output()).not.toMatch(new RegExp(`"event":"token:minted"[^\n]*"commentId":${asked.commentId}[^\n]*"access":"write"`));

    // What the run tried to write was refused: the tool said so, and GitHub saw none of it.
    const { messages } = (await (await fetch(`${chain.agent.url}/dev/messages/${session()}`)).json()) as { messages: Array<{ parts: Array<{ type: string; output?: unknown }> }> };
    const outputs = messages.flatMap((message) => message.parts).filter((part) => part.type.startsWith("tool-")).map((part) => JSON.stringify(part.output ?? ""));
    expect(outputs.find((output) => output.includes("may not open or update a pull request")), outputs.join("\n")).toContain("reporter-tier run");
    // The sandbox's API write got the egress gateway's 403, as every run's does.
    expect(outputs.filter((output) => output.includes('"stdout":{"text":"403"')), outputs.join("\n")).toHaveLength(1);
    const records = chain.standin.records();
    expect(records.filter((record) => record.path.endsWith("/pulls") && record.method === "POST")).toEqual([]);
    expect(records.filter((record) => record.path.includes("git-receive-pack") || record.path.includes("/git/refs"))).toEqual([]);
    expect(repositoryWrites(records).map((record) => `${record.method} ${record.path}`)).toEqual([]);
    expect(chain.standin.refusals()).toEqual([]);
  });

  it("answers the author asking for something else with one polite comment and no run", async () => {
    const before = (await botComments(issue.number)).length;
    const asked = await authorAsks(issue, "@agent-think open a PR fixing this");
    expect(asked.response.status).toBe(202);
    await expect
      .poll(() => botComments(issue.number).then((comments) => comments.length), { timeout: 20_000, interval: 250 })
      .toBe(before + 1)
      .catch((error: Error) => {
        throw new Error(`${error.message}\n${JSON.stringify(chain.standin.records().slice(-12).map((record) => `${record.method} ${record.path} ${String(JSON.stringify(record.body)).slice(0, 160)}`), null, 1)}\n${chain.logs()}`);
      });
    const refusal = (await botComments(issue.number)).at(-1)!;
    expect(refusal).toContain(`@${AUTHOR} thanks`);
    expect(refusal).toContain("can only reproduce an issue for its author");
    await expect.poll(() => reactionsOn(asked.commentId), { timeout: 10_000, interval: 250 }).toEqual(["confused"]);
    expect(chain.ingress.output()).toMatch(/"event":"delivery:refused".*"reason":"not_a_reproduction"/);
    expect((await detail(session()))?.runs).toHaveLength(1);
  });

  it("refuses the author's second reproduction of the issue that day: 😕, no run, no second comment", async () => {
    const before = await botComments(issue.number);
    const asked = await authorAsks(issue, "@agent-think reproduce this issue");
    expect(asked.response.status).toBe(202);
    await expect.poll(() => reactionsOn(asked.commentId), { timeout: 20_000, interval: 250 }).toEqual(["confused"]);
    expect(chain.ingress.output()).toMatch(/"event":"delivery:refused".*"reason":"reporter_daily_limit"/);
    await pause(1_000);
    expect(await botComments(issue.number)).toEqual(before);
    expect((await detail(session()))?.runs).toHaveLength(1);
  });

  it("ignores anyone else without write access: no comment, no reaction, no run", async () => {
    const other = await openIssue("It also breaks for me");
    const { data: otherUser } = await author.rest.users.getByUsername({ username: OTHER });
    const before = chain.standin.records().length;
    const response = await deliver(other, { id: 990_001, body: "@agent-think reproduce this issue" }, { login: otherUser.login, id: otherUser.id }, "CONTRIBUTOR");
    expect(response.status).toBe(204);
    expect(response.headers.get("agent-think-outcome")).toBe("ignored:not_trusted");
    await pause(1_500);
    const since = chain.standin.records().slice(before);
    // The webhook app asked GitHub who they are, and did nothing else.
    expect(repositoryWrites(since).map((record) => `${record.method} ${record.path}`)).toEqual([]);
    expect(since.filter((record) => record.method === "POST" && record.path.startsWith(`/repos/${REPO}/`))).toEqual([]);
    expect(since.some((record) => record.path === `/repos/${REPO}/collaborators/${OTHER}/permission`)).toBe(true);
    expect(await botComments(other.number)).toEqual([]);
    expect(await detail(sessionName(REPO, other.number))).toBeUndefined();
    expect(await detail(sessionName(REPO, other.number, "reporter"))).toBeUndefined();
  });

  it("shows the reporter run and its spend apart on the command center", async () => {
    // The command center keeps its spend figures a few seconds between broadcasts (SPEND_MAX_AGE_MS).
    const reporterSpend = async () => ((await (await fetch(`${chain.agent.url}/api/command-center`)).json()) as Snapshot).metrics.reporterSpendToday;
    await expect.poll(reporterSpend, { timeout: 20_000, interval: 500 }).toEqual([{ repo: REPO, runs: 1, cost: expect.objectContaining({ usd: expect.any(Number) }) }]);
    // The dashboard's first view, drawn by the Worker from that snapshot, lists it under its own heading.
    const page = await (await fetch(`${chain.agent.url}/`)).text();
    const list = /data-testid="reporter-spend">([\s\S]*?)<\/ul>/.exec(page)?.[1];
    expect(list, page.slice(0, 2_000)).toContain("Reporter runs today");
    expect(list).toContain(`data-repo="${REPO}"`);
    expect(list).toContain("1 run<");
  });
});
