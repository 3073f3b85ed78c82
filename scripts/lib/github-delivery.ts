/**
 * Signed GitHub webhook deliveries as GitHub sends them, each GitHub's own
 * published example (@octokit/webhooks-examples, github.com, with an
 * `installation`) changed only where a case needs it: here a comment
 * (`issue_comment`) and the signed headers; a pull request's review comment
 * and review, an issue's change, a CI run and a pull request's change in
 * github-delivery-*.ts, whose builders this module passes on. Runs in Node
 * and in workerd alike (docs/github-standin.md, "Webhooks").
 */
import { Webhooks } from "@octokit/webhooks";
import { githubTime, OCTOCAT_ID, rehosted, repositoryAs, userUrls, type Definitions, type ExampleRepository, type GitHubUser } from "./github-delivery-shared";

export { githubTime } from "./github-delivery-shared";
export {
  pickReviewCommentExample,
  pickReviewExample,
  reviewCommentExample,
  reviewCommentPayload,
  reviewExample,
  reviewPayload,
  type PullRequestHeadOptions,
  type ReviewCommentDeliveryOptions,
  type ReviewCommentExample,
  type ReviewCommentPayload,
  type ReviewDeliveryOptions,
  type ReviewExample,
  type ReviewPayload
} from "./github-delivery-pulls";
export {
  issuesExample,
  issuesPayload,
  pickIssuesExample,
  type AccountOptions,
  type IssuesAction,
  type IssuesDeliveryOptions,
  type IssuesPayload,
  type LabelOptions
} from "./github-delivery-issues";
export { ciExample, ciPayload, pickCiExample, type CiDeliveryOptions, type CiEventName, type CiPayload } from "./github-delivery-ci";
export {
  pickPullRequestExample,
  pullRequestExample,
  pullRequestPayload,
  type PullRequestAction,
  type PullRequestDeliveryOptions,
  type PullRequestPayload
} from "./github-delivery-pull-request";

export type CommentDeliveryOptions = {
  repo: string;
  issueNumber: number;
  commentId: number;
  body: string;
  /** The commenter and sender (default octocat). */
  login?: string;
  userId?: number;
  /** OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ... */
  association?: string;
  /** "User" or "Bot". */
  userType?: string;
  issueTitle?: string;
  /** created (the default), edited (with the `changes` GitHub sends) or deleted. */
  action?: string;
  /** A comment on a pull request's conversation: the issue carries `pull_request`. */
  pullRequest?: boolean;
  /** When the comment was made (default: now, as GitHub dates a new one; the webhook app ignores a delivery over a day older). */
  createdAt?: string;
  /**
   * The GitHub that sent it, when not github.com (an Enterprise Server):
   * every github.com and api.github.com URL of the payload is rewritten to
   * these origins, as that server would have written them.
   */
  github?: { web: string; api: string };
};

/** The fields of GitHub's example this module replaces; the rest is sent as published. */
export type IssueCommentExample = {
  action: string;
  issue: { number: number; title: string; html_url: string; url: string; [field: string]: unknown };
  comment: { id: number; body: string; author_association: string; user: GitHubUser; html_url: string; [field: string]: unknown };
  repository: ExampleRepository;
  sender: GitHubUser;
  [field: string]: unknown;
};

export type Delivery = { body: string; headers: Record<string, string> };

/** The github.com `issue_comment.created` example that names an installation, from the examples' index. */
export function pickIssueCommentExample(definitions: unknown): IssueCommentExample {
  const example = (definitions as Definitions)
    .find((definition) => definition.name === "issue_comment")
    ?.examples.find((payload) => payload.action === "created" && payload.installation !== undefined);
  if (!example) throw new Error("@octokit/webhooks-examples no longer publishes an issue_comment.created example with an installation");
  return example as IssueCommentExample;
}

let nodeExample: IssueCommentExample | undefined;

/** The example read from node_modules: Node only (scripts, bench, e2e, unit tests). */
export function issueCommentExample(): IssueCommentExample {
  if (!nodeExample) {
    const { createRequire } = process.getBuiltinModule("node:module");
    nodeExample = pickIssueCommentExample(createRequire(import.meta.url)("@octokit/webhooks-examples"));
  }
  return nodeExample;
}

export function issueCommentPayload(options: CommentDeliveryOptions, example: IssueCommentExample = issueCommentExample()) {
  const payload = githubComPayload(options, example);
  return options.github ? rehosted(payload, options.github) : payload;
}

function githubComPayload(options: CommentDeliveryOptions, example: IssueCommentExample) {
  const login = options.login ?? "octocat";
  const id = options.userId ?? OCTOCAT_ID;
  const user = {
    ...example.comment.user,
    login,
    id,
    node_id: btoa(`04:User${id}`),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    type: options.userType ?? (login.endsWith("[bot]") ? "Bot" : "User"),
    ...userUrls(login)
  };
  const repoUrl = `https://github.com/${options.repo}`;
  const issueUrl = `${repoUrl}/${options.pullRequest ? "pull" : "issues"}/${options.issueNumber}`;
  const action = options.action ?? "created";
  const createdAt = options.createdAt ?? githubTime();
  return {
    ...example,
    action,
    ...(action === "edited" ? { changes: { body: { from: "An earlier version of this comment" } } } : {}),
    issue: {
      ...example.issue,
      number: options.issueNumber,
      title: options.issueTitle ?? `Issue ${options.issueNumber}`,
      html_url: issueUrl,
      url: `https://api.github.com/repos/${options.repo}/issues/${options.issueNumber}`,
      ...(options.pullRequest
        ? {
            pull_request: {
              url: `https://api.github.com/repos/${options.repo}/pulls/${options.issueNumber}`,
              html_url: issueUrl,
              diff_url: `${issueUrl}.diff`,
              patch_url: `${issueUrl}.patch`,
              merged_at: null
            }
          }
        : {})
    },
    comment: {
      ...example.comment,
      id: options.commentId,
      body: options.body,
      user,
      author_association: options.association ?? "OWNER",
      html_url: `${issueUrl}#issuecomment-${options.commentId}`,
      created_at: createdAt,
      updated_at: createdAt
    },
    repository: repositoryAs(example.repository, options.repo),
    sender: user
  };
}

export type IssueCommentPayload = ReturnType<typeof githubComPayload>;

/** `payload` signed with `secret`, with the headers GitHub sends. */
export async function signedDelivery(
  secret: string,
  payload: unknown,
  options: { event?: string; deliveryId?: string; enterprise?: { host: string; version: string } } = {}
): Promise<Delivery> {
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  const { enterprise } = options;
  return {
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/agent-think-test",
      "x-github-event": options.event ?? "issue_comment",
      "x-github-delivery": options.deliveryId ?? crypto.randomUUID(),
      // An Enterprise Server names itself and its version on every delivery.
      ...(enterprise ? { "x-github-enterprise-host": enterprise.host, "x-github-enterprise-version": enterprise.version } : {}),
      "x-hub-signature-256": await signer(secret).sign(body)
    }
  };
}

let cached: { secret: string; webhooks: Webhooks } | undefined;

function signer(secret: string): Webhooks {
  if (cached?.secret !== secret) cached = { secret, webhooks: new Webhooks({ secret }) };
  return cached.webhooks;
}
