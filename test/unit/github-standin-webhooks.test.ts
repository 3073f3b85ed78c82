/**
 * The GitHub stand-in delivers `issue_comment.created` when a user (a
 * user's token) comments, as GitHub would deliver it to the App: signed
 * with the webhook secret (verified here with @octokit/webhooks' own
 * `verify`), built by github-delivery.ts from GitHub's published example,
 * sent after the comment's 201, retried on a 5xx or a network error, and
 * recorded. The App's own comments send nothing.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { Octokit } from "@octokit/rest";
import { Webhooks } from "@octokit/webhooks";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterEach, describe, expect, it } from "vitest";
import { issueCommentSchema } from "../../ingress/src/payload";
import { describeDelivery, webhookFromEnv, type GitHubStandin } from "../../scripts/lib/github-standin";
import { standinFixture } from "./standin-fixture";

const receivers: Server[] = [];
const { start } = standinFixture();
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

const SECRET = "standin-webhook-secret";
const octokit = (baseUrl: string, auth?: string) => new Octokit({ baseUrl, ...(auth ? { auth } : {}), log: { debug() {}, info() {}, warn() {}, error() {} } });

type Received = { headers: IncomingHttpHeaders; body: string };

/** A webhook receiver on 127.0.0.1: answers each delivery with the next of `statuses` (then 202), keeping what it got. */
async function receiver(statuses: number[] = []): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(statuses.shift() ?? 202).end();
    });
  });
  receivers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`, received };
}

const webhookSchema = (() => {
  const openapi = createRequire(import.meta.url)("@octokit/openapi-webhooks/generated/api.github.com.json") as { components: object };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "webhooks", components: openapi.components });
  return ajv.compile({ $ref: "webhooks#/components/schemas/webhook-issue-comment-created" });
})();

async function settled(github: GitHubStandin) {
  await github.deliveriesSettled();
  return github.deliveries();
}

describe("GitHub stand-in: webhook deliveries", () => {
  it("delivers issue_comment.created for a user's comment, signed with the secret, naming the commenter, body, issue and installation", async () => {
    const hook = await receiver();
    const github = await start({ webhook: { url: hook.url, secret: SECRET }, userLogin: "maria", permissions: { maria: "maintain" } });
    const user = octokit(github.url, "ghp_maria");
    const issue = (await user.rest.issues.create({ owner: "acme", repo: "widgets", title: "It crashes on start" })).data;
    const comment = (await user.rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: issue.number, body: "@agent-think reproduce this issue" })).data;

    const [delivery] = await settled(github);
    expect(delivery).toEqual({
      event: "issue_comment",
      action: "created",
      deliveryId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: hook.url,
      repo: "acme/widgets",
      issueNumber: issue.number,
      commentId: comment.id,
      login: "maria",
      status: 202,
      attempts: 1,
      at: expect.any(Number)
    });
    expect(hook.received).toHaveLength(1);
    const { headers, body } = hook.received[0]!;
    expect(headers).toMatchObject({
      "x-github-event": "issue_comment",
      "x-github-delivery": delivery!.deliveryId,
      "content-type": "application/json",
      "x-github-hook-installation-target-type": "integration"
    });
    const signature = headers["x-hub-signature-256"] as string;
    expect(await new Webhooks({ secret: SECRET }).verify(body, signature)).toBe(true);
    expect(await new Webhooks({ secret: "another secret" }).verify(body, signature)).toBe(false);

    const payload = JSON.parse(body) as Record<string, any>;
    expect(payload).toMatchObject({
      action: "created",
      issue: { number: issue.number, title: "It crashes on start" },
      comment: { id: comment.id, body: "@agent-think reproduce this issue", user: { login: "maria", id: comment.user!.id, type: "User" }, author_association: "MEMBER", created_at: comment.created_at },
      sender: { login: "maria", type: "User" },
      repository: { full_name: "acme/widgets" },
      installation: { id: 1 }
    });
    // One GitHub could send, and one the webhook app reads.
    expect(webhookSchema(payload), JSON.stringify(webhookSchema.errors)).toBe(true);
    expect(issueCommentSchema.parse(payload)).toMatchObject({ installation: { id: 1 }, comment: { user: { login: "maria" } } });

    // Over HTTP too; DELETE /_standin/records forgets them with the rest.
    const listed = (await (await fetch(`${github.url}/_standin/deliveries`)).json()) as { deliveries: unknown[] };
    expect(listed.deliveries).toEqual(github.deliveries());
    await fetch(`${github.url}/_standin/records`, { method: "DELETE" });
    expect(github.deliveries()).toEqual([]);
    expect(github.refusals()).toEqual([]);
  });

  it("plays the eval harness's round: a maintainer's issue and mention, the App's 👀 on delivery, 🚀 and a closing comment, then labels and closes", async () => {
    const github = await start({ userLogin: "maria" });
    // The webhook app: on a delivery, 👀 on the mention with an installation token it mints.
    const seen: number[] = [];
    const app = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", async () => {
        // The maintainer's labels are delivered too (issues.labeled); this app acts on mentions only.
        if (request.headers["x-github-event"] !== "issue_comment") return void response.writeHead(204).end();
        const payload = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { comment: { id: number }; repository: { owner: { login: string }; name: string } };
        const minted = await octokit(github.url, "eyJa.eyJb.c").rest.apps.createInstallationAccessToken({ installation_id: 1 });
        await octokit(github.url, minted.data.token).rest.reactions.createForIssueComment({ owner: payload.repository.owner.login, repo: payload.repository.name, comment_id: payload.comment.id, content: "eyes" });
        seen.push(payload.comment.id);
        response.writeHead(202).end();
      });
    });
    receivers.push(app);
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", () => resolve()));
    github.setWebhook({ url: `http://127.0.0.1:${(app.address() as AddressInfo).port}/`, secret: SECRET });

    const maintainer = octokit(github.url, "ghp_maintainer");
    const repo = { owner: "you", repo: "sandbox" };
    const issue = (await maintainer.rest.issues.create({ ...repo, title: "Crash on start", body: "Steps", labels: ["agent-think-eval"] })).data;
    const mention = (await maintainer.rest.issues.createComment({ ...repo, issue_number: issue.number, body: "@agent-think reproduce this issue" })).data;
    await github.deliveriesSettled();
    expect(seen).toEqual([mention.id]);

    // The agent, with the run's installation token: 🚀, then its closing comment.
    const agent = octokit(github.url, "ghs_standin_run");
    await agent.rest.reactions.createForIssueComment({ ...repo, comment_id: mention.id, content: "rocket" });
    await agent.rest.issues.createComment({ ...repo, issue_number: issue.number, body: "<!-- agent-think:sub-1:closing -->\n@maria\n\n### ✅ Reproduced\n" });

    const bots = (await maintainer.rest.reactions.listForIssueComment({ ...repo, comment_id: mention.id, per_page: 100 })).data.filter((reaction) => reaction.user?.type === "Bot");
    expect(bots.map((reaction) => reaction.content)).toEqual(["eyes", "rocket"]);
    const since = await maintainer.paginate(maintainer.rest.issues.listComments, { ...repo, issue_number: issue.number, since: mention.created_at, per_page: 100 });
    expect(since.filter((comment) => comment.user?.type === "Bot").map((comment) => comment.body)).toEqual([expect.stringContaining("agent-think:sub-1:closing")]);
    await maintainer.rest.issues.addLabels({ ...repo, issue_number: issue.number, labels: ["agent-think-eval", "agent-think-eval:pass"] });
    const closed = (await maintainer.rest.issues.update({ ...repo, issue_number: issue.number, state: "closed", state_reason: "completed" })).data;
    expect(closed).toMatchObject({ state: "closed", state_reason: "completed", comments: 2, labels: [{ name: "agent-think-eval" }, { name: "agent-think-eval:pass" }] });
    // Only the maintainer's comment and new label were delivered: the closing comment is the bot's.
    await github.deliveriesSettled();
    expect(github.deliveries().map((delivery) => [delivery.event, delivery.commentId ?? delivery.label])).toEqual([
      ["issue_comment", mention.id],
      ["issues", "agent-think-eval:pass"]
    ]);
    expect(github.refusals()).toEqual([]);
  });

  it("sends nothing for the App's own comments (no token, a JWT, an installation token)", async () => {
    const hook = await receiver();
    const github = await start({ webhook: { url: hook.url, secret: SECRET } });
    for (const auth of [undefined, "ghs_standin1", "eyJa.eyJb.c"]) {
      await octokit(github.url, auth).rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 3, body: "@agent-think reproduce this issue" });
    }
    await octokit(github.url, "ghs_x").rest.reactions.createForIssueComment({ owner: "acme", repo: "widgets", comment_id: 1, content: "eyes" });
    expect(await settled(github)).toEqual([]);
    expect(hook.received).toEqual([]);
  });

  it("retries a delivery answered 500, and one that met a network error, then records the outcome", async () => {
    const hook = await receiver([500, 503]);
    const github = await start({ webhook: { url: hook.url, secret: SECRET, retryDelaysMs: [10, 10, 10] } });
    await octokit(github.url, "ghp_x").rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 3, body: "hello" });
    const [retried] = await settled(github);
    expect(retried).toMatchObject({ status: 202, attempts: 3 });
    expect(retried).not.toHaveProperty("error");
    expect(retried).not.toHaveProperty("pending");
    expect(describeDelivery(retried!)).toBe(`delivered issue_comment.created (acme/widgets#3, comment ${retried!.commentId} by octocat) to ${hook.url}: 202 after 3 attempts`);
    // Every attempt is the same delivery, with the same id.
    expect(new Set(hook.received.map((delivery) => delivery.headers["x-github-delivery"]))).toEqual(new Set([retried!.deliveryId]));

    // Nothing listens on a closed port: a network error each time, and the last one recorded.
    const gone = await receiver();
    receivers.pop()!.close();
    github.setWebhook({ url: gone.url, secret: SECRET, retryDelaysMs: [10, 10] });
    await octokit(github.url, "ghp_x").rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 3, body: "again" });
    const failed = (await settled(github))[1]!;
    expect(failed).toMatchObject({ attempts: 3, error: expect.stringMatching(/fetch failed/) });
    expect(failed).not.toHaveProperty("status");

    // A 4xx is the receiver's answer: not retried.
    const refusing = await receiver([400]);
    github.setWebhook({ url: refusing.url, secret: SECRET, retryDelaysMs: [10] });
    await octokit(github.url, "ghp_x").rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 3, body: "and again" });
    expect((await settled(github))[2]).toMatchObject({ status: 400, attempts: 1 });
  });

  it("answers the comment before the delivery is answered, and takes its target over HTTP (null removes it)", async () => {
    // A receiver that holds its answer until released.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const server = createServer((request, response) => {
      request.resume();
      void held.then(() => response.writeHead(204).end());
    });
    receivers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

    const github = await start();
    const set = await fetch(`${github.url}/_standin/webhook`, { method: "POST", body: JSON.stringify({ url, secret: SECRET }) });
    expect(set.status).toBe(204);
    expect(await (await fetch(`${github.url}/_standin/webhook`)).json()).toEqual({ webhook: { url } });
    const created = await octokit(github.url, "ghp_x").rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 3, body: "hello" });
    expect(created.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(github.deliveries()).toEqual([expect.objectContaining({ pending: true, attempts: 1 })]);
    release();
    expect((await settled(github))[0]).toMatchObject({ status: 204 });

    expect((await fetch(`${github.url}/_standin/webhook`, { method: "POST", body: JSON.stringify({ url: "ftp://x", secret: SECRET }) })).status).toBe(422);
    expect((await fetch(`${github.url}/_standin/webhook`, { method: "POST", body: JSON.stringify({ url, secret: "" }) })).status).toBe(422);
    expect((await fetch(`${github.url}/_standin/webhook`, { method: "POST", body: "null" })).status).toBe(204);
    await octokit(github.url, "ghp_x").rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 3, body: "unheard" });
    expect(await settled(github)).toHaveLength(1);
    expect(() => github.setWebhook({ url: "not a url", secret: SECRET })).toThrow(/webhook: url must be/);
  });

  it("still refuses what GitHub's description refuses, and delivers nothing for it", async () => {
    const hook = await receiver();
    const github = await start({ webhook: { url: hook.url, secret: SECRET } });
    const response = await fetch(`${github.url}/repos/acme/widgets/issues/3/comments`, {
      method: "POST",
      headers: { authorization: "token ghp_x" },
      body: JSON.stringify({ text: "no body field" })
    });
    expect(response.status).toBe(422);
    expect(github.refusals().map((record) => record.refused?.status)).toEqual([422]);
    expect(await settled(github)).toEqual([]);
  });

  it("as an Enterprise Server (a ghes description), names itself in the headers and its own origins in the payload", async () => {
    const hook = await receiver();
    const github = await start({ description: "ghes-3.19", webhook: { url: hook.url, secret: SECRET } });
    await octokit(`${github.url}/api/v3`, "ghp_x").rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 3, body: "hello" });
    expect((await settled(github))[0]).toMatchObject({ status: 202 });
    const { headers, body } = hook.received[0]!;
    expect(headers).toMatchObject({ "x-github-enterprise-host": "127.0.0.1", "x-github-enterprise-version": "3.19.0" });
    const payload = JSON.parse(body) as { issue: { url: string; html_url: string } };
    expect(payload.issue.url).toBe(`${github.url}/api/v3/repos/acme/widgets/issues/3`);
    expect(payload.issue.html_url).toBe(`${github.url}/acme/widgets/issues/3`);
    expect(body).not.toMatch(/https:\/\/(api\.)?github\.com/);
  }, 30_000);

  it("reads its target from GITHUB_STANDIN_WEBHOOK_URL and GITHUB_STANDIN_WEBHOOK_SECRET, both or neither", () => {
    expect(webhookFromEnv({})).toBeNull();
    expect(webhookFromEnv({ GITHUB_STANDIN_WEBHOOK_URL: "http://127.0.0.1:8787/webhook", GITHUB_STANDIN_WEBHOOK_SECRET: "s" })).toEqual({ url: "http://127.0.0.1:8787/webhook", secret: "s" });
    expect(() => webhookFromEnv({ GITHUB_STANDIN_WEBHOOK_URL: "http://127.0.0.1:8787/webhook" })).toThrow(/together or not at all/);
  });
});
