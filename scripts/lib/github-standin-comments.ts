/**
 * Comments on an issue's or a pull request's conversation: posted by the
 * caller on any issue number (422 when blank or over 65,536 characters),
 * listed in ascending id order, filtered by `since`, a page at a time, and
 * edited by id (`issues/update-comment`: the progress comment; 404 for an id
 * the repository does not have, 422 as a post for its body). A user's new
 * comment comes back with its event, for the webhook delivery.
 */

import type { StandinAccounts } from "./github-standin-accounts";
import { bodyTooLong, forgetRepository, isTooLong, notFound, numberKey, pageOf, validationFailed, type StandinAnswer, type StandinBasics, type StandinCall } from "./github-standin-answers";
import type { StandinIssues } from "./github-standin-issues";
import type { StandinPulls } from "./github-standin-pulls";

const COMMENT_DOCS_URL = "https://docs.github.com/rest/issues/comments#create-an-issue-comment";
const UPDATE_DOCS_URL = "https://docs.github.com/rest/issues/comments#update-an-issue-comment";

type Comment = Record<string, unknown> & { id: number; updated_at: string };

export class StandinComments {
  readonly #basics: StandinBasics;
  readonly #accounts: Pick<StandinAccounts, "association" | "author" | "user" | "userId">;
  readonly #issues: Pick<StandinIssues, "find">;
  readonly #pulls: Pick<StandinPulls, "find">;
  /** Each issue's (or pull request's) comments in the order they were posted, by `owner/repo#number` as the path spelled it. */
  readonly #comments = new Map<string, Comment[]>();

  constructor(
    basics: StandinBasics,
    accounts: Pick<StandinAccounts, "association" | "author" | "user" | "userId">,
    issues: Pick<StandinIssues, "find">,
    pulls: Pick<StandinPulls, "find">
  ) {
    this.#basics = basics;
    this.#accounts = accounts;
    this.#issues = issues;
    this.#pulls = pulls;
  }

  /** How many comments issue `number` of `repo` has. */
  count(repo: string, number: number): number {
    return this.#comments.get(numberKey(repo, number))?.length ?? 0;
  }

  post(call: StandinCall): StandinAnswer {
    const { owner, repo, issue_number } = call.params;
    const text = (call.body as { body: string }).body;
    if (text.trim() === "") return validationFailed("IssueComment", "missing_field", "body", "body cannot be blank", COMMENT_DOCS_URL);
    if (isTooLong(text)) return bodyTooLong("IssueComment", COMMENT_DOCS_URL);
    const id = this.#basics.nextId();
    const now = this.#basics.iso();
    const base = this.#basics.baseUrl();
    const author = this.#accounts.author(call);
    const number = Number(issue_number);
    const issue = this.#issues.find(`${owner}/${repo}`, number);
    const pull = this.#pulls.find(`${owner}/${repo}`, number);
    const fullName = issue?.repo ?? `${owner}/${repo}`;
    const association = this.#accounts.association(author, fullName);
    const comment: Comment = {
      id,
      node_id: `IC_standin${id}`,
      url: `${base}/repos/${owner}/${repo}/issues/comments/${id}`,
      html_url: `${base}/${owner}/${repo}/${pull ? "pull" : "issues"}/${issue_number}#issuecomment-${id}`,
      issue_url: `${base}/repos/${owner}/${repo}/issues/${issue_number}`,
      body: text,
      user: this.#accounts.user(author.login, author.type),
      created_at: now,
      updated_at: now,
      author_association: association
    };
    const key = commentsKey(call.params);
    this.#comments.set(key, [...(this.#comments.get(key) ?? []), comment]);
    if (issue) issue.updatedAt = now;
    const title = issue?.title ?? pull?.seed.title;
    return {
      status: 201,
      body: comment,
      ...(author.type === "User"
        ? {
            comment: {
              repo: fullName,
              issueNumber: number,
              ...(title === undefined ? {} : { issueTitle: title }),
              pullRequest: pull !== undefined && issue === undefined,
              commentId: id,
              body: text,
              login: author.login,
              userId: this.#accounts.userId(author.login),
              userType: author.type,
              association,
              createdAt: now
            }
          }
        : {})
    };
  }

  /** A comment's new body, by its id in the repository; its `updated_at` moves, so a `since` listing finds it. */
  update(call: StandinCall): StandinAnswer {
    const { owner, repo, comment_id } = call.params;
    const text = (call.body as { body: string }).body;
    if (text.trim() === "") return validationFailed("IssueComment", "missing_field", "body", "body cannot be blank", UPDATE_DOCS_URL);
    if (isTooLong(text)) return bodyTooLong("IssueComment", UPDATE_DOCS_URL);
    const prefix = `${owner}/${repo}#`.toLowerCase();
    const comment = [...this.#comments.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .flatMap(([, comments]) => comments)
      .find((candidate) => candidate.id === Number(comment_id));
    if (!comment) return notFound(UPDATE_DOCS_URL);
    comment.body = text;
    comment.updated_at = this.#basics.iso();
    return { status: 200, body: comment };
  }

  list(call: StandinCall): StandinAnswer {
    const since = call.query.get("since");
    const all = (this.#comments.get(commentsKey(call.params)) ?? []).filter((comment) => since === null || Date.parse(comment.updated_at) >= Date.parse(since));
    return pageOf(call, all, this.#basics.baseUrl());
  }

  clear(): void {
    this.#comments.clear();
  }

  /** Forgets `repo`'s comments (it was deleted and created again). */
  forget(repo: string): void {
    forgetRepository(this.#comments, repo);
  }
}

function commentsKey(params: Record<string, string>): string {
  return `${params.owner}/${params.repo}#${params.issue_number}`.toLowerCase();
}
