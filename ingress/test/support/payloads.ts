/**
 * The deliveries the ingress tests send, built over GitHub's published
 * `issue_comment` example (scripts/lib/github-delivery.ts), and the list of
 * every variant they use. Free of workers imports: the Workers-runtime tests
 * build with the example they load through `?raw` (support/examples.ts), and
 * test/unit/webhook-payloads.test.ts builds every variant in plain Node and
 * validates it against GitHub's webhook schema (workerd refuses the
 * validator's generated code).
 */
import { issueCommentPayload, type CommentDeliveryOptions, type IssueCommentExample } from "../../../scripts/lib/github-delivery";

/** A comment id no other test uses. */
export const newCommentId = () => 1_000_000 + Math.floor(Math.random() * 1_000_000_000);

export function testPayloads(example: IssueCommentExample) {
  const commentPayload = (options: Partial<CommentDeliveryOptions> = {}) =>
    issueCommentPayload(
      { repo: "acme/widgets", issueNumber: 7, commentId: newCommentId(), body: "@agent-think reproduce this issue", ...options },
      example
    );
  return {
    commentPayload,
    /** Deliberately invalid: an issue_comment.created without its comment. */
    withoutComment() {
      const { comment: _comment, ...payload } = commentPayload();
      return payload;
    },
    /** A deleted account ("ghost"): GitHub sends `user: null`. */
    ghostCommenter() {
      const payload = commentPayload();
      return { ...payload, comment: { ...payload.comment, user: null } };
    }
  };
}

/**
 * Every kind of payload the ingress tests send, by the options they pass
 * (the schema test builds each). `valid: false` marks a payload a test sends
 * deliberately broken: the schema must refuse it too.
 */
export const PAYLOAD_VARIANTS: { name: string; options?: Partial<CommentDeliveryOptions>; build?: "withoutComment" | "ghostCommenter"; schema?: string; valid: boolean }[] = [
  { name: "the default comment (OWNER octocat on acme/widgets#7)", valid: true },
  { name: "a multi-line instruction on a titled issue", options: { issueNumber: 41, issueTitle: "Crash on start", body: "@agent-think reproduce this\nOn Node 22." }, valid: true },
  { name: "a 70,000-character body", options: { body: `@agent-think ${"x".repeat(70_000)}` }, valid: true },
  { name: "a repository spelled in capitals", options: { repo: "ACME/Gadgets" }, valid: true },
  { name: "an Enterprise Managed User on their own repository", options: { login: "mona_acme", association: "OWNER", repo: "octocat_acme/widgets" }, valid: true },
  ...["MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "NONE"].map((association) => ({
    name: `a ${association} commenter (a private org member shows as CONTRIBUTOR or NONE)`,
    options: { login: "private-member-1234abcd", association },
    valid: true
  })),
  { name: "the App's own bot", options: { login: "agent-think[bot]", userType: "Bot" }, valid: true },
  { name: "another App's bot", options: { login: "dependabot[bot]", userType: "Bot" }, valid: true },
  { name: "a Bot account without [bot]", options: { login: "release-robot", userType: "Bot" }, valid: true },
  { name: "a pull request conversation comment", options: { pullRequest: true, issueNumber: 12 }, valid: true },
  { name: "an edit (with GitHub's changes)", options: { action: "edited" }, schema: "webhook-issue-comment-edited", valid: true },
  { name: "a deletion", options: { action: "deleted" }, schema: "webhook-issue-comment-deleted", valid: true },
  { name: "a deleted account (ghost, user: null)", build: "ghostCommenter", valid: true },
  // Logins GitHub would never send, which the app refuses (who-may-ask.test.ts): the schema only says "string".
  { name: "a login GitHub would never issue (mona_a)", options: { login: "mona_a" }, valid: true },
  { name: "deliberately invalid: no comment", build: "withoutComment", valid: false }
];
