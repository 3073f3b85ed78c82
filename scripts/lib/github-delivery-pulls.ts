/**
 * A line comment in a pull request's diff (`pull_request_review_comment.created`:
 * its file, lines and hunk too) and a review (`pull_request_review.submitted`),
 * each GitHub's published example with the repository and pull request moved
 * to the case's, its head the base repository's own or a fork's.
 */
import { author, githubTime, nodeExamples, renamed, type Author, type Definitions, type ExampleRepository, type GitHubUser } from "./github-delivery-shared";

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
  repository: ExampleRepository;
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
  type Repository = ExampleRepository;
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
