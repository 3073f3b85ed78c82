/**
 * The GitHub stand-in's issue changes the webhook app starts and stops runs
 * by: a reaction on the issue itself (👀, 😕), assignees added and removed,
 * labels added and removed, each answered in the shape of GitHub's response
 * schema and kept on the issue `issues/get` answers; and the `issues`
 * deliveries a user's change sends (assigned, unassigned, labeled,
 * unlabeled), one per assignee or label with its own delivery id, signed,
 * held to GitHub's webhook schema and to the webhook app's own parser. The
 * App's own changes send nothing.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { Octokit } from "@octokit/rest";
import { Webhooks } from "@octokit/webhooks";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterEach, describe, expect, it } from "vitest";
import { issueEventSchema } from "../../ingress/src/payload";
import { issuesPayload, type IssuesAction } from "../../scripts/lib/github-delivery";
import { describeDelivery, describeRecord, STANDIN_BOT_USER_ID, type GitHubStandin } from "../../scripts/lib/github-standin";
import { standinFixture } from "./standin-fixture";

const receivers: Server[] = [];
const fixture = standinFixture();
const { start } = fixture;
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

const SECRET = "standin-webhook-secret";
const BOT = "agent-think[bot]";
const repo = { owner: "acme", repo: "widgets" };
const octokit = (baseUrl: string, auth?: string) => new Octokit({ baseUrl, ...(auth ? { auth } : {}), log: { debug() {}, info() {}, warn() {}, error() {} } });

type Received = { headers: IncomingHttpHeaders; body: string };

async function receiver(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(202).end();
    });
  });
  receivers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`, received };
}

const validators = (() => {
  const openapi = createRequire(import.meta.url)("@octokit/openapi-webhooks/generated/api.github.com.json") as { components: object };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "webhooks", components: openapi.components });
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  return (action: IssuesAction) => {
    if (!compiled.has(action)) compiled.set(action, ajv.compile({ $ref: `webhooks#/components/schemas/webhook-issues-${action}` }));
    return compiled.get(action)!;
  };
})();

/** The webhook schema's problems with `payload` as `issues.<action>` ([] when GitHub could send it). */
function webhookProblems(action: IssuesAction, payload: unknown) {
  const validate = validators(action);
  validate(payload);
  return validate.errors ?? [];
}

async function settled(github: GitHubStandin) {
  await github.deliveriesSettled();
  return github.deliveries();
}

describe("GitHub stand-in: an issue's reactions, assignees and labels", () => {
  it("answers reactions on the issue, assignees and labels in the shapes of GitHub's response schemas, and keeps them on the issue", async () => {
    const github = await start({ webhook: null });
    const user = octokit(github.url, "ghp_maria");
    const app = octokit(github.url, "ghs_installation");
    const issue = (await user.rest.issues.create({ ...repo, title: "It crashes on start" })).data;
    const at = { ...repo, issue_number: issue.number };

    const eyes = await app.rest.reactions.createForIssue({ ...at, content: "eyes" });
    expect(eyes.status).toBe(201);
    expect(eyes.data).toMatchObject({ content: "eyes", user: { login: BOT, type: "Bot", id: STANDIN_BOT_USER_ID } });
    expect(fixture.description().checkResponse("reactions/create-for-issue", eyes.status, eyes.data)).toEqual([]);
    const again = await app.rest.reactions.createForIssue({ ...at, content: "eyes" });
    expect(again.status).toBe(200);
    expect(again.data.id).toBe(eyes.data.id);
    // The issue's reactions are its own: a comment with the issue's number as its id has none of them.
    expect((await app.rest.reactions.listForIssueComment({ ...repo, comment_id: issue.number })).data).toEqual([]);
    const confused = await app.rest.reactions.createForIssue({ ...at, content: "confused" });
    expect(confused.status).toBe(201);

    const assigned = await user.rest.issues.addAssignees({ ...at, assignees: [BOT, "maria"] });
    expect(assigned.status).toBe(201);
    expect(fixture.description().checkResponse("issues/add-assignees", assigned.status, assigned.data)).toEqual([]);
    expect(assigned.data.assignees?.map((assignee) => [assignee.login, assignee.type])).toEqual([
      [BOT, "Bot"],
      ["maria", "User"]
    ]);
    expect(assigned.data.assignee?.login).toBe(BOT);

    const labelled = await user.rest.issues.addLabels({ ...at, labels: ["agent-think"] });
    expect(fixture.description().checkResponse("issues/add-labels", labelled.status, labelled.data)).toEqual([]);
    const got = await user.rest.issues.get(at);
    expect(fixture.description().checkResponse("issues/get", got.status, got.data)).toEqual([]);
    expect(got.data.assignees?.map((assignee) => assignee.login)).toEqual([BOT, "maria"]);
    expect(got.data.labels.map((label) => (typeof label === "string" ? label : label.name))).toEqual(["agent-think"]);

    const unassigned = await user.rest.issues.removeAssignees({ ...at, assignees: ["AGENT-THINK[bot]", "nobody"] });
    expect(unassigned.status).toBe(200);
    expect(fixture.description().checkResponse("issues/remove-assignees", unassigned.status, unassigned.data)).toEqual([]);
    expect(unassigned.data.assignees?.map((assignee) => assignee.login)).toEqual(["maria"]);

    const unlabelled = await user.rest.issues.removeLabel({ ...at, name: "Agent-Think" });
    expect(unlabelled.status).toBe(200);
    expect(unlabelled.data).toEqual([]);
    expect(fixture.description().checkResponse("issues/remove-label", unlabelled.status, unlabelled.data)).toEqual([]);
    const missing = await fetch(`${github.url}/repos/acme/widgets/issues/${issue.number}/labels/agent-think`, { method: "DELETE" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ message: "Label does not exist" });
    const final = (await user.rest.issues.get(at)).data;
    expect(final).toMatchObject({ labels: [], assignee: { login: "maria" } });

    // Another issue number is GitHub's 404, an answer and not a refusal.
    const none = await fetch(`${github.url}/repos/acme/widgets/issues/99/assignees`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assignees: [BOT] }) });
    expect(none.status).toBe(404);
    expect(github.refusals()).toEqual([]);
    expect(github.records().filter((record) => record.operation === "reactions/create-for-issue").map(describeRecord)).toEqual([
      `POST /repos/acme/widgets/issues/${issue.number}/reactions (eyes)`,
      `POST /repos/acme/widgets/issues/${issue.number}/reactions (eyes)`,
      `POST /repos/acme/widgets/issues/${issue.number}/reactions (confused)`
    ]);
  });

  it("refuses a reaction GitHub does not have, and an eleventh assignee", async () => {
    const github = await start({ webhook: null });
    const user = octokit(github.url, "ghp_maria");
    const issue = (await user.rest.issues.create({ ...repo, title: "Many hands" })).data;
    const bad = await fetch(`${github.url}/repos/acme/widgets/issues/${issue.number}/reactions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ content: "rocket2" }) });
    expect(bad.status).toBe(422);
    const eleven = Array.from({ length: 11 }, (_, index) => `user${index}`);
    await expect(user.rest.issues.addAssignees({ ...repo, issue_number: issue.number, assignees: eleven })).rejects.toMatchObject({ status: 422 });
    expect((await user.rest.issues.get({ ...repo, issue_number: issue.number })).data.assignees).toEqual([]);
  });
});

describe("GitHub stand-in: issues deliveries", () => {
  it("delivers issues.assigned, .labeled, .unlabeled and .unassigned for a user's changes, each signed, with its own delivery id, as GitHub's schema and the webhook app read them", async () => {
    const hook = await receiver();
    const lines: string[] = [];
    const github = await start({ webhook: { url: hook.url, secret: SECRET }, userLogin: "maria", permissions: { maria: "maintain" }, onDelivery: (delivery) => lines.push(describeDelivery(delivery)) });
    const user = octokit(github.url, "ghp_maria");
    const issue = (await user.rest.issues.create({ ...repo, title: "It crashes on start", body: "Steps: run it." })).data;
    const at = { ...repo, issue_number: issue.number };

    await user.rest.issues.addAssignees({ ...at, assignees: [BOT] });
    await settled(github);
    await user.rest.issues.addLabels({ ...at, labels: ["agent-think"] });
    await settled(github);
    await user.rest.issues.removeLabel({ ...at, name: "agent-think" });
    await settled(github);
    await user.rest.issues.removeAssignees({ ...at, assignees: [BOT] });
    const deliveries = await settled(github);

    expect(deliveries.map((delivery) => [delivery.event, delivery.action, delivery.assignee ?? delivery.label, delivery.login, delivery.status])).toEqual([
      ["issues", "assigned", BOT, "maria", 202],
      ["issues", "labeled", "agent-think", "maria", 202],
      ["issues", "unlabeled", "agent-think", "maria", 202],
      ["issues", "unassigned", BOT, "maria", 202]
    ]);
    expect(new Set(deliveries.map((delivery) => delivery.deliveryId)).size).toBe(4);
    expect(lines[0]).toBe(`delivered issues.assigned (acme/widgets#${issue.number}, assignee ${BOT} by maria) to ${hook.url}: 202`);

    const verifier = new Webhooks({ secret: SECRET });
    expect(hook.received).toHaveLength(4);
    for (const [index, received] of hook.received.entries()) {
      expect(received.headers["x-github-event"]).toBe("issues");
      expect(received.headers["x-github-delivery"]).toBe(deliveries[index]!.deliveryId);
      expect(await verifier.verify(received.body, String(received.headers["x-hub-signature-256"]))).toBe(true);
      const payload = JSON.parse(received.body) as { action: IssuesAction };
      expect(webhookProblems(payload.action, payload)).toEqual([]);
      expect(issueEventSchema.safeParse(payload).success).toBe(true);
    }
    const [assigned, labeled, unlabeled, unassigned] = hook.received.map((received) => JSON.parse(received.body));
    expect(assigned).toMatchObject({
      action: "assigned",
      assignee: { login: BOT, id: STANDIN_BOT_USER_ID, type: "Bot" },
      issue: { number: issue.number, title: "It crashes on start", body: "Steps: run it.", assignees: [{ login: BOT }], labels: [], user: { login: "maria" }, author_association: "MEMBER" },
      repository: { full_name: "acme/widgets" },
      sender: { login: "maria", type: "User" },
      installation: { id: 1 }
    });
    expect(assigned.issue.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(labeled).toMatchObject({ action: "labeled", label: { name: "agent-think" }, issue: { labels: [{ name: "agent-think" }] } });
    expect(labeled.assignee).toBeUndefined();
    expect(unlabeled).toMatchObject({ action: "unlabeled", label: { name: "agent-think" }, issue: { labels: [] } });
    expect(unassigned).toMatchObject({ action: "unassigned", assignee: { login: BOT }, issue: { assignees: [], assignee: null } });
  });

  it("sends one delivery per label a call adds, none for a label the issue has, and none for the App's own changes", async () => {
    const hook = await receiver();
    const github = await start({ webhook: { url: hook.url, secret: SECRET } });
    const user = octokit(github.url, "ghp_maria");
    const app = octokit(github.url, "ghs_installation");
    const issue = (await user.rest.issues.create({ ...repo, title: "Labels", labels: ["bug"] })).data;
    const at = { ...repo, issue_number: issue.number };

    await user.rest.issues.addLabels({ ...at, labels: ["bug", "agent-think", "help wanted"] });
    expect((await settled(github)).map((delivery) => delivery.label).sort()).toEqual(["agent-think", "help wanted"]);
    await user.rest.issues.update({ ...at, labels: ["agent-think"] });
    expect((await settled(github)).slice(2).map((delivery) => [delivery.action, delivery.label]).sort()).toEqual([
      ["unlabeled", "bug"],
      ["unlabeled", "help wanted"]
    ]);

    await app.rest.issues.addAssignees({ ...at, assignees: [BOT] });
    await app.rest.issues.addLabels({ ...at, labels: ["agent-think:reproduced"] });
    await app.rest.issues.removeLabel({ ...at, name: "agent-think" });
    await app.rest.reactions.createForIssue({ ...at, content: "eyes" });
    expect(await settled(github)).toHaveLength(4);
    expect(hook.received).toHaveLength(4);
  });

  it("builds each issues example GitHub's webhook schema takes, by default the App's bot or the label agent-think", () => {
    for (const action of ["assigned", "unassigned", "labeled", "unlabeled"] as const) {
      const payload = issuesPayload({ repo: "acme/widgets", issueNumber: 7, action });
      expect(webhookProblems(action, payload)).toEqual([]);
      expect(issueEventSchema.safeParse(payload).success).toBe(true);
      if (action === "assigned" || action === "unassigned") expect(payload.assignee).toMatchObject({ login: BOT, type: "Bot" });
      else expect(payload.label).toMatchObject({ name: "agent-think" });
      expect(payload).toMatchObject({ issue: { number: 7, html_url: "https://github.com/acme/widgets/issues/7" }, installation: { id: expect.any(Number) } });
    }
    const enterprise = issuesPayload({ repo: "acme/widgets", issueNumber: 7, action: "assigned", github: { web: "https://ghe.example", api: "https://ghe.example/api/v3" } });
    expect(enterprise.issue.url).toBe("https://ghe.example/api/v3/repos/acme/widgets/issues/7");
  });
});
