/**
 * Pull requests, seeded by a test (`seedPull`) or opened over the API
 * (`pulls/create`: from a branch of the repository itself, by the caller),
 * answered by get, list and update in GitHub's full and simple shapes; any
 * other number is GitHub's 404. Forks' heads are seeded only.
 */

import { createHash } from "node:crypto";
import type { Author, StandinAccounts } from "./github-standin-accounts";
import type { PullAsIssue } from "./github-standin-issues";
import { bodyTooLong, forgetRepository, isTooLong, notFound, notModelled, numberKey, pageOf, validationError, type StandinAnswer, type StandinBasics, type StandinCall } from "./github-standin-answers";
import type { StandinRepos } from "./github-standin-repos";

const PULLS_DOCS_URL = "https://docs.github.com/rest/pulls/pulls";
/** Fields of pulls/create and pulls/update the stand-in does not model: a 501 when given. */
const UNMODELLED_PULL_FIELDS = ["issue", "maintainer_can_modify"];
/** Fields of GitHub's full pull-request the list (pull-request-simple) leaves out. */
const FULL_PULL_ONLY = ["merged", "mergeable", "rebaseable", "mergeable_state", "merged_by", "comments", "review_comments", "maintainer_can_modify", "commits", "additions", "deletions", "changed_files"];

/** A pull request as a test seeds it (`POST /_standin/pulls`, `seedPull`); everything but `repo` and `number` has a default. */
export type PullSeed = {
  /** The base repository, `owner/name`. */
  repo: string;
  number: number;
  /** The head: its repository (default: `repo`; another one makes a fork), branch (`feature-<number>`) and commit. */
  head?: { repo?: string; ref?: string; sha?: string };
  /** The base branch (`main`) and its commit. */
  base?: { ref?: string; sha?: string };
  /** Who opened it (octocat, a User; a `[bot]` login is a Bot). */
  user?: { login: string; type?: "User" | "Bot" };
  state?: "open" | "closed";
  title?: string;
  body?: string | null;
  draft?: boolean;
};

/** A pull request, seeded by a test or created over the API (pulls/create), with its defaults filled in. */
export type StoredPull = {
  /** A created one is what was posted: `clear()` forgets it, as it forgets issues; a seeded one stays. */
  origin: "seeded" | "created";
  seed: {
    repo: string;
    number: number;
    head: { repo: string; ref: string; sha: string };
    base: { ref: string; sha: string };
    user: Author;
    state: "open" | "closed";
    title: string;
    body: string | null;
    draft: boolean;
  };
  id: number;
  /** Set for a created pull request (from the caller's role, as an issue's); a seeded one's follows from its author and head. */
  association?: string;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
};

export class StandinPulls {
  readonly #basics: StandinBasics;
  readonly #accounts: Pick<StandinAccounts, "association" | "author" | "user">;
  readonly #repos: Pick<StandinRepos, "defaultBranch" | "repository">;
  /** The number a new pull request takes: shared with the repository's issues. */
  readonly #nextNumber: (repo: string) => number;
  readonly #pulls = new Map<string, StoredPull>();

  constructor(
    basics: StandinBasics,
    accounts: Pick<StandinAccounts, "association" | "author" | "user">,
    repos: Pick<StandinRepos, "defaultBranch" | "repository">,
    nextNumber: (repo: string) => number
  ) {
    this.#basics = basics;
    this.#accounts = accounts;
    this.#repos = repos;
    this.#nextNumber = nextNumber;
  }

  /** Pull request `number` as the issues API answers for it (issues/get). */
  asIssue(repo: string, number: number): PullAsIssue | undefined {
    const pull = this.find(repo, number);
    if (!pull) return undefined;
    const { seed } = pull;
    return {
      repo: seed.repo,
      number: seed.number,
      id: pull.id,
      title: seed.title,
      body: seed.body,
      state: seed.state,
      user: seed.user,
      association: this.#association(pull),
      createdAt: pull.createdAt,
      updatedAt: pull.updatedAt,
      closedAt: pull.closedAt
    };
  }

  find(repo: string, number: number): StoredPull | undefined {
    return this.#pulls.get(numberKey(repo, number));
  }

  /** The numbers of `repo`'s open pull requests whose head is `ref` at `sha` in `repo` itself (what a check suite lists). */
  onHead(repo: string, ref: string, sha: string): number[] {
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    return [...this.#pulls.values()]
      .filter(({ seed }) => same(seed.repo, repo) && same(seed.head.repo, repo) && seed.head.ref === ref && seed.head.sha === sha && seed.state === "open")
      .map(({ seed }) => seed.number)
      .sort((a, b) => a - b);
  }

  /** Forgets the pull requests created over the API; seeded ones stay. */
  clear(): void {
    for (const [key, pull] of this.#pulls) if (pull.origin === "created") this.#pulls.delete(key);
  }

  /** Forgets `repo`'s pull requests, seeded ones too (it was deleted and created again). */
  forget(repo: string): void {
    forgetRepository(this.#pulls, repo);
  }

  /** Adds or replaces pull request `number` of `repo`; answers it as `GET .../pulls/{number}` would. */
  seed(seed: PullSeed): Record<string, unknown> {
    const key = numberKey(seed.repo, seed.number);
    const existing = this.#pulls.get(key);
    const state = seed.state ?? "open";
    const createdAt = existing?.createdAt ?? this.#basics.iso();
    this.#pulls.set(key, {
      origin: "seeded",
      seed: {
        repo: seed.repo,
        number: seed.number,
        head: { repo: seed.head?.repo ?? seed.repo, ref: seed.head?.ref ?? `feature-${seed.number}`, sha: seed.head?.sha ?? fakeSha(`${seed.repo}#${seed.number}:head`) },
        base: { ref: seed.base?.ref ?? this.#repos.defaultBranch(seed.repo), sha: seed.base?.sha ?? fakeSha(`${seed.repo}#${seed.number}:base`) },
        user: { login: seed.user?.login ?? "octocat", type: seed.user?.type ?? ((seed.user?.login ?? "").endsWith("[bot]") ? "Bot" : "User") },
        state,
        title: seed.title ?? `Pull request ${seed.number}`,
        body: seed.body ?? null,
        draft: seed.draft ?? false
      },
      id: existing?.id ?? this.#basics.nextId(),
      createdAt,
      updatedAt: createdAt,
      closedAt: state === "closed" ? createdAt : null
    });
    return this.#pull(this.#pulls.get(key)!);
  }

  get(call: StandinCall): StandinAnswer {
    const pull = this.#pullOf(call);
    if (!pull) return notFound(`${PULLS_DOCS_URL}#get-a-pull-request`);
    return { status: 200, body: this.#pull(pull) };
  }

  /**
   * A pull request from a branch of the repository itself, by the caller,
   * numbered with the repository's issues. GitHub's 422s: an open pull
   * request with the same head and base already exists; a `head` (or
   * `head_repo`) in another repository, which would be a fork's and is not
   * modelled, is a head it cannot find.
   */
  create(call: StandinCall): StandinAnswer {
    const fullName = `${call.params.owner}/${call.params.repo}`;
    const owner = call.params.owner!;
    const asked = call.body as { head: string; base: string; title?: string; body?: string; draft?: boolean; head_repo?: string } & Record<string, unknown>;
    const docs = `${PULLS_DOCS_URL}#create-a-pull-request`;
    const unmodelled = unmodelledPullFields("pulls/create", asked);
    if (unmodelled) return unmodelled;
    const colon = asked.head.indexOf(":");
    const headOwner = colon === -1 ? owner : asked.head.slice(0, colon);
    const headRef = colon === -1 ? asked.head : asked.head.slice(colon + 1);
    const otherRepo = asked.head_repo !== undefined && asked.head_repo.toLowerCase() !== fullName.toLowerCase();
    if (headOwner.toLowerCase() !== owner.toLowerCase() || otherRepo || headRef === "") {
      return validationError({ resource: "PullRequest", field: "head", code: "invalid" }, docs, `head "${asked.head}" is not a branch of ${fullName} (pull requests from forks are not modelled)`);
    }
    if (asked.title === undefined || asked.title.trim() === "") return validationError({ resource: "PullRequest", field: "title", code: "missing_field" }, docs, "title cannot be blank");
    if (asked.body !== undefined && isTooLong(asked.body)) return bodyTooLong("PullRequest", docs);
    const open = [...this.#pulls.values()].find(
      ({ seed }) => seed.state === "open" && seed.repo.toLowerCase() === fullName.toLowerCase() && seed.head.repo.toLowerCase() === fullName.toLowerCase() && seed.head.ref === headRef && seed.base.ref === asked.base
    );
    if (open) return validationError({ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${owner}:${headRef}.` }, docs);
    const number = this.#nextNumber(fullName);
    const author = this.#accounts.author(call);
    const now = this.#basics.iso();
    const pull: StoredPull = {
      origin: "created",
      seed: {
        repo: fullName,
        number,
        head: { repo: fullName, ref: headRef, sha: fakeSha(`${fullName}#${number}:head`) },
        base: { ref: asked.base, sha: fakeSha(`${fullName}#${number}:base`) },
        user: author,
        state: "open",
        title: asked.title,
        body: asked.body ?? null,
        draft: asked.draft ?? false
      },
      id: this.#basics.nextId(),
      association: this.#accounts.association(author, fullName),
      createdAt: now,
      updatedAt: now,
      closedAt: null
    };
    this.#pulls.set(numberKey(fullName, number), pull);
    const body = this.#pull(pull);
    return { status: 201, body, headers: { location: String(body.url) } };
  }

  /** title, body, state (closing sets `closed_at`, reopening clears it) and base, of a seeded or created pull request; 404 for any other number. */
  update(call: StandinCall): StandinAnswer {
    const pull = this.#pullOf(call);
    const docs = `${PULLS_DOCS_URL}#update-a-pull-request`;
    if (!pull) return notFound(docs);
    const change = (call.body ?? {}) as { title?: string; body?: string; state?: "open" | "closed"; base?: string } & Record<string, unknown>;
    const unmodelled = unmodelledPullFields("pulls/update", change);
    if (unmodelled) return unmodelled;
    if (change.title !== undefined && change.title.trim() === "") return validationError({ resource: "PullRequest", field: "title", code: "missing_field" }, docs, "title cannot be blank");
    if (change.body !== undefined && isTooLong(change.body)) return bodyTooLong("PullRequest", docs);
    const now = this.#basics.iso();
    if (change.title !== undefined) pull.seed.title = change.title;
    if (change.body !== undefined) pull.seed.body = change.body;
    if (change.base !== undefined) pull.seed.base.ref = change.base;
    if (change.state === "closed" && pull.seed.state !== "closed") pull.closedAt = now;
    if (change.state === "open") pull.closedAt = null;
    if (change.state !== undefined) pull.seed.state = change.state;
    pull.updatedAt = now;
    return { status: 200, body: this.#pull(pull) };
  }

  /** GitHub's list: `state` (open), `head` as `owner:branch` (without the owner GitHub ignores it), `base`; newest first by default. */
  list(call: StandinCall): StandinAnswer {
    const repo = `${call.params.owner}/${call.params.repo}`.toLowerCase();
    const state = call.query.get("state") ?? "open";
    const head = call.query.get("head");
    const [headOwner, headRef] = head !== null && head.includes(":") ? [head.slice(0, head.indexOf(":")), head.slice(head.indexOf(":") + 1)] : [null, null];
    const base = call.query.get("base");
    const ascending = (call.query.get("direction") ?? ((call.query.get("sort") ?? "created") === "created" ? "desc" : "asc")) === "asc";
    const all = [...this.#pulls.values()]
      .filter(({ seed }) => seed.repo.toLowerCase() === repo)
      .filter(({ seed }) => state === "all" || seed.state === state)
      .filter(({ seed }) => headOwner === null || (seed.head.repo.split("/")[0]!.toLowerCase() === headOwner.toLowerCase() && seed.head.ref === headRef))
      .filter(({ seed }) => base === null || seed.base.ref === base)
      .sort((a, b) => (ascending ? a.id - b.id : b.id - a.id));
    return pageOf(call, all, this.#basics.baseUrl(), (pull) => {
      const simple = this.#pull(pull);
      for (const field of FULL_PULL_ONLY) delete simple[field];
      return simple;
    });
  }

  /** GitHub's full pull-request, with every required field. */
  #pull({ seed, id, association, createdAt, updatedAt, closedAt }: StoredPull): Record<string, unknown> {
    const base = this.#basics.baseUrl();
    const api = `${base}/repos/${seed.repo}`;
    const web = `${base}/${seed.repo}/pull/${seed.number}`;
    const headOwner = seed.head.repo.split("/")[0]!;
    const baseOwner = seed.repo.split("/")[0]!;
    const fork = seed.head.repo.toLowerCase() !== seed.repo.toLowerCase();
    return {
      url: `${api}/pulls/${seed.number}`,
      id,
      node_id: `PR_standin${id}`,
      html_url: web,
      diff_url: `${web}.diff`,
      patch_url: `${web}.patch`,
      issue_url: `${api}/issues/${seed.number}`,
      commits_url: `${api}/pulls/${seed.number}/commits`,
      review_comments_url: `${api}/pulls/${seed.number}/comments`,
      review_comment_url: `${api}/pulls/comments{/number}`,
      comments_url: `${api}/issues/${seed.number}/comments`,
      statuses_url: `${api}/statuses/${seed.head.sha}`,
      number: seed.number,
      state: seed.state,
      locked: false,
      title: seed.title,
      user: this.#accounts.user(seed.user.login, seed.user.type),
      body: seed.body,
      labels: [],
      milestone: null,
      active_lock_reason: null,
      created_at: createdAt,
      updated_at: updatedAt,
      closed_at: closedAt,
      merged_at: null,
      merge_commit_sha: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      head: { label: `${headOwner}:${seed.head.ref}`, ref: seed.head.ref, sha: seed.head.sha, user: this.#accounts.user(headOwner, "User"), repo: this.#repos.repository(seed.head.repo, fork) },
      base: { label: `${baseOwner}:${seed.base.ref}`, ref: seed.base.ref, sha: seed.base.sha, user: this.#accounts.user(baseOwner, "Organization"), repo: this.#repos.repository(seed.repo, false) },
      _links: {
        self: { href: `${api}/pulls/${seed.number}` },
        html: { href: web },
        issue: { href: `${api}/issues/${seed.number}` },
        comments: { href: `${api}/issues/${seed.number}/comments` },
        review_comments: { href: `${api}/pulls/${seed.number}/comments` },
        review_comment: { href: `${api}/pulls/comments{/number}` },
        commits: { href: `${api}/pulls/${seed.number}/commits` },
        statuses: { href: `${api}/statuses/${seed.head.sha}` }
      },
      author_association: this.#association({ seed, association }),
      auto_merge: null,
      draft: seed.draft,
      merged: false,
      mergeable: null,
      rebaseable: null,
      mergeable_state: "unknown",
      merged_by: null,
      comments: 0,
      review_comments: 0,
      maintainer_can_modify: fork,
      commits: 1,
      additions: 0,
      deletions: 0,
      changed_files: 0
    };
  }

  /** A created pull request's association is its author's role; a seeded one's follows from its author and head. */
  #association({ seed, association }: Pick<StoredPull, "seed" | "association">): string {
    const fork = seed.head.repo.toLowerCase() !== seed.repo.toLowerCase();
    return association ?? (seed.user.login.toLowerCase() === seed.repo.split("/")[0]!.toLowerCase() ? "OWNER" : fork ? "CONTRIBUTOR" : "MEMBER");
  }

  #pullOf(call: StandinCall): StoredPull | undefined {
    return this.find(`${call.params.owner}/${call.params.repo}`, Number(call.params.pull_number));
  }
}

/** A 501 refusal naming the fields of a pull request's create or update the stand-in does not model. */
function unmodelledPullFields(operation: string, body: Record<string, unknown>): StandinAnswer | null {
  const fields = UNMODELLED_PULL_FIELDS.filter((field) => body[field] !== undefined);
  if (fields.length === 0) return null;
  return notModelled(`The GitHub stand-in does not model a pull request's ${fields.join(", ")} (${operation})`, PULLS_DOCS_URL);
}

/** A stable made-up commit id. */
function fakeSha(seed: string): string {
  return createHash("sha1").update(seed).digest("hex");
}
