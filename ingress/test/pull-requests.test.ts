/**
 * Mentions on pull requests, from GitHub's published examples
 * (@octokit/webhooks-examples): a line comment in the diff
 * (`pull_request_review_comment.created`), a review's body
 * (`pull_request_review.submitted`) and a comment on the conversation
 * (`issue_comment.created` with `issue.pull_request`). Each is gated like an
 * issue comment, claimed once per its own kind of id, and dispatched with the
 * pull request's head, base and (for a line comment) place in the diff.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { pickReviewCommentExample, pickReviewExample } from "../../scripts/lib/github-delivery";
import { DOTCOM_EXAMPLES, ISSUE_COMMENT_EXAMPLE } from "./support/examples";
import { githubServer, IDENTITY_CALLS, permissionCall, PULL_HEAD_SHA, status, type GitHubCall } from "./support/github";
import { commentPayload, dispatchesFor, outcome, refusingAgentEnv, send, sign } from "./support/ingress";
import { testPayloads } from "./support/payloads";
import { RecordingAgentThink } from "./worker";

const { calls, use: github } = githubServer();
const route = (call: GitHubCall) => `${call.method} ${call.path}`;

// GitHub's published examples moved to acme/widgets#2 from forker/widgets's fix-parser (support/payloads.ts's TEST_PULL);
// test/unit/webhook-payloads.test.ts validates the same builders against GitHub's webhook schema.
const definitions = JSON.parse(DOTCOM_EXAMPLES) as unknown;
const { reviewCommentDelivery, reviewDelivery } = testPayloads(ISSUE_COMMENT_EXAMPLE, {
  reviewComment: pickReviewCommentExample(definitions),
  review: pickReviewExample(definitions)
});

type Author = { login?: string; association?: string };

function reviewCommentPayload(body = "@agent-think why does this line break?", author: Author = {}) {
  const payload = reviewCommentDelivery({ body, ...author });
  return { payload, id: payload.comment.id };
}

function reviewPayload(body: string | null = "@agent-think fix what I asked for in this review", author: Author = {}) {
  const payload = reviewDelivery({ body, ...author });
  return { payload, id: payload.review.id };
}

const deliver = async (payload: unknown, event: string, to: Env = env) => send(await sign(payload, { event }), { env: to });
const marker = (key: string) => env.EVENT_STATE.get(key, "json");
const lastDispatch = () => RecordingAgentThink.calls.at(-1);

/** The example's pull request as the builders move it: forker/widgets's `fix-parser` into acme/widgets's `master` (the example's commit and base). */
const EXAMPLE_PULL = {
  number: 2,
  headRepo: "forker/widgets",
  headRef: "fix-parser",
  headSha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
  baseRef: "master",
  fork: true,
  author: "forker"
};

describe("a review comment that mentions the bot", () => {
  it("starts a run: 👀 on the review comment, the pull request's head, base and diff place dispatched, keyed by its own id", async () => {
    github();
    const { payload, id } = reviewCommentPayload();
    const before = RecordingAgentThink.calls.length;
    const response = await deliver(payload, "pull_request_review_comment");
    expect(response.status).toBe(202);
    expect(calls.map(route).slice(-1)).toEqual([`POST /repos/acme/widgets/pulls/comments/${id}/reactions`]);
    expect(calls.at(-1)!.body).toEqual({ content: "eyes" });
    expect(RecordingAgentThink.calls.length).toBe(before + 1);
    const input = lastDispatch()!;
    expect(input).toMatchObject({ repo: "acme/widgets", issueNumber: 2, instruction: "why does this line break?", issueTitle: "Update the README with new information." });
    // A review comment's id is not an issue comment's: the agent's 🚀 and links must not use it.
    expect(input.commentId).toBeUndefined();
    expect(input.pullRequest).toEqual({
      ...EXAMPLE_PULL,
      reviewComment: { id, path: "README.md", line: 265, side: "RIGHT", diffHunk: "@@ -1 +1 @@\n-# Hello-World" }
    });
    expect(await marker(`handled:review-comments:${id}`)).toMatchObject({ state: "dispatched", reviewCommentId: id, issueNumber: 2 });
    expect(await marker(`handled:comments:${id}`)).toBeNull();
  });

  it("is refused from a bot, and from someone GitHub says is not a collaborator (a 404), whatever the association", async () => {
    github();
    const bot = reviewCommentPayload("@agent-think merge this", { login: "dependabot[bot]" });
    expect(outcome(await deliver(bot.payload, "pull_request_review_comment"))).toBe("ignored:bot");
    const stranger = reviewCommentPayload("@agent-think run this", { login: "stranger-1234", association: "NONE" });
    expect(outcome(await deliver(stranger.payload, "pull_request_review_comment"))).toBe("ignored:not_trusted");
    expect(calls.map(route).at(-1)).toBe("GET /repos/acme/widgets/collaborators/stranger-1234/permission");
    expect(dispatchesFor(bot.id)).toEqual([]);
    expect(await marker(`handled:review-comments:${stranger.id}`)).toBeNull();
  });

  it("a run that did not start: 😕 on the review comment, the not-started comment on the PR conversation", async () => {
    github();
    const { payload, id } = reviewCommentPayload("@agent-think fix this line");
    expect((await deliver(payload, "pull_request_review_comment", refusingAgentEnv())).status).toBe(202);
    expect(calls.map(route).slice(-2)).toEqual([`POST /repos/acme/widgets/pulls/comments/${id}/reactions`, "POST /repos/acme/widgets/issues/2/comments"]);
    expect(calls.at(-2)!.body).toEqual({ content: "confused" });
    expect(String((calls.at(-1)!.body as { body: string }).body)).toContain(`<!-- agent-think-ingress:not-started review-comment=${id} -->`);
    expect(await marker(`handled:review-comments:${id}`)).toMatchObject({ state: "failed", reason: "dispatch" });
  });
});

describe("a review whose body mentions the bot", () => {
  it("starts a run once per review id, with no reaction (a review has none), keyed apart from comments", async () => {
    github();
    const { payload, id } = reviewPayload();
    expect((await deliver(payload, "pull_request_review")).status).toBe(202);
    expect(calls.map(route)).not.toContainEqual(expect.stringContaining("/reactions"));
    const input = lastDispatch()!;
    expect(input).toMatchObject({ repo: "acme/widgets", issueNumber: 2, instruction: "fix what I asked for in this review" });
    expect(input.commentId).toBeUndefined();
    expect(input.pullRequest).toEqual({ ...EXAMPLE_PULL, reviewId: id });
    expect(await marker(`handled:reviews:${id}`)).toMatchObject({ state: "dispatched", reviewId: id });

    // The same review again is a duplicate; an issue comment with the same number as its id is not.
    expect(outcome(await deliver(payload, "pull_request_review"))).toBe("ignored:duplicate");
    const comment = commentPayload({ commentId: id });
    expect((await deliver(comment, "issue_comment")).status).toBe(202);
    expect(dispatchesFor(id)).toHaveLength(1);
  });

  it("is ignored without a mention (GitHub's example has no body), and for any action but submitted", async () => {
    github();
    expect(outcome(await deliver(reviewPayload(null).payload, "pull_request_review"))).toBe("ignored:no_mention");
    expect(outcome(await deliver(reviewPayload("LGTM, thanks").payload, "pull_request_review"))).toBe("ignored:no_mention");
    const dismissed = { ...reviewPayload().payload, action: "dismissed" };
    expect(outcome(await deliver(dismissed, "pull_request_review"))).toBe("ignored:action");
    expect(calls).toEqual([]);
  });

  it("is refused from a bot", async () => {
    github();
    expect(outcome(await deliver(reviewPayload(undefined, { login: "agent-think[bot]" }).payload, "pull_request_review"))).toBe("ignored:own_bot");
  });
});

describe("the pull request's body at the mention", () => {
  it("is what a review or a line comment sends as the issue body's digest (a pull request is an issue)", async () => {
    github();
    const body = "Fixes the parser.\r\n\r\nCloses #7";
    const expected = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body))), (byte) => byte.toString(16).padStart(2, "0")).join("");
    const review = reviewDelivery({ issueBody: body });
    expect((await deliver(review, "pull_request_review")).status).toBe(202);
    expect(lastDispatch()?.issueBodySha256).toBe(expected);
    const line = reviewCommentDelivery({ issueBody: null });
    expect((await deliver(line, "pull_request_review_comment")).status).toBe(202);
    expect(lastDispatch()?.issueBodySha256).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });
});

describe("a comment on a pull request's conversation", () => {
  it("asks GitHub for the pull request's head and base, and dispatches them", async () => {
    github();
    const payload = commentPayload({ pullRequest: true, issueNumber: 12 });
    expect((await deliver(payload, "issue_comment")).status).toBe(202);
    expect(calls.map(route).slice(-2)).toEqual([`POST /repos/acme/widgets/issues/comments/${payload.comment.id}/reactions`, "GET /repos/acme/widgets/pulls/12"]);
    expect(calls.map(route).slice(0, 4)).toEqual(expect.arrayContaining([permissionCall("acme/widgets"), ...IDENTITY_CALLS]));
    const [input] = dispatchesFor(payload.comment.id);
    expect(input?.pullRequest).toEqual({ number: 12, headRepo: "forker/widgets", headRef: "fix-parser", headSha: PULL_HEAD_SHA, baseRef: "main", fork: true });
    expect(await marker(`handled:comments:${payload.comment.id}`)).toMatchObject({ state: "dispatched", commentId: payload.comment.id });
  });

  it("still starts the run, knowing the number only, when GitHub will not say", async () => {
    github({ pull: status(404, "Not Found") });
    const payload = commentPayload({ pullRequest: true, issueNumber: 12 });
    expect((await deliver(payload, "issue_comment")).status).toBe(202);
    expect(dispatchesFor(payload.comment.id)[0]?.pullRequest).toEqual({ number: 12 });
  });

  it("an issue's comment carries no pull request", async () => {
    github();
    const payload = commentPayload();
    await deliver(payload, "issue_comment");
    expect(dispatchesFor(payload.comment.id)[0]?.pullRequest).toBeUndefined();
    expect(calls.map(route)).not.toContain("GET /repos/acme/widgets/pulls/7");
  });
});
