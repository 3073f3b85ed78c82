/**
 * Signed GitHub webhook deliveries as GitHub sends them: an `issue_comment`
 * payload of the shape the webhook app reads, and the headers
 * (`X-GitHub-Event`, `X-GitHub-Delivery`, `X-Hub-Signature-256` from
 * @octokit/webhooks). Used by `npm run send:delivery`, the webhook bench and
 * the ingress tests (it runs in Node and in workerd alike).
 */
import { Webhooks } from "@octokit/webhooks";

export type CommentDeliveryOptions = {
  repo: string;
  issueNumber: number;
  commentId: number;
  body: string;
  login?: string;
  /** OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ... */
  association?: string;
  /** "User" or "Bot". */
  userType?: string;
  issueTitle?: string;
  action?: string;
};

export type Delivery = { body: string; headers: Record<string, string> };

export function issueCommentPayload(options: CommentDeliveryOptions) {
  const [owner = "", name = ""] = options.repo.split("/");
  const login = options.login ?? "octocat";
  const user = {
    login,
    id: 583231,
    type: options.userType ?? (login.endsWith("[bot]") ? "Bot" : "User"),
    avatar_url: "https://avatars.githubusercontent.com/u/583231?v=4"
  };
  return {
    action: options.action ?? "created",
    issue: {
      number: options.issueNumber,
      title: options.issueTitle ?? `Issue ${options.issueNumber}`,
      state: "open",
      user: { login: "reporter", id: 1, type: "User" }
    },
    comment: {
      id: options.commentId,
      body: options.body,
      user,
      author_association: options.association ?? "OWNER",
      html_url: `https://github.com/${options.repo}/issues/${options.issueNumber}#issuecomment-${options.commentId}`,
      created_at: new Date(0).toISOString()
    },
    repository: { id: 1296269, name, full_name: options.repo, owner: { login: owner, type: "Organization" } },
    installation: { id: 1 },
    sender: user
  };
}

/** `payload` signed with `secret`, with the headers GitHub sends. */
export async function signedDelivery(
  secret: string,
  payload: unknown,
  options: { event?: string; deliveryId?: string } = {}
): Promise<Delivery> {
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  return {
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/agent-think-test",
      "x-github-event": options.event ?? "issue_comment",
      "x-github-delivery": options.deliveryId ?? crypto.randomUUID(),
      "x-hub-signature-256": await signer(secret).sign(body)
    }
  };
}

let cached: { secret: string; webhooks: Webhooks } | undefined;

function signer(secret: string): Webhooks {
  if (cached?.secret !== secret) cached = { secret, webhooks: new Webhooks({ secret }) };
  return cached.webhooks;
}
