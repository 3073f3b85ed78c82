/**
 * Signed GitHub webhook deliveries as GitHub sends them: GitHub's own
 * published `issue_comment` example (@octokit/webhooks-examples, the
 * github.com one with an `installation`), changed only where a case needs it
 * (commenter, association, body, repository, issue, ids, action); the same
 * for a line comment in a pull request's diff
 * (`pull_request_review_comment.created`: also its file, lines and hunk)
 * and a review (`pull_request_review.submitted`); a change to an issue
 * (`issues.assigned`, `.unassigned`, `.labeled`, `.unlabeled`: assignee,
 * label, the issue's labels and assignees after it); a failed CI run on a
 * pull request's head (`check_suite.completed`, `workflow_run.completed`:
 * ciPayload); and the
 * headers (`X-GitHub-Event`, `X-GitHub-Delivery`, `X-Hub-Signature-256` from
 * @octokit/webhooks). Used by `npm run send:delivery`, the webhook bench, the
 * e2e tests and the ingress tests (it runs in Node and in workerd alike:
 * workerd cannot read the examples from node_modules, so the ingress tests
 * hand in the example they load with Vite's `?raw`). Every payload the tests
 * build is validated against GitHub's webhook schema in
 * test/unit/webhook-payloads.test.ts.
 */
import { Webhooks } from "@octokit/webhooks";

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
  repository: { full_name: string; name: string; owner: GitHubUser; html_url: string; private: boolean; visibility?: string; [field: string]: unknown };
  sender: GitHubUser;
  [field: string]: unknown;
};
type GitHubUser = { login: string; id: number; type: string; [field: string]: unknown };
type Definitions = { name: string; examples: { action?: string; installation?: unknown }[] }[];

/** GitHub's time format (whole seconds, `Z`) for `at`, by default now. */
export const githubTime = (at: number = Date.now()) => new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");

/** octocat's account id on github.com. */
const OCTOCAT_ID = 583231;

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

/** `payload` as another GitHub writes it: its web and API origins in every URL. */
function rehosted<T>(payload: T, github: { web: string; api: string }): T {
  const web = github.web.replace(/\/+$/, "");
  const api = github.api.replace(/\/+$/, "");
  const text = JSON.stringify(payload)
    .replaceAll("https://api.github.com", api)
    .replaceAll("https://github.com", web);
  return JSON.parse(text) as T;
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

/** Who wrote a review comment or a review, as in CommentDeliveryOptions. */
type Author = {
  login?: string;
  userId?: number;
  association?: string;
  userType?: string;
  /** When it was made (a review: submitted; default: now). */
  createdAt?: string;
};

/** Where a pull request's head is: the base repository (the default) or a fork. */
export type PullRequestHeadOptions = { repo?: string; ref?: string; sha?: string };

export type ReviewCommentDeliveryOptions = Author & {
  /** The base repository, `owner/name`. */
  repo: string;
  pullNumber: number;
  commentId: number;
  body: string;
  /** The commented file (the example's README.md). */
  path?: string;
  /** The commented line, and the first line of a multi-line comment (null: one line). */
  line?: number | null;
  startLine?: number | null;
  side?: "LEFT" | "RIGHT";
  diffHunk?: string;
  /** The pull request's head (default: the base repository's own, the example's branch and commit) and base branch. */
  head?: PullRequestHeadOptions;
  baseRef?: string;
  title?: string;
  /** Who opened the pull request (default: the head repository's owner; a `[bot]` login is a Bot). */
  pullAuthor?: string;
};

export type ReviewDeliveryOptions = Author & {
  repo: string;
  pullNumber: number;
  reviewId: number;
  /** The review's body: GitHub sends null for a review without one. */
  body: string | null;
  /** commented (the example's), approved or changes_requested. */
  state?: string;
  head?: PullRequestHeadOptions;
  baseRef?: string;
  title?: string;
  pullAuthor?: string;
};

/** The fields of GitHub's pull request examples this module replaces; the rest is sent as published. */
type PullRequestExample = {
  action: string;
  pull_request: Record<string, unknown> & { number: number; head: Record<string, unknown>; base: Record<string, unknown> };
  repository: IssueCommentExample["repository"];
  sender: GitHubUser;
  [field: string]: unknown;
};
export type ReviewCommentExample = PullRequestExample & { comment: Record<string, unknown> & { id: number; user: GitHubUser } };
export type ReviewExample = PullRequestExample & { review: Record<string, unknown> & { id: number; user: GitHubUser } };

/** The github.com example of `name`.`action` that names an installation, from the examples' index. */
function pickExample<Example>(definitions: unknown, name: string, action: string): Example {
  const example = (definitions as Definitions).find((definition) => definition.name === name)?.examples.find((payload) => payload.action === action && payload.installation !== undefined);
  if (!example) throw new Error(`@octokit/webhooks-examples no longer publishes a ${name}.${action} example with an installation`);
  return example as Example;
}

export const pickReviewCommentExample = (definitions: unknown) => pickExample<ReviewCommentExample>(definitions, "pull_request_review_comment", "created");
export const pickReviewExample = (definitions: unknown) => pickExample<ReviewExample>(definitions, "pull_request_review", "submitted");

let nodeDefinitions: unknown;
/** The examples' index read from node_modules: Node only. */
function nodeExamples(): unknown {
  if (!nodeDefinitions) {
    const { createRequire } = process.getBuiltinModule("node:module");
    nodeDefinitions = createRequire(import.meta.url)("@octokit/webhooks-examples");
  }
  return nodeDefinitions;
}

/** The `pull_request_review_comment.created` and `pull_request_review.submitted` examples read from node_modules: Node only. */
export function reviewCommentExample(): ReviewCommentExample {
  return pickReviewCommentExample(nodeExamples());
}
export function reviewExample(): ReviewExample {
  return pickReviewExample(nodeExamples());
}

/**
 * GitHub's `pull_request_review_comment.created` example as a line comment
 * on `repo`'s pull request `pullNumber`: every URL of the example's
 * repository and pull request moved to them, the comment's id, body,
 * author, file, lines and hunk replaced.
 */
export function reviewCommentPayload(options: ReviewCommentDeliveryOptions, example: ReviewCommentExample = reviewCommentExample()) {
  const moved = movedPullRequest(example, options);
  const original = example.comment;
  const comment = JSON.parse(JSON.stringify(moved.comment).replaceAll(String(original.id), String(options.commentId))) as Record<string, unknown>;
  const user = author(original.user, options);
  const line = options.line === undefined ? (comment.line as number | null) : options.line;
  const startLine = options.startLine === undefined ? null : options.startLine;
  const side = options.side ?? (comment.side as string | null) ?? "RIGHT";
  return {
    ...moved,
    comment: {
      ...comment,
      id: options.commentId,
      node_id: btoa(`024:PullRequestReviewComment${options.commentId}`),
      body: options.body,
      user,
      author_association: options.association ?? "OWNER",
      path: options.path ?? comment.path,
      diff_hunk: options.diffHunk ?? comment.diff_hunk,
      line,
      original_line: line,
      start_line: startLine,
      original_start_line: startLine,
      side,
      start_side: startLine === null ? null : side,
      created_at: options.createdAt ?? githubTime(),
      updated_at: options.createdAt ?? githubTime()
    },
    sender: user
  };
}

/** GitHub's `pull_request_review.submitted` example as a review on `repo`'s pull request `pullNumber`, with its id, body, state and author replaced. */
export function reviewPayload(options: ReviewDeliveryOptions, example: ReviewExample = reviewExample()) {
  const moved = movedPullRequest(example, options);
  const original = example.review;
  const review = JSON.parse(JSON.stringify(moved.review).replaceAll(String(original.id), String(options.reviewId))) as Record<string, unknown>;
  const user = author(original.user, options);
  return {
    ...moved,
    review: {
      ...review,
      id: options.reviewId,
      node_id: btoa(`017:PullRequestReview${options.reviewId}`),
      body: options.body,
      state: options.state ?? review.state,
      user,
      author_association: options.association ?? "OWNER",
      submitted_at: options.createdAt ?? githubTime()
    },
    sender: user
  };
}

export type ReviewCommentPayload = ReturnType<typeof reviewCommentPayload>;
export type ReviewPayload = ReturnType<typeof reviewPayload>;

/** `login` as GitHub describes a user, over the example's user. */
function author(exampleUser: GitHubUser, options: Author) {
  const login = options.login ?? "octocat";
  const id = options.userId ?? OCTOCAT_ID;
  return {
    ...renamed(exampleUser, login),
    id,
    node_id: btoa(`04:User${id}`),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    type: options.userType ?? (login.endsWith("[bot]") ? "Bot" : "User")
  };
}

/** The example's `user` as `login`: its login and every URL naming it. */
function renamed<User extends { login: string }>(user: User, login: string): User {
  const from = encodeURIComponent(user.login);
  const to = encodeURIComponent(login);
  const text = JSON.stringify(user).replaceAll(`/users/${from}/`, `/users/${to}/`).replaceAll(`/users/${from}"`, `/users/${to}"`).replaceAll(`https://github.com/${from}"`, `https://github.com/${to}"`);
  return { ...(JSON.parse(text) as User), login };
}

/**
 * The example with its repository and pull request moved: every URL naming
 * the example's repository names `repo`, every one naming its pull request
 * `pullNumber`; the head is the base repository's (or `head.repo`, a fork,
 * `fork: true` on its repository, as GitHub describes one), opened by
 * `pullAuthor` (default: the head repository's owner).
 */
function movedPullRequest<Example extends PullRequestExample>(
  example: Example,
  options: { repo: string; pullNumber: number; head?: PullRequestHeadOptions; baseRef?: string; title?: string; pullAuthor?: string }
): Example {
  const from = example.repository.full_name;
  const fromNumber = example.pull_request.number;
  const move = (value: unknown, repo: string) => {
    const escaped = repo.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const text = JSON.stringify(value)
      .replaceAll(`/${from}/`, `/${repo}/`)
      .replaceAll(`/${from}"`, `/${repo}"`)
      .replaceAll(`/${from}.git"`, `/${repo}.git"`)
      .replaceAll(`:${from}.git"`, `:${repo}.git"`)
      .replaceAll(`"${from}"`, `"${repo}"`)
      .replace(new RegExp(`(/${escaped}/(?:pulls|pull|issues))/${fromNumber}(?=["/#.])`, "g"), `$1/${options.pullNumber}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const [owner = ""] = options.repo.split("/");
  type Repository = IssueCommentExample["repository"];
  // GitHub's 2019 example predates `has_discussions`, which its webhook schema now requires of a pull request's repositories.
  const repository = (published: unknown, full: string) => {
    const [login = "", name = ""] = full.split("/");
    const moved = move(published, full) as Repository;
    return { ...moved, name, full_name: full, owner: renamed(moved.owner, login), has_discussions: moved.has_discussions ?? false };
  };
  const { repository: _repository, pull_request: _pull, ...rest } = example;
  const movedRest = move(rest, options.repo);
  const pull = move(example.pull_request, options.repo) as PullRequestExample["pull_request"];
  const headRepo = options.head?.repo ?? options.repo;
  const fork = headRepo.toLowerCase() !== options.repo.toLowerCase();
  const headRef = options.head?.ref ?? String(pull.head.ref);
  const headOwner = headRepo.split("/")[0]!;
  const baseRef = options.baseRef ?? String(pull.base.ref);
  const { has_discussions: _published, ...top } = repository(example.repository, options.repo);
  return {
    ...movedRest,
    pull_request: {
      ...pull,
      number: options.pullNumber,
      title: options.title ?? pull.title,
      user: (() => {
        const login = options.pullAuthor ?? headOwner;
        return { ...renamed(example.pull_request.user as GitHubUser, login), type: login.endsWith("[bot]") ? "Bot" : "User" };
      })(),
      head: {
        ...pull.head,
        label: `${headOwner}:${headRef}`,
        ref: headRef,
        sha: options.head?.sha ?? pull.head.sha,
        user: renamed(example.pull_request.head.user as GitHubUser, headOwner),
        repo: { ...repository(example.pull_request.head.repo, headRepo), fork }
      },
      base: {
        ...pull.base,
        label: `${owner}:${baseRef}`,
        ref: baseRef,
        user: renamed(example.pull_request.base.user as GitHubUser, owner),
        repo: repository(example.pull_request.base.repo, options.repo)
      }
    },
    repository: "has_discussions" in example.repository ? { ...top, has_discussions: _published } : top
  } as unknown as Example;
}

export type IssuesAction = "assigned" | "unassigned" | "labeled" | "unlabeled";

/** An account as a payload names it: a `[bot]` login is a Bot unless `type` says otherwise. */
export type AccountOptions = { login: string; id?: number; type?: string };
export type LabelOptions = { name: string; id?: number };

export type IssuesDeliveryOptions = {
  repo: string;
  issueNumber: number;
  action: IssuesAction;
  issueTitle?: string;
  issueBody?: string | null;
  /** Who opened the issue (default: the example's), and their association (OWNER). */
  opener?: AccountOptions & { association?: string };
  /** The issue's labels and assignees after the change (default: the label or assignee of the change, when it was added; else none). */
  labels?: LabelOptions[];
  assignees?: AccountOptions[];
  /** The assignee added or removed (assigned, unassigned; default: the App's bot agent-think[bot]). */
  assignee?: AccountOptions;
  /** The label added or removed (labeled, unlabeled; default agent-think). */
  label?: LabelOptions;
  /** Who made the change: the sender (default octocat). */
  login?: string;
  userId?: number;
  userType?: string;
  /** When the issue was opened and changed (default: now: the webhook app ignores a delivery over a day older). */
  createdAt?: string;
  updatedAt?: string;
  /** The stand-in's installation (default 1) when the example names none. */
  installationId?: number;
  github?: { web: string; api: string };
};

type IssuesExample = {
  action: string;
  issue: Record<string, unknown> & { user: GitHubUser; labels?: Record<string, unknown>[] };
  repository: IssueCommentExample["repository"];
  sender: GitHubUser;
  assignee?: GitHubUser | null;
  label?: Record<string, unknown>;
  [field: string]: unknown;
};

/** GitHub's github.com `issues.<action>` example: the first with an installation, as an App's deliveries have, else the first (the ingress tests pick it the same way). */
export function pickIssuesExample(definitions: unknown, action: IssuesAction): IssuesExample {
  const examples = ((definitions as Definitions).find((definition) => definition.name === "issues")?.examples ?? []).filter((payload) => payload.action === action);
  const example = examples.find((payload) => payload.installation !== undefined) ?? examples[0];
  if (!example) throw new Error(`@octokit/webhooks-examples no longer publishes an issues.${action} example`);
  return structuredClone(example) as IssuesExample;
}

/** The `issues.<action>` example read from node_modules: Node only. */
export function issuesExample(action: IssuesAction): IssuesExample {
  return pickIssuesExample(nodeExamples(), action);
}

/**
 * GitHub's `issues.<action>` example as a change to `repo`'s issue
 * `issueNumber`: the issue's URLs, number, title, body, opener, labels and
 * assignees, the assignee or label of the change, the sender, and dates
 * made now; the example's milestone and the rest are sent as published.
 */
export function issuesPayload(options: IssuesDeliveryOptions, example: IssuesExample = issuesExample(options.action)) {
  const payload = githubComIssuesPayload(options, example);
  return options.github ? rehosted(payload, options.github) : payload;
}

function githubComIssuesPayload(options: IssuesDeliveryOptions, example: IssuesExample) {
  const account = (given: AccountOptions) => author(example.issue.user, { login: given.login, ...(given.id === undefined ? {} : { userId: given.id }), ...(given.type === undefined ? {} : { userType: given.type }) });
  const repoUrl = `https://github.com/${options.repo}`;
  const api = `https://api.github.com/repos/${options.repo}`;
  const self = `${api}/issues/${options.issueNumber}`;
  const publishedLabel = example.label ?? example.issue.labels?.[0] ?? {};
  const label = (given: LabelOptions) => ({
    ...publishedLabel,
    id: given.id ?? Number(publishedLabel.id ?? 1),
    node_id: btoa(`010:Label${given.id ?? publishedLabel.id ?? 1}`),
    url: `${api}/labels/${encodeURIComponent(given.name)}`,
    name: given.name,
    default: false
  });
  const isAssignment = options.action === "assigned" || options.action === "unassigned";
  const changedAssignee = isAssignment ? (options.assignee ?? { login: "agent-think[bot]" }) : undefined;
  const changedLabel = isAssignment ? undefined : (options.label ?? { name: "agent-think" });
  const assignees = (options.assignees ?? (options.action === "assigned" && changedAssignee ? [changedAssignee] : [])).map(account);
  const labels = (options.labels ?? (options.action === "labeled" && changedLabel ? [changedLabel] : [])).map(label);
  const createdAt = options.createdAt ?? githubTime();
  const updatedAt = options.updatedAt ?? githubTime();
  const opener = options.opener ? account(options.opener) : example.issue.user;
  const sender = author(example.sender, options);
  const installation = (example as { installation?: Record<string, unknown> }).installation;
  const { assignee: _assignee, label: _label, ...rest } = example;
  return {
    ...rest,
    action: options.action,
    issue: {
      ...example.issue,
      url: self,
      repository_url: api,
      labels_url: `${self}/labels{/name}`,
      comments_url: `${self}/comments`,
      events_url: `${self}/events`,
      html_url: `${repoUrl}/issues/${options.issueNumber}`,
      number: options.issueNumber,
      title: options.issueTitle ?? `Issue ${options.issueNumber}`,
      body: options.issueBody === undefined ? example.issue.body : options.issueBody,
      user: opener,
      labels,
      assignee: assignees[0] ?? null,
      assignees,
      author_association: options.opener?.association ?? "OWNER",
      created_at: createdAt,
      updated_at: updatedAt
    },
    ...(changedAssignee ? { assignee: account(changedAssignee) } : {}),
    ...(changedLabel ? { label: label(changedLabel) } : {}),
    repository: repositoryAs(example.repository, options.repo),
    sender,
    installation: installation ? { ...installation, id: options.installationId ?? installation.id } : { id: options.installationId ?? 1, node_id: btoa(`033:Integration::Installation${options.installationId ?? 1}`) }
  };
}

export type IssuesPayload = ReturnType<typeof issuesPayload>;

export type CiEventName = "check_suite" | "workflow_run";

export type CiDeliveryOptions = {
  event: CiEventName;
  /** `owner/name`, and its id (GitHub names a check suite's repositories by id). */
  repo: string;
  repositoryId?: number;
  /** The pull request GitHub lists for the head; none when absent. */
  pullNumber?: number;
  headRef: string;
  headSha: string;
  baseRef?: string;
  /** GitHub's conclusion (`failure`, `timed_out`, `success`, ...); `failure` unless told. */
  conclusion?: string | null;
  /** The check suite's or the workflow run's id. */
  id?: number;
  /** The workflow's name (a workflow run), or the checks' App's slug (a check suite: `github-actions` unless told). */
  name?: string;
  appSlug?: string;
  /** When it completed; now unless told (the webhook app takes a delivery within 24 hours of it). */
  updatedAt?: string;
  installationId?: number;
  /** The head is in another repository (a fork): GitHub then lists no pull request for it, and a check suite names no branch. */
  fork?: { repo: string; id: number };
  sender?: string;
};

type CiExample = {
  action?: string;
  repository: Record<string, unknown> & { id: number; owner: object };
  sender: GitHubUser;
  installation?: Record<string, unknown>;
  check_suite?: Record<string, unknown> & { pull_requests: Record<string, unknown>[]; app: Record<string, unknown> };
  workflow_run?: Record<string, unknown> & { pull_requests: Record<string, unknown>[]; head_repository: Record<string, unknown> & { owner: object } };
  [field: string]: unknown;
};

/** GitHub's github.com `<event>.completed` example that names a pull request (the check suite's and workflow run's first such). */
export function pickCiExample(definitions: unknown, event: CiEventName): CiExample {
  const examples = ((definitions as Definitions).find((definition) => definition.name === event)?.examples ?? []) as CiExample[];
  const example = examples.find((payload) => payload.action === "completed" && (payload[event] as { pull_requests?: unknown[] } | undefined)?.pull_requests?.length);
  if (!example) throw new Error(`@octokit/webhooks-examples no longer publishes a ${event}.completed example naming a pull request`);
  return structuredClone(example);
}

/** The `<event>.completed` example read from node_modules: Node only. */
export function ciExample(event: CiEventName): CiExample {
  return pickCiExample(nodeExamples(), event);
}

/**
 * GitHub's `check_suite.completed` or `workflow_run.completed` example as a
 * run of `repo`'s CI on pull request `pullNumber`'s head: the repository
 * renamed (its id kept unless told), the suite's or run's id, head branch
 * and commit, conclusion and time, the pull request it lists (its head and
 * base by repository id, as GitHub lists them), a workflow run's head
 * repository, the sender and the installation; the rest as published.
 */
export function ciPayload(options: CiDeliveryOptions, example: CiExample = ciExample(options.event)) {
  const repository = { ...repositoryAs(example.repository, options.repo), id: options.repositoryId ?? example.repository.id };
  const api = `https://api.github.com/repos/${options.repo}`;
  const headRepo = options.fork?.repo ?? options.repo;
  const headRepoId = options.fork?.id ?? repository.id;
  const published = (options.event === "check_suite" ? example.check_suite : example.workflow_run)!;
  const listed = published.pull_requests[0] as Record<string, unknown> & { head: Record<string, unknown>; base: Record<string, unknown> };
  const pull = {
    ...listed,
    url: `${api}/pulls/${options.pullNumber ?? 0}`,
    number: options.pullNumber,
    head: { ...listed.head, ref: options.headRef, sha: options.headSha, repo: { id: headRepoId, url: `https://api.github.com/repos/${headRepo}`, name: headRepo.split("/")[1] } },
    base: { ...listed.base, ref: options.baseRef ?? "main", repo: { id: repository.id, url: api, name: repository.name } }
  };
  const pulls = options.fork || options.pullNumber === undefined ? [] : [pull];
  const id = options.id ?? Number(published.id);
  const conclusion = options.conclusion === undefined ? "failure" : options.conclusion;
  const updatedAt = options.updatedAt ?? githubTime();
  const sender = renamed(example.sender, options.sender ?? "octocat");
  const installation = { id: options.installationId ?? 1, node_id: btoa(`033:Integration::Installation${options.installationId ?? 1}`) };
  const { organization: _organization, ...rest } = example;
  if (options.event === "check_suite") {
    const suite = example.check_suite!;
    const slug = options.appSlug ?? "github-actions";
    return {
      ...rest,
      action: "completed",
      check_suite: {
        ...suite,
        id,
        node_id: btoa(`014:CheckSuite${id}`),
        head_branch: options.fork ? null : options.headRef,
        head_sha: options.headSha,
        after: options.headSha,
        status: "completed",
        conclusion,
        url: `${api}/check-suites/${id}`,
        check_runs_url: `${api}/check-suites/${id}/check-runs`,
        pull_requests: pulls,
        app: { ...suite.app, slug, name: slug === "github-actions" ? "GitHub Actions" : slug },
        updated_at: updatedAt
      },
      repository,
      sender,
      installation
    };
  }
  const run = example.workflow_run!;
  const [headOwner = "", headName = ""] = headRepo.split("/");
  return {
    ...rest,
    action: "completed",
    workflow_run: {
      ...run,
      id,
      name: options.name ?? run.name,
      head_branch: options.headRef,
      head_sha: options.headSha,
      status: "completed",
      conclusion,
      html_url: `https://github.com/${options.repo}/actions/runs/${id}`,
      url: `${api}/actions/runs/${id}`,
      jobs_url: `${api}/actions/runs/${id}/jobs`,
      logs_url: `${api}/actions/runs/${id}/logs`,
      check_suite_url: `${api}/check-suites/${String(run.check_suite_id)}`,
      cancel_url: `${api}/actions/runs/${id}/cancel`,
      rerun_url: `${api}/actions/runs/${id}/rerun`,
      artifacts_url: `${api}/actions/runs/${id}/artifacts`,
      pull_requests: pulls,
      head_repository: { ...run.head_repository, id: headRepoId, name: headName, full_name: headRepo, html_url: `https://github.com/${headRepo}`, owner: { ...run.head_repository.owner, login: headOwner, ...userUrls(headOwner) } },
      repository,
      updated_at: updatedAt
    },
    repository,
    sender,
    installation
  };
}

export type CiPayload = ReturnType<typeof ciPayload>;

/** GitHub's example repository, renamed to `repo` (`owner/name`) on github.com. */
function repositoryAs<Repository extends { owner: object }>(example: Repository, repo: string) {
  const [owner = "", name = ""] = repo.split("/");
  return { ...example, name, full_name: repo, html_url: `https://github.com/${repo}`, owner: { ...example.owner, login: owner, ...userUrls(owner) } };
}

function userUrls(login: string) {
  return { html_url: `https://github.com/${encodeURIComponent(login)}`, url: `https://api.github.com/users/${encodeURIComponent(login)}` };
}

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
