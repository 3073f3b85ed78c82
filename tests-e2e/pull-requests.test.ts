/**
 * A mention in a pull request's diff, end to end: both Workers under real
 * `wrangler dev` with the recording GitHub stand-in (as tests-e2e/
 * ingress.test.ts runs them). A signed `pull_request_review_comment`
 * delivery (GitHub's published example, scripts/lib/github-delivery.ts's
 * reviewCommentPayload) whose instruction is scripted-model directives is
 * answered 202, reacted 👀 on the review comment (the pulls comments
 * reactions endpoint, not the issues one), dispatched, run to its end on the
 * dashboard, and closed with one comment on the pull request's conversation
 * (issues/create-comment with the PR's number). The run's first user
 * message says it is about a pull request, with the commented file and line.
 * The pull request and the repository's instruction files are seeded in the
 * stand-in, for whatever GitHub lookups the Workers make on its behalf; the
 * stand-in refuses nothing. The chain is the job's shared one
 * (support/chain.ts), in a repository of this file's own.
 */
import { describe, expect, it } from "vitest";
import { SHARED_CHAIN_REPOS, test, type Chain } from "./support/chain";
import { reviewCommentPayload, signedDelivery } from "../scripts/lib/github-delivery";
import type { GitHubStandin, StandinRecord } from "../scripts/lib/github-standin";
import { WEBHOOK_PATH } from "../scripts/lib/ingress-dev";
import { parseEnvelope } from "../src/run/envelope";
import type { Snapshot } from "../src/shared/command-center";
import { readMessages } from "./dev-api";

const REPO = SHARED_CHAIN_REPOS.pullRequests;
const PULL = 31;
const COMMENT_ID = 81_031;
const SESSION = `${REPO.replace("/", "-")}-${PULL}`;
const START_TIMEOUT_MS = 120_000;
const RUN_TIMEOUT_MS = 45_000;

let chain: Chain;
let standin: GitHubStandin;
let agent: Chain["agent"];
let ingress: Chain["ingress"];

test.beforeAll(({ sharedChain }) => {
  ({ chain } = sharedChain);
  ({ standin, agent, ingress } = chain);
  standin.seedPull({
    repo: REPO,
    number: PULL,
    head: { repo: "forker/widgets", ref: "fix-parser", sha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821" },
    base: { ref: "main" },
    user: { login: "forker" },
    title: "Fix the parser"
  });
  standin.seedFile({ repo: REPO, path: "AGENTS.md", content: "# Agents\n\nRun `npm test` before you push.\n" });
}, START_TIMEOUT_MS);

const logs = () => `--- agent ---\n${agent.output().slice(-3_000)}\n--- ingress ---\n${ingress.output().slice(-3_000)}`;

/** Polls `read` until it returns something, or fails with both Workers' output. */
async function eventually<T>(what: string, read: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${RUN_TIMEOUT_MS} ms\n${logs()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function thread(session: string) {
  const snapshot = (await (await fetch(`${agent.url}/api/command-center`)).json()) as Snapshot;
  return snapshot.threads.find((entry) => entry.session === session);
}

/** What the stand-in was asked about this file's repository (the chain's other files work in theirs). */
const ofRepo = () => standin.records().filter((record) => record.path.startsWith(`/repos/${REPO}/`));

const describeCall = (record: StandinRecord) =>
  `${record.method} ${record.path}${record.body && typeof record.body === "object" && "content" in record.body ? ` ${(record.body as { content: string }).content}` : ""}`;

describe("a review comment that mentions the bot, webhook to finished run", () => {
  it("is answered 202, reacted 👀 on the review comment, run, and closed with one comment on the pull request", async () => {
    const startedAt = Date.now();
    const payload = reviewCommentPayload({
      repo: REPO,
      pullNumber: PULL,
      commentId: COMMENT_ID,
      body: "@agent-think reproduce this\nTEST: result not-reproduced scripted: the parser handles this line",
      login: "alice",
      association: "MEMBER",
      path: "src/parser/index.ts",
      startLine: 40,
      line: 42,
      diffHunk: "@@ -38,6 +38,7 @@ export function parse(input) {\n-  return tokens;\n+  return tokens.filter(Boolean);",
      head: { repo: "forker/widgets", ref: "fix-parser" },
      baseRef: "main",
      title: "Fix the parser"
    });
    const delivery = await signedDelivery(chain.secret, payload, { event: "pull_request_review_comment" });
    const response = await fetch(`${ingress.url}${WEBHOOK_PATH}`, { method: "POST", headers: delivery.headers, body: delivery.body });
    expect(response.status, logs()).toBe(202);
    expect(response.headers.get("agent-think-outcome")).toBe("accepted");

    // 👀 on the review comment, through the pulls comments reactions route.
    const eyes = await eventually("👀 on the review comment", () =>
      ofRepo().find((record) => record.operation === "reactions/create-for-pull-request-review-comment")
    );
    expect(describeCall(eyes)).toBe(`POST /repos/${REPO}/pulls/comments/${COMMENT_ID}/reactions eyes`);
    // Nothing reacted on an issue comment with the review comment's id.
    expect(standin.records().filter((record) => record.path === `/repos/${REPO}/issues/comments/${COMMENT_ID}/reactions`)).toEqual([]);

    // The run finishes: the dashboard's thread is done and has its closing message.
    const finished = await eventually("the run's end on the dashboard", async () => {
      const entry = await thread(SESSION);
      return entry?.status === "done" ? entry : undefined;
    });
    expect(finished).toMatchObject({ repo: REPO, issueNumber: PULL, status: "done", requestedBy: { login: "alice" } });
    const closings = await eventually("the closing comment", () => {
      const posted = standin
        .records()
        .filter(
          (record) =>
            record.operation === "issues/create-comment" &&
            record.path === `/repos/${REPO}/issues/${PULL}/comments` &&
            String((record.body as { body?: unknown }).body).includes(":closing -->")
        );
      return posted.length > 0 ? posted : undefined;
    });
    expect(closings).toHaveLength(1);
    // 🚀 when the run started, on the review comment too (GitHub's pulls/comments reactions), and none on an issue comment.
    expect(
      ofRepo()
        .filter((record) => record.operation === "reactions/create-for-pull-request-review-comment")
        .map((record) => (record.body as { content: string }).content)
    ).toEqual(["eyes", "rocket"]);
    expect(standin.records().filter((record) => record.path === `/repos/${REPO}/issues/comments/${COMMENT_ID}/reactions`)).toEqual([]);
    const closing = (closings[0]!.body as { body: string }).body;
    expect(closing).toContain("### ❔ Not reproduced");
    expect(closing).toContain("the parser handles this line");
    expect(closing).toContain(`${agent.url}/thread/${SESSION}`);

    // The run's first user message: a pull request, with the commented file and lines as delivered.
    const { messages } = await readMessages(agent.url, SESSION);
    const first = messages.find((message) => message.role === "user");
    const text = (first?.parts.find((part) => part.type === "text") as { text?: string } | undefined)?.text ?? "";
    const envelope = parseEnvelope(text);
    expect(envelope, text.slice(0, 2_000)).not.toBeNull();
    expect(envelope).toMatchObject({
      repository: REPO,
      kind: "pull_request",
      issue: { number: PULL },
      instruction: "reproduce this\nTEST: result not-reproduced scripted: the parser handles this line",
      requestedBy: { login: "alice" },
      pullRequest: {
        number: PULL,
        headRepo: "forker/widgets",
        headRef: "fix-parser",
        baseRef: "main",
        fork: true,
        reviewComment: { id: COMMENT_ID, path: "src/parser/index.ts", startLine: 40, line: 42, side: "RIGHT" }
      }
    });
    expect(envelope!.pullRequest!.reviewComment!.path).toBe(payload.comment.path);
    expect(envelope!.pullRequest!.reviewComment!.line).toBe(payload.comment.line);
    // A review comment's id is not an issue comment's: no triggering comment, so no 🚀 on one.
    expect(envelope!.triggeringComment).toBeUndefined();

    // Everything both Workers sent was a request GitHub takes.
    expect(standin.refusals()).toEqual([]);
    expect(Date.now() - startedAt).toBeLessThan(60_000);
  });
});
