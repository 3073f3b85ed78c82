/**
 * Reactions on comments and on an issue itself, by the caller: a repeat
 * answers the first one (200, a new one 201), an issue comment's are kept
 * apart from a pull request review comment's with the same id (and an
 * issue's from both), and an issue comment's list oldest
 * first, filtered by `content`, a page at a time.
 */

import type { StandinAccounts } from "./github-standin-accounts";
import { pageOf, type StandinAnswer, type StandinBasics, type StandinCall } from "./github-standin-answers";

type Reaction = Record<string, unknown> & { id: number; content: string };

export class StandinReactions {
  readonly #basics: StandinBasics;
  readonly #accounts: Pick<StandinAccounts, "author" | "user">;
  /** Each reaction, by the comment, its content and who left it. */
  readonly #reactions = new Map<string, Reaction>();
  /** A comment's reactions in the order they were left, by comment. */
  readonly #reactionsOn = new Map<string, Reaction[]>();

  constructor(basics: StandinBasics, accounts: Pick<StandinAccounts, "author" | "user">) {
    this.#basics = basics;
    this.#accounts = accounts;
  }

  /** A reaction on a comment (`comment_id`) or, `on: "issue"`, on the issue or pull request `issue_number` itself. */
  react(call: StandinCall, on: "issue-comment" | "review-comment" | "issue"): StandinAnswer {
    const { owner, repo } = call.params;
    const comment_id = on === "issue" ? call.params.issue_number : call.params.comment_id;
    const content = (call.body as { content: string }).content;
    const author = this.#accounts.author(call);
    // Issue comments and review comments are separate tables on GitHub: the same id names two comments.
    const onComment = `${on}:${owner}/${repo}#${comment_id}`.toLowerCase();
    const key = `${onComment}:${content}:${author.login}`.toLowerCase();
    const existing = this.#reactions.get(key);
    // GitHub answers 200 with the reaction the user already left, 201 for a new one.
    if (existing) return { status: 200, body: existing };
    const id = this.#basics.nextId();
    const reaction: Reaction = { id, node_id: `REA_standin${id}`, user: this.#accounts.user(author.login, author.type), content, created_at: this.#basics.iso() };
    this.#reactions.set(key, reaction);
    this.#reactionsOn.set(onComment, [...(this.#reactionsOn.get(onComment) ?? []), reaction]);
    return { status: 201, body: reaction };
  }

  /** An issue comment's reactions, oldest first, filtered by `content`, a page at a time. Any comment id is answered: an unknown one has none. */
  list(call: StandinCall): StandinAnswer {
    const { owner, repo, comment_id } = call.params;
    const content = call.query.get("content");
    const all = (this.#reactionsOn.get(`issue-comment:${owner}/${repo}#${comment_id}`.toLowerCase()) ?? []).filter((reaction) => content === null || reaction.content === content);
    return pageOf(call, all, this.#basics.baseUrl());
  }

  clear(): void {
    this.#reactions.clear();
    this.#reactionsOn.clear();
  }
}
