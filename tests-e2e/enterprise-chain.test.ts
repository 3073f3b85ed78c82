/**
 * The whole chain on a GitHub Enterprise Server: both Workers under real
 * `wrangler dev`, GITHUB_API_URL `<stand-in>/api/v3`, and the stand-in
 * judging every request against GHES 3.19's own REST description (served
 * under /api/v3, as a server serves it). A signed delivery written the way
 * that server writes it (its URLs in the payload, its
 * X-GitHub-Enterprise-* headers) goes through the webhook app's mint,
 * the App's identity (GET /app, GET /users/<slug>[bot] on that server), 👀
 * and dispatch to a scripted run that reacts 🚀 and posts its
 * closing comment, all under /api/v3. Nothing either Worker sent, and
 * nothing in the run's transcript, names github.com: the run's links are
 * the server's own (the stand-in's origin; src/shared/github-urls.ts).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChain, type Chain } from "./support/chain";
import { issueCommentPayload, signedDelivery } from "../scripts/lib/github-delivery";
import type { GitHubStandin, StandinRecord } from "../scripts/lib/github-standin";
import { WEBHOOK_PATH } from "../scripts/lib/ingress-dev";
import { readMessages } from "./dev-api";
import type { Snapshot } from "../src/shared/command-center";

const REPO = "acme/widgets";
const ISSUE = 31;
const COMMENT_ID = 93101;
const SECRET = randomBytes(24).toString("hex");
const START_TIMEOUT_MS = 120_000;
/** github.com or api.github.com in any form a URL or text would carry. */
const GITHUB_COM = /(?:^|[^.\w-])(?:api\.)?github\.com\b/i;

let chain: Chain;
let standin: GitHubStandin;
let apiUrl: string;
let agent: Chain["agent"];
let ingress: Chain["ingress"];

beforeAll(async () => {
  chain = await startChain({ allowedRepos: REPO, secret: SECRET, standin: { description: "ghes-3.19" }, apiPath: "/api/v3" });
  ({ standin, agent, ingress, apiUrl } = chain);
}, START_TIMEOUT_MS);

afterAll(() => chain?.stop());

async function closingComment(): Promise<StandinRecord> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    // The closing comment by its marker: the run's progress comment is posted to the same path first.
    const posted = standin
      .records()
      .find(
        (record) =>
          record.method === "POST" &&
          record.path === `/api/v3/repos/${REPO}/issues/${ISSUE}/comments` &&
          String((record.body as { body?: unknown } | undefined)?.body ?? "").includes(":closing -->")
      );
    if (posted) return posted;
    if (Date.now() > deadline) {
      throw new Error(`no closing comment\n--- agent ---\n${agent.output().slice(-3_000)}\n--- ingress ---\n${ingress.output().slice(-3_000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("a GitHub Enterprise Server deploy, end to end", () => {
  it("follows a signed delivery from the server through dispatch to the closing comment, all under /api/v3 and nothing naming github.com", async () => {
    const payload = issueCommentPayload({
      repo: REPO,
      issueNumber: ISSUE,
      commentId: COMMENT_ID,
      body: "@agent-think reproduce this issue",
      login: "alice",
      association: "MEMBER",
      github: { web: standin.url, api: apiUrl }
    });
    const delivery = await signedDelivery(SECRET, payload, { enterprise: { host: new URL(standin.url).hostname, version: "3.19.0" } });
    const response = await fetch(`${ingress.url}${WEBHOOK_PATH}`, { method: "POST", headers: delivery.headers, body: delivery.body });
    expect(response.status).toBe(202);

    const closing = await closingComment();
    const body = (closing.body as { body: string }).body;
    expect(body).toContain("### ✅ Reproduced");
    expect(body).toContain(`${agent.url}/thread/acme-widgets-${ISSUE}`);

    // Every call the two Workers made went to the server's /api/v3, and the server's description took each one.
    const records = standin.records();
    expect(records.length).toBeGreaterThan(0);
    expect(records.filter((record) => !record.path.startsWith("/api/v3/"))).toEqual([]);
    expect(standin.refusals()).toEqual([]);
    const calls = records.map((record) => `${record.method} ${record.path}`);
    expect(calls).toEqual(
      expect.arrayContaining([
        "POST /api/v3/app/installations/1/access_tokens",
        // The App's identity, from the server that sent the delivery.
        "GET /api/v3/app",
        "GET /api/v3/users/agent-think%5Bbot%5D",
        `POST /api/v3/repos/${REPO}/issues/comments/${COMMENT_ID}/reactions`,
        `POST /api/v3/repos/${REPO}/issues/${ISSUE}/comments`
      ])
    );
    const reactions = records.filter((record) => record.path.endsWith(`/${COMMENT_ID}/reactions`)).map((record) => (record.body as { content: string }).content);
    expect(reactions).toEqual(["eyes", "rocket"]);

    // Nothing sent to GitHub and nothing the model was told names github.com; the envelope points at the server.
    for (const record of records) expect(JSON.stringify(record.body ?? null), `${record.method} ${record.path}`).not.toMatch(GITHUB_COM);
    const { messages } = await readMessages(agent.url, `acme-widgets-${ISSUE}`);
    const transcript = JSON.stringify(messages);
    expect(transcript).toContain(`${standin.url}/${REPO}/issues/${ISSUE}`);
    expect(transcript).not.toMatch(GITHUB_COM);

    const snapshot = (await (await fetch(`${agent.url}/api/command-center`)).json()) as Snapshot;
    const thread = snapshot.threads.find((entry) => entry.session === `acme-widgets-${ISSUE}`);
    expect(thread).toMatchObject({ repo: REPO, issueNumber: ISSUE, status: "done", requestedBy: { login: "alice" } });
    expect(JSON.stringify(thread)).not.toMatch(GITHUB_COM);
  });
});
