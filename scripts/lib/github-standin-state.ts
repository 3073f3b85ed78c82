/**
 * What the local GitHub stand-in remembers and answers, per operation of
 * GitHub's description, for the calls agent-think makes: reactions on a
 * comment, an issue's comments (posted and listed), the App itself
 * (`GET /app`: its slug is `botLogin` without `[bot]`), its installation and
 * installation tokens (minted, and revoked: `DELETE /installation/token`
 * remembers the token it carries, which github-standin.ts then answers 401
 * "Bad credentials"; no token is GitHub's 401), a repository (`repos/get`:
 * any one, public with default branch `main` unless `seedRepo` says
 * otherwise), a user (`GET /users/{username}`: the App's bot is a
 * Bot with the fixed id STANDIN_BOT_USER_ID, any other `[bot]` login a Bot,
 * anyone else a User; no login is unknown), and a collaborator's
 * permission. Answers are shaped by the description's response schemas
 * (the required fields, with made-up values where nothing depends on them).
 *
 * Also what GitHub does beyond its description where agent-think depends on
 * it: a repeated reaction answers 200 with the first one (a new one 201);
 * a blank comment, or one over 65,536 characters, is a 422; comments list
 * in ascending id order, filtered by `since`, `per_page` (at most 100) at a
 * time with a `Link` header. It does not know which issues, comments or
 * accounts exist: a reaction on any comment id (an issue comment's or a
 * pull request review comment's, kept apart), a comment on any issue, and
 * a lookup of any login are answered.
 *
 * Pull requests exist once a test seeds them (`seedPull`) or the caller
 * opens one (`pulls/create`: from a branch of the repository itself, by
 * the caller, numbered with the repository's issues; GitHub's 422 when an
 * open pull request with that head and base exists, or for a head in
 * another repository, a fork's, which is not modelled). `pulls/get`, the
 * list (`state`, `head` as `owner:branch`, `base`) and `pulls/update`
 * (title, body, state, base) answer both kinds. Files exist once seeded
 * (`seedFile`): `GET /repos/{owner}/{repo}/contents/{path}` answers them
 * (raw text for `Accept: application/vnd.github.raw+json`, else GitHub's
 * file object with base64 content). Any other pull request or file is
 * GitHub's 404.
 *
 * Issues exist once created over the API (`issues/create`, numbered per
 * repository and skipping pull requests' numbers): `issues/get`,
 * `issues/update` and `issues/add-labels` answer them (labels are created
 * on the repository on first use), and 404 any other number. Comments on
 * any issue number are still taken.
 *
 * Who acts is the call's `caller`: a user (a user's token) authors their
 * own comments, issues, pull requests and reactions, with an
 * author_association from their role (owner of the repository or admin
 * OWNER, maintain or write MEMBER, triage or read CONTRIBUTOR, none NONE);
 * anyone else acts as the App's bot (NONE). A user's new comment comes
 * back with its `comment` event, for the webhook delivery
 * github-standin.ts sends.
 *
 * Used by github-standin.ts, which has already matched and validated the
 * request against the description; this module trusts its parameters.
 */

import { createHash } from "node:crypto";

export type RoleName = "admin" | "maintain" | "write" | "triage" | "read" | "none";
export const ROLE_NAMES: readonly RoleName[] = ["admin", "maintain", "write", "triage", "read", "none"];

export type StandinCall = {
  operationId: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  /** The path asked, without the query (for `Link` headers). */
  path: string;
  /** The request's `Accept` header (the contents API answers raw text for GitHub's raw media type). */
  accept?: string;
  /** Who is calling, from the Authorization header (github-standin.ts); the App's bot when absent. */
  caller?: StandinCaller;
  /** The bearer token itself, for the one operation that acts on it: revoking it (`DELETE /installation/token`). */
  token?: string;
};

/**
 * Who a request is from. No token (or an empty one), the App's JWT and an
 * installation token act as the App's bot; a user's token (`ghp_`,
 * `github_pat_`, `gho_`, `ghu_`) as the user `login`.
 */
export type StandinCaller = { kind: "anonymous" } | { kind: "app" } | { kind: "installation" } | { kind: "user"; login: string };

/** A comment a user posted: what GitHub's `issue_comment.created` delivery names (github-standin.ts sends it). */
export type CommentEvent = {
  repo: string;
  issueNumber: number;
  /** The issue's title when the stand-in has it (a created issue, a seeded pull request). */
  issueTitle?: string;
  /** The number is a seeded pull request's: a comment on its conversation. */
  pullRequest: boolean;
  commentId: number;
  body: string;
  login: string;
  userId: number;
  userType: "User" | "Bot";
  association: string;
  createdAt: string;
};

/** `body` is sent as JSON; `raw`, when set, as the text it is (with `headers`' content-type). */
export type StandinAnswer = {
  status: number;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  refusal?: string;
  /** A user's new comment, for the webhook delivery sent after the answer. */
  comment?: CommentEvent;
};

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

/** A repository's settings as a test seeds them (`POST /_standin/repos`, `seedRepo`); an unseeded repository is public with default branch `main`. */
export type RepoSeed = { repo: string; defaultBranch?: string; private?: boolean };

/** A pull request, seeded by a test or created over the API (pulls/create), with its defaults filled in. */
type StoredPull = {
  /** A created one is what was posted: `clear()` forgets it, as it forgets issues; a seeded one stays. */
  origin: "seeded" | "created";
  seed: {
    repo: string;
    number: number;
    head: { repo: string; ref: string; sha: string };
    base: { ref: string; sha: string };
    user: { login: string; type: "User" | "Bot" };
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

/** A file as a test seeds it (`POST /_standin/files`, `seedFile`). Without `ref` it is on every ref a seed for that ref does not replace. */
export type FileSeed = { repo: string; path: string; ref?: string; content: string };

/** GitHub's media types that ask the contents API for the file itself. */
const RAW_MEDIA_TYPE = /application\/vnd\.github(?:\.v3)?\.raw(?:\+json)?(?:\s*[;,]|\s*$)/i;
const CONTENTS_DOCS_URL = "https://docs.github.com/rest/repos/contents#get-repository-content";
const ISSUES_DOCS_URL = "https://docs.github.com/rest/issues/issues";
const USER_DOCS_URL = "https://docs.github.com/rest/users/users#get-the-authenticated-user";
/** Fields of issues/create and issues/update the stand-in does not model: taken when empty (null, []), else a 501. */
const UNMODELLED_ISSUE_FIELDS = ["assignee", "assignees", "milestone", "issue_field_values", "type"];
const PULLS_DOCS_URL = "https://docs.github.com/rest/pulls/pulls";
const REPOS_DOCS_URL = "https://docs.github.com/rest/repos/repos#get-a-repository";
const REVOKE_DOCS_URL = "https://docs.github.com/rest/apps/installations#revoke-an-installation-access-token";
/** Fields of pulls/create and pulls/update the stand-in does not model: a 501 when given. */
const UNMODELLED_PULL_FIELDS = ["issue", "maintainer_can_modify"];
/** Fields of GitHub's full pull-request the list (pull-request-simple) leaves out. */
const FULL_PULL_ONLY = ["merged", "mergeable", "rebaseable", "mergeable_state", "merged_by", "comments", "review_comments", "maintainer_can_modify", "commits", "additions", "deletions", "changed_files"];

export type StandinStateOptions = {
  /** Where the stand-in listens (known once it does), for the URLs in its answers. */
  baseUrl: () => string;
  botLogin: string;
  /** Role per login, case-insensitive; everyone else has `defaultRole`. */
  permissions: Record<string, RoleName>;
  defaultRole: RoleName;
  tokenLifetimeMs: number;
  now: () => number;
};

/** The App's bot user's id, the same in every answer that names the bot (its comments, reactions, `GET /users`). */
export const STANDIN_BOT_USER_ID = 190_000_001;
/** The App's id in `GET /app` and its installation's `app_id`. */
export const STANDIN_APP_ID = 1;

/** GitHub's limit on an issue comment's body, in characters. */
export const MAX_COMMENT_CHARS = 65_536;
const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;

type Comment = Record<string, unknown> & { id: number; updated_at: string };
type Reaction = Record<string, unknown> & { id: number; content: string };
type Author = { login: string; type: "User" | "Bot" };

/** An issue created over the API (issues/create). */
type Issue = {
  /** `owner/name` as first spelled. */
  repo: string;
  number: number;
  id: number;
  title: string;
  body: string | null;
  /** Label names, as the repository's labels spell them. */
  labels: string[];
  state: "open" | "closed";
  stateReason: string | null;
  user: Author;
  association: string;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  closedBy: Author | null;
};

/** A repository's label, created the first time an issue is given it (as GitHub does). */
type Label = { id: number; name: string };

export class GitHubStandinState {
  readonly #options: StandinStateOptions;
  readonly #comments = new Map<string, Comment[]>();
  readonly #reactions = new Map<string, Reaction>();
  /** An issue comment's reactions in the order they were left, by comment. */
  readonly #reactionsOn = new Map<string, Reaction[]>();
  readonly #issues = new Map<string, Issue>();
  readonly #labels = new Map<string, Label>();
  readonly #pulls = new Map<string, StoredPull>();
  /** Repository settings a test seeded, by lowercased `owner/name`. */
  readonly #repos = new Map<string, { defaultBranch: string; private: boolean }>();
  readonly #files = new Map<string, string>();
  readonly #roles = new Map<string, RoleName>();
  /** Tokens minted here, with when they stop working. */
  readonly #tokens = new Map<string, number>();
  /** Tokens revoked over the API (any token, minted here or not), in the order they were revoked. */
  readonly #revoked = new Set<string>();
  readonly #userIds = new Map<string, number>();
  #nextId = 1000;

  constructor(options: StandinStateOptions) {
    this.#options = options;
    for (const [login, role] of Object.entries(options.permissions)) this.#roles.set(login.toLowerCase(), role);
  }

  /** The answer to a valid request; null when the stand-in does not implement the operation. */
  answer(call: StandinCall): StandinAnswer | null {
    switch (call.operationId) {
      case "reactions/create-for-issue-comment":
        return this.#react(call, "issue-comment");
      case "reactions/create-for-pull-request-review-comment":
        return this.#react(call, "review-comment");
      case "pulls/get":
        return this.#getPull(call);
      case "pulls/list":
        return this.#listPulls(call);
      case "pulls/create":
        return this.#createPull(call);
      case "pulls/update":
        return this.#updatePull(call);
      case "repos/get":
        return { status: 200, body: this.#fullRepository(`${call.params.owner}/${call.params.repo}`) };
      case "repos/get-content":
        return this.#getContent(call);
      case "reactions/list-for-issue-comment":
        return this.#listReactions(call);
      case "issues/create":
        return this.#createIssue(call);
      case "issues/get":
        return this.#getIssue(call);
      case "issues/update":
        return this.#updateIssue(call);
      case "issues/add-labels":
        return this.#addLabels(call);
      case "users/get-authenticated":
        return this.#authenticatedUser(call.caller ?? { kind: "anonymous" });
      case "issues/create-comment":
        return this.#comment(call);
      case "issues/list-comments":
        return this.#listComments(call);
      case "apps/get-authenticated":
        return { status: 200, body: this.#app() };
      case "users/get-by-username":
        return { status: 200, body: this.#publicUser(call.params.username!) };
      case "apps/get-repo-installation":
        return { status: 200, body: this.#installation(call.params.owner!) };
      case "apps/create-installation-access-token":
        return this.#mint(call);
      case "apps/revoke-installation-access-token":
        return this.#revoke(call);
      case "repos/get-collaborator-permission-level":
        return this.#permission(call.params.username!);
      default:
        return null;
    }
  }

  setRole(login: string, role: RoleName): void {
    this.#roles.set(login.toLowerCase(), role);
  }

  /** True for a token minted here whose lifetime is over, or one marked expired. */
  isExpired(token: string): boolean {
    const expiresAt = this.#tokens.get(token);
    return expiresAt !== undefined && expiresAt <= this.#options.now();
  }

  /** True for a token revoked over the API (`DELETE /installation/token`). */
  isRevoked(token: string): boolean {
    return this.#revoked.has(token);
  }

  /** The tokens revoked so far, in the order they were revoked. */
  revoked(): string[] {
    return [...this.#revoked];
  }

  /** Marks `token` expired, or every token minted so far. */
  expire(token?: string): void {
    const past = this.#options.now() - 1;
    if (token !== undefined) this.#tokens.set(token, past);
    else for (const minted of this.#tokens.keys()) this.#tokens.set(minted, past);
  }

  /** Forgets issues, created pull requests, labels, comments and reactions: what was posted (roles, tokens, revocations and seeded repositories, pull requests and files stay). */
  clear(): void {
    for (const [key, pull] of this.#pulls) if (pull.origin === "created") this.#pulls.delete(key);
    this.#comments.clear();
    this.#reactions.clear();
    this.#reactionsOn.clear();
    this.#issues.clear();
    this.#labels.clear();
  }

  /** Adds or replaces pull request `number` of `repo`; answers it as `GET .../pulls/{number}` would. */
  seedPull(seed: PullSeed): Record<string, unknown> {
    const key = pullKey(seed.repo, seed.number);
    const existing = this.#pulls.get(key);
    const state = seed.state ?? "open";
    const createdAt = existing?.createdAt ?? this.#iso();
    this.#pulls.set(key, {
      origin: "seeded",
      seed: {
        repo: seed.repo,
        number: seed.number,
        head: { repo: seed.head?.repo ?? seed.repo, ref: seed.head?.ref ?? `feature-${seed.number}`, sha: seed.head?.sha ?? fakeSha(`${seed.repo}#${seed.number}:head`) },
        base: { ref: seed.base?.ref ?? this.#defaultBranch(seed.repo), sha: seed.base?.sha ?? fakeSha(`${seed.repo}#${seed.number}:base`) },
        user: { login: seed.user?.login ?? "octocat", type: seed.user?.type ?? ((seed.user?.login ?? "").endsWith("[bot]") ? "Bot" : "User") },
        state,
        title: seed.title ?? `Pull request ${seed.number}`,
        body: seed.body ?? null,
        draft: seed.draft ?? false
      },
      id: existing?.id ?? this.#id(),
      createdAt,
      updatedAt: createdAt,
      closedAt: state === "closed" ? createdAt : null
    });
    return this.#pull(this.#pulls.get(key)!);
  }

  /** Sets `repo`'s default branch (`main`) and visibility (public); answers it as `GET /repos/{owner}/{repo}` would. */
  seedRepo(seed: RepoSeed): Record<string, unknown> {
    this.#repos.set(seed.repo.toLowerCase(), { defaultBranch: seed.defaultBranch ?? "main", private: seed.private ?? false });
    return this.#fullRepository(seed.repo);
  }

  /** Adds or replaces a file of `repo` at `path` (on `ref`, or on every ref). */
  seedFile(seed: FileSeed): void {
    this.#files.set(fileKey(seed.repo, seed.ref, seed.path), seed.content);
  }

  #react(call: StandinCall, on: "issue-comment" | "review-comment"): StandinAnswer {
    const { owner, repo, comment_id } = call.params;
    const content = (call.body as { content: string }).content;
    const author = this.#author(call);
    // Issue comments and review comments are separate tables on GitHub: the same id names two comments.
    const onComment = `${on}:${owner}/${repo}#${comment_id}`.toLowerCase();
    const key = `${onComment}:${content}:${author.login}`.toLowerCase();
    const existing = this.#reactions.get(key);
    // GitHub answers 200 with the reaction the user already left, 201 for a new one.
    if (existing) return { status: 200, body: existing };
    const id = this.#id();
    const reaction: Reaction = { id, node_id: `REA_standin${id}`, user: this.#user(author.login, author.type), content, created_at: this.#iso() };
    this.#reactions.set(key, reaction);
    this.#reactionsOn.set(onComment, [...(this.#reactionsOn.get(onComment) ?? []), reaction]);
    return { status: 201, body: reaction };
  }

  /** An issue comment's reactions, oldest first, filtered by `content`, a page at a time. Any comment id is answered: an unknown one has none. */
  #listReactions(call: StandinCall): StandinAnswer {
    const { owner, repo, comment_id } = call.params;
    const content = call.query.get("content");
    const all = (this.#reactionsOn.get(`issue-comment:${owner}/${repo}#${comment_id}`.toLowerCase()) ?? []).filter((reaction) => content === null || reaction.content === content);
    return this.#page(call, all);
  }

  /** `all`, paged by `per_page` (30, at most 100) and `page`, with GitHub's `Link` header. */
  #page(call: StandinCall, all: unknown[]): StandinAnswer {
    const perPage = Math.min(Math.max(Number(call.query.get("per_page") ?? DEFAULT_PER_PAGE), 1), MAX_PER_PAGE);
    const page = Math.max(Number(call.query.get("page") ?? 1), 1);
    const lastPage = Math.max(Math.ceil(all.length / perPage), 1);
    const body = all.slice((page - 1) * perPage, page * perPage);
    const link = linkHeader(`${this.#options.baseUrl()}${call.path}`, call.query, page, lastPage);
    return { status: 200, body, ...(link ? { headers: { link } } : {}) };
  }

  /** Who a call acts as: the user of a user's token, else the App's bot. */
  #author(call: StandinCall): Author {
    return call.caller?.kind === "user" ? { login: call.caller.login, type: "User" } : { login: this.#options.botLogin, type: "Bot" };
  }

  /**
   * A user's author_association on `repo`, from the role the stand-in gives
   * them: the repository's owner and an admin are OWNER, maintain and write
   * MEMBER, triage and read CONTRIBUTOR, none NONE. The App's bot is NONE.
   */
  #association(author: Author, repo: string): string {
    if (author.type === "Bot") return "NONE";
    const login = author.login.toLowerCase();
    if (login === repo.split("/")[0]!.toLowerCase()) return "OWNER";
    const role = this.#roles.get(login) ?? this.#options.defaultRole;
    if (role === "admin") return "OWNER";
    if (role === "maintain" || role === "write") return "MEMBER";
    if (role === "triage" || role === "read") return "CONTRIBUTOR";
    return "NONE";
  }

  #createIssue(call: StandinCall): StandinAnswer {
    const { owner, repo } = call.params;
    const fullName = `${owner}/${repo}`;
    const body = call.body as { title: string | number; body?: string; labels?: unknown[] } & Record<string, unknown>;
    const unmodelled = unmodelledIssueFields(body);
    if (unmodelled) return unmodelled;
    const title = String(body.title);
    if (title.trim() === "") return validationFailed("Issue", "missing_field", "title", "title cannot be blank", `${ISSUES_DOCS_URL}#create-an-issue`);
    if (body.body !== undefined && [...body.body].length > MAX_COMMENT_CHARS) {
      return validationFailed("Issue", "custom", "body", `body is too long (maximum is ${MAX_COMMENT_CHARS} characters)`, `${ISSUES_DOCS_URL}#create-an-issue`);
    }
    const number = this.#nextNumber(fullName);
    const author = this.#author(call);
    const now = this.#iso();
    const issue: Issue = {
      repo: fullName,
      number,
      id: this.#id(),
      title,
      body: body.body ?? null,
      labels: this.#labelNames(fullName, body.labels ?? []),
      state: "open",
      stateReason: null,
      user: author,
      association: this.#association(author, fullName),
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      closedBy: null
    };
    this.#issues.set(pullKey(fullName, number), issue);
    return { status: 201, body: this.#issue(issue) };
  }

  #getIssue(call: StandinCall): StandinAnswer {
    const issue = this.#issueOf(call);
    return issue ? { status: 200, body: this.#issue(issue) } : notFound(`${ISSUES_DOCS_URL}#get-an-issue`);
  }

  /** title, body, state (with state_reason: closing defaults to completed, reopening is reopened), labels (replaced). */
  #updateIssue(call: StandinCall): StandinAnswer {
    const issue = this.#issueOf(call);
    if (!issue) return notFound(`${ISSUES_DOCS_URL}#update-an-issue`);
    const change = call.body as { title?: string | number | null; body?: string | null; state?: "open" | "closed"; state_reason?: string | null; labels?: unknown[] } & Record<string, unknown>;
    const unmodelled = unmodelledIssueFields(change);
    if (unmodelled) return unmodelled;
    if (change.title !== undefined && (change.title === null || String(change.title).trim() === "")) {
      return validationFailed("Issue", "missing_field", "title", "title cannot be blank", `${ISSUES_DOCS_URL}#update-an-issue`);
    }
    if (typeof change.body === "string" && [...change.body].length > MAX_COMMENT_CHARS) {
      return validationFailed("Issue", "custom", "body", `body is too long (maximum is ${MAX_COMMENT_CHARS} characters)`, `${ISSUES_DOCS_URL}#update-an-issue`);
    }
    const now = this.#iso();
    if (change.title !== undefined) issue.title = String(change.title);
    if (change.body !== undefined) issue.body = change.body;
    if (change.labels !== undefined) issue.labels = this.#labelNames(issue.repo, change.labels);
    if (change.state === "closed") {
      if (issue.state !== "closed") {
        issue.closedAt = now;
        issue.closedBy = this.#author(call);
      }
      issue.state = "closed";
      issue.stateReason = change.state_reason ?? (issue.stateReason === null || issue.stateReason === "reopened" ? "completed" : issue.stateReason);
    } else if (change.state === "open" && issue.state === "closed") {
      issue.state = "open";
      issue.stateReason = "reopened";
      issue.closedAt = null;
      issue.closedBy = null;
    }
    issue.updatedAt = now;
    return { status: 200, body: this.#issue(issue) };
  }

  /** Adds labels (creating any the repository does not have yet); answers all the issue's labels. */
  #addLabels(call: StandinCall): StandinAnswer {
    const issue = this.#issueOf(call);
    if (!issue) return notFound("https://docs.github.com/rest/issues/labels#add-labels-to-an-issue");
    const added = this.#labelNames(issue.repo, (call.body as { labels?: unknown[] } | undefined)?.labels ?? []);
    for (const name of added) if (!issue.labels.some((label) => label.toLowerCase() === name.toLowerCase())) issue.labels.push(name);
    issue.updatedAt = this.#iso();
    return { status: 200, body: issue.labels.map((name) => this.#label(issue.repo, name)) };
  }

  #issueOf(call: StandinCall): Issue | undefined {
    return this.#issues.get(pullKey(`${call.params.owner}/${call.params.repo}`, Number(call.params.issue_number)));
  }

  /** The names of labels given as strings or `{ name }`, each created on the repository when new; duplicates once. */
  #labelNames(repo: string, given: unknown[]): string[] {
    const names: string[] = [];
    for (const item of given) {
      const name = typeof item === "string" ? item : typeof item === "object" && item !== null && typeof (item as { name?: unknown }).name === "string" ? (item as { name: string }).name : "";
      if (name.trim() === "") continue;
      const key = `${repo} ${name}`.toLowerCase();
      const label = this.#labels.get(key) ?? { id: this.#id(), name };
      this.#labels.set(key, label);
      if (!names.some((known) => known.toLowerCase() === label.name.toLowerCase())) names.push(label.name);
    }
    return names;
  }

  /** GitHub's label (a label created on first use gets GitHub's default grey). */
  #label(repo: string, name: string): Record<string, unknown> {
    const label = this.#labels.get(`${repo} ${name}`.toLowerCase())!;
    return {
      id: label.id,
      node_id: `LA_standin${label.id}`,
      url: `${this.#options.baseUrl()}/repos/${repo}/labels/${encodeURIComponent(label.name)}`,
      name: label.name,
      description: null,
      color: "ededed",
      default: false
    };
  }

  /** GitHub's issue, with every required field. */
  #issue(issue: Issue): Record<string, unknown> {
    const base = this.#options.baseUrl();
    const api = `${base}/repos/${issue.repo}`;
    const self = `${api}/issues/${issue.number}`;
    return {
      id: issue.id,
      node_id: `I_standin${issue.id}`,
      url: self,
      repository_url: api,
      labels_url: `${self}/labels{/name}`,
      comments_url: `${self}/comments`,
      events_url: `${self}/events`,
      html_url: `${base}/${issue.repo}/issues/${issue.number}`,
      timeline_url: `${self}/timeline`,
      number: issue.number,
      state: issue.state,
      // GitHub sends null for an open issue never closed; its description's enum has no null, so the field is left out then.
      ...(issue.stateReason === null ? {} : { state_reason: issue.stateReason }),
      title: issue.title,
      body: issue.body,
      user: this.#user(issue.user.login, issue.user.type),
      labels: issue.labels.map((name) => this.#label(issue.repo, name)),
      assignee: null,
      assignees: [],
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: this.#comments.get(pullKey(issue.repo, issue.number))?.length ?? 0,
      closed_at: issue.closedAt,
      closed_by: issue.closedBy ? this.#user(issue.closedBy.login, issue.closedBy.type) : null,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      author_association: issue.association
    };
  }

  /** `GET /user`: a user's token is that user (GitHub's private-user); the App's tokens are 403, as GitHub answers an integration; no token 401. */
  #authenticatedUser(caller: StandinCaller): StandinAnswer {
    if (caller.kind === "anonymous") {
      const message = "Requires authentication";
      return { status: 401, refusal: `users/get-authenticated: ${message} (no token)`, body: { message, documentation_url: USER_DOCS_URL, status: "401" } };
    }
    if (caller.kind !== "user") {
      const message = "Resource not accessible by integration";
      return { status: 403, refusal: `users/get-authenticated: ${message} (an App's ${caller.kind === "app" ? "JWT" : "installation token"})`, body: { message, documentation_url: USER_DOCS_URL, status: "403" } };
    }
    return {
      status: 200,
      body: {
        ...this.#publicUser(caller.login),
        user_view_type: "private",
        notification_email: null,
        private_gists: 0,
        total_private_repos: 0,
        owned_private_repos: 0,
        disk_usage: 0,
        collaborators: 0,
        two_factor_authentication: true,
        plan: { name: "free", space: 976_562_499, collaborators: 0, private_repos: 10_000 }
      }
    };
  }

  #comment(call: StandinCall): StandinAnswer {
    const { owner, repo, issue_number } = call.params;
    const text = (call.body as { body: string }).body;
    if (text.trim() === "") return commentRefused("missing_field", "body cannot be blank");
    if ([...text].length > MAX_COMMENT_CHARS) return commentRefused("custom", `body is too long (maximum is ${MAX_COMMENT_CHARS} characters)`);
    const id = this.#id();
    const now = this.#iso();
    const base = this.#options.baseUrl();
    const author = this.#author(call);
    const number = Number(issue_number);
    const issue = this.#issues.get(pullKey(`${owner}/${repo}`, number));
    const pull = this.#pulls.get(pullKey(`${owner}/${repo}`, number));
    const fullName = issue?.repo ?? `${owner}/${repo}`;
    const association = this.#association(author, fullName);
    const comment: Comment = {
      id,
      node_id: `IC_standin${id}`,
      url: `${base}/repos/${owner}/${repo}/issues/comments/${id}`,
      html_url: `${base}/${owner}/${repo}/${pull ? "pull" : "issues"}/${issue_number}#issuecomment-${id}`,
      issue_url: `${base}/repos/${owner}/${repo}/issues/${issue_number}`,
      body: text,
      user: this.#user(author.login, author.type),
      created_at: now,
      updated_at: now,
      author_association: association
    };
    const key = issueKey(call.params);
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
              userId: this.#userId(author.login),
              userType: author.type,
              association,
              createdAt: now
            }
          }
        : {})
    };
  }

  #listComments(call: StandinCall): StandinAnswer {
    const since = call.query.get("since");
    const all = (this.#comments.get(issueKey(call.params)) ?? []).filter((comment) => since === null || Date.parse(comment.updated_at) >= Date.parse(since));
    return this.#page(call, all);
  }

  #getPull(call: StandinCall): StandinAnswer {
    const pull = this.#pulls.get(pullKey(`${call.params.owner}/${call.params.repo}`, Number(call.params.pull_number)));
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
  #createPull(call: StandinCall): StandinAnswer {
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
    if (asked.body !== undefined && [...asked.body].length > MAX_COMMENT_CHARS) {
      return validationFailed("PullRequest", "custom", "body", `body is too long (maximum is ${MAX_COMMENT_CHARS} characters)`, docs);
    }
    const open = [...this.#pulls.values()].find(
      ({ seed }) => seed.state === "open" && seed.repo.toLowerCase() === fullName.toLowerCase() && seed.head.repo.toLowerCase() === fullName.toLowerCase() && seed.head.ref === headRef && seed.base.ref === asked.base
    );
    if (open) return validationError({ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${owner}:${headRef}.` }, docs);
    const number = this.#nextNumber(fullName);
    const author = this.#author(call);
    const now = this.#iso();
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
      id: this.#id(),
      association: this.#association(author, fullName),
      createdAt: now,
      updatedAt: now,
      closedAt: null
    };
    this.#pulls.set(pullKey(fullName, number), pull);
    const body = this.#pull(pull);
    return { status: 201, body, headers: { location: String(body.url) } };
  }

  /** title, body, state (closing sets `closed_at`, reopening clears it) and base, of a seeded or created pull request; 404 for any other number. */
  #updatePull(call: StandinCall): StandinAnswer {
    const pull = this.#pulls.get(pullKey(`${call.params.owner}/${call.params.repo}`, Number(call.params.pull_number)));
    const docs = `${PULLS_DOCS_URL}#update-a-pull-request`;
    if (!pull) return notFound(docs);
    const change = (call.body ?? {}) as { title?: string; body?: string; state?: "open" | "closed"; base?: string } & Record<string, unknown>;
    const unmodelled = unmodelledPullFields("pulls/update", change);
    if (unmodelled) return unmodelled;
    if (change.title !== undefined && change.title.trim() === "") return validationError({ resource: "PullRequest", field: "title", code: "missing_field" }, docs, "title cannot be blank");
    if (change.body !== undefined && [...change.body].length > MAX_COMMENT_CHARS) {
      return validationFailed("PullRequest", "custom", "body", `body is too long (maximum is ${MAX_COMMENT_CHARS} characters)`, docs);
    }
    const now = this.#iso();
    if (change.title !== undefined) pull.seed.title = change.title;
    if (change.body !== undefined) pull.seed.body = change.body;
    if (change.base !== undefined) pull.seed.base.ref = change.base;
    if (change.state === "closed" && pull.seed.state !== "closed") pull.closedAt = now;
    if (change.state === "open") pull.closedAt = null;
    if (change.state !== undefined) pull.seed.state = change.state;
    pull.updatedAt = now;
    return { status: 200, body: this.#pull(pull) };
  }

  /** The next number of `repo`'s issues and pull requests, which share them: past every one created or seeded. */
  #nextNumber(repo: string): number {
    let number = 1;
    while (this.#issues.has(pullKey(repo, number)) || this.#pulls.has(pullKey(repo, number))) number++;
    return number;
  }

  /** GitHub's list: `state` (open), `head` as `owner:branch` (without the owner GitHub ignores it), `base`; newest first by default. */
  #listPulls(call: StandinCall): StandinAnswer {
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
    const perPage = Math.min(Math.max(Number(call.query.get("per_page") ?? DEFAULT_PER_PAGE), 1), MAX_PER_PAGE);
    const page = Math.max(Number(call.query.get("page") ?? 1), 1);
    const lastPage = Math.max(Math.ceil(all.length / perPage), 1);
    const body = all.slice((page - 1) * perPage, page * perPage).map((pull) => {
      const simple = this.#pull(pull);
      for (const field of FULL_PULL_ONLY) delete simple[field];
      return simple;
    });
    const link = linkHeader(`${this.#options.baseUrl()}${call.path}`, call.query, page, lastPage);
    return { status: 200, body, ...(link ? { headers: { link } } : {}) };
  }

  #getContent(call: StandinCall): StandinAnswer {
    const repo = `${call.params.owner}/${call.params.repo}`;
    const path = call.params.path!.replace(/^\/+|\/+$/g, "");
    const ref = call.query.get("ref") ?? undefined;
    const content = (ref === undefined ? undefined : this.#files.get(fileKey(repo, ref, path))) ?? this.#files.get(fileKey(repo, undefined, path));
    if (content === undefined) {
      const prefix = `${repo.toLowerCase()}/${path}/`;
      const isDirectory = [...this.#files.keys()].some((key) => key.slice(key.indexOf(" ") + 1).startsWith(prefix));
      if (isDirectory) {
        const message = `The GitHub stand-in does not list directories (repos/get-content on ${repo}/${path}): seed and ask for files`;
        return { status: 501, refusal: message, body: { message, documentation_url: CONTENTS_DOCS_URL, status: "501" } };
      }
      return notFound(CONTENTS_DOCS_URL);
    }
    if (RAW_MEDIA_TYPE.test(call.accept ?? "")) {
      return { status: 200, raw: content, headers: { "content-type": "text/plain; charset=utf-8", "x-github-media-type": "github.v3; param=raw; format=json" } };
    }
    const base = this.#options.baseUrl();
    const bytes = Buffer.from(content, "utf8");
    const sha = gitBlobSha(bytes);
    const at = ref ?? "main";
    const encodedPath = path.split("/").map(encodeURIComponent).join("/");
    const self = `${base}/repos/${repo}/contents/${encodedPath}?ref=${encodeURIComponent(at)}`;
    const git = `${base}/repos/${repo}/git/blobs/${sha}`;
    const html = `${base}/${repo}/blob/${encodeURIComponent(at)}/${encodedPath}`;
    return {
      status: 200,
      body: {
        type: "file",
        encoding: "base64",
        size: bytes.length,
        name: path.split("/").at(-1)!,
        path,
        // GitHub wraps its base64 at 60 characters, each line ended by \n.
        content: (bytes.toString("base64").match(/.{1,60}/g) ?? []).map((line) => `${line}\n`).join(""),
        sha,
        url: self,
        git_url: git,
        html_url: html,
        download_url: `${base}/raw/${repo}/${encodeURIComponent(at)}/${encodedPath}`,
        _links: { self, git, html }
      }
    };
  }

  /** GitHub's full pull-request, with every required field. */
  #pull({ seed, id, association, createdAt, updatedAt, closedAt }: StoredPull): Record<string, unknown> {
    const base = this.#options.baseUrl();
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
      user: this.#user(seed.user.login, seed.user.type),
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
      head: { label: `${headOwner}:${seed.head.ref}`, ref: seed.head.ref, sha: seed.head.sha, user: this.#user(headOwner, "User"), repo: this.#repository(seed.head.repo, fork) },
      base: { label: `${baseOwner}:${seed.base.ref}`, ref: seed.base.ref, sha: seed.base.sha, user: this.#user(baseOwner, "Organization"), repo: this.#repository(seed.repo, false) },
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
      author_association: association ?? (seed.user.login.toLowerCase() === baseOwner.toLowerCase() ? "OWNER" : fork ? "CONTRIBUTOR" : "MEMBER"),
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

  /** GitHub's repository, with every required field: public with default branch main unless seeded otherwise (`seedRepo`). */
  #repository(fullName: string, fork: boolean): Record<string, unknown> {
    const base = this.#options.baseUrl();
    const settings = this.#repos.get(fullName.toLowerCase());
    const [owner = "", name = ""] = fullName.split("/");
    const api = `${base}/repos/${fullName}`;
    const web = `${base}/${fullName}`;
    return {
      id: this.#userId(`repo:${fullName}`),
      node_id: `R_standin${this.#userId(`repo:${fullName}`)}`,
      name,
      full_name: fullName,
      owner: this.#user(owner, "User"),
      private: settings?.private ?? false,
      html_url: web,
      description: null,
      fork,
      url: api,
      archive_url: `${api}/{archive_format}{/ref}`,
      assignees_url: `${api}/assignees{/user}`,
      blobs_url: `${api}/git/blobs{/sha}`,
      branches_url: `${api}/branches{/branch}`,
      collaborators_url: `${api}/collaborators{/collaborator}`,
      comments_url: `${api}/comments{/number}`,
      commits_url: `${api}/commits{/sha}`,
      compare_url: `${api}/compare/{base}...{head}`,
      contents_url: `${api}/contents/{+path}`,
      contributors_url: `${api}/contributors`,
      deployments_url: `${api}/deployments`,
      downloads_url: `${api}/downloads`,
      events_url: `${api}/events`,
      forks_url: `${api}/forks`,
      git_commits_url: `${api}/git/commits{/sha}`,
      git_refs_url: `${api}/git/refs{/sha}`,
      git_tags_url: `${api}/git/tags{/sha}`,
      git_url: `${web.replace(/^https?:/, "git:")}.git`,
      hooks_url: `${api}/hooks`,
      issue_comment_url: `${api}/issues/comments{/number}`,
      issue_events_url: `${api}/issues/events{/number}`,
      issues_url: `${api}/issues{/number}`,
      keys_url: `${api}/keys{/key_id}`,
      labels_url: `${api}/labels{/name}`,
      languages_url: `${api}/languages`,
      merges_url: `${api}/merges`,
      milestones_url: `${api}/milestones{/number}`,
      notifications_url: `${api}/notifications{?since,all,participating}`,
      pulls_url: `${api}/pulls{/number}`,
      releases_url: `${api}/releases{/id}`,
      ssh_url: `git@standin:${fullName}.git`,
      stargazers_url: `${api}/stargazers`,
      statuses_url: `${api}/statuses/{sha}`,
      subscribers_url: `${api}/subscribers`,
      subscription_url: `${api}/subscription`,
      tags_url: `${api}/tags`,
      teams_url: `${api}/teams`,
      trees_url: `${api}/git/trees{/sha}`,
      clone_url: `${web}.git`,
      mirror_url: null,
      svn_url: web,
      homepage: null,
      language: null,
      forks: 0,
      forks_count: 0,
      stargazers_count: 0,
      watchers: 0,
      watchers_count: 0,
      size: 0,
      default_branch: settings?.defaultBranch ?? "main",
      open_issues: 0,
      open_issues_count: 0,
      has_issues: true,
      has_projects: false,
      has_wiki: false,
      has_pages: false,
      has_downloads: false,
      archived: false,
      disabled: false,
      visibility: settings?.private ? "private" : "public",
      license: null,
      pushed_at: "2026-01-01T00:00:00Z",
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z"
    };
  }

  /** GitHub's full-repository (`GET /repos/{owner}/{repo}`): the repository and the fields only that answer has. Any repository is answered. */
  #fullRepository(fullName: string): Record<string, unknown> {
    return {
      ...this.#repository(fullName, false),
      is_template: false,
      topics: [],
      has_discussions: false,
      allow_forking: true,
      web_commit_signoff_required: false,
      network_count: 0,
      subscribers_count: 0
    };
  }

  #defaultBranch(repo: string): string {
    return this.#repos.get(repo.toLowerCase())?.defaultBranch ?? "main";
  }

  /**
   * `DELETE /installation/token`: the token the call carries stops working
   * (github-standin.ts answers it 401 "Bad credentials" from then on, this
   * call's own repeat included). No token is GitHub's 401; a user's token
   * or the App's JWT is not an installation token, and what GitHub answers
   * those is not modelled (501).
   */
  #revoke(call: StandinCall): StandinAnswer {
    const caller = call.caller ?? { kind: "anonymous" };
    if (caller.kind === "anonymous" || !call.token) {
      const message = "Requires authentication";
      return { status: 401, refusal: `apps/revoke-installation-access-token: ${message} (no token)`, body: { message, documentation_url: REVOKE_DOCS_URL, status: "401" } };
    }
    if (caller.kind !== "installation") {
      const message = `The GitHub stand-in does not model revoking ${caller.kind === "user" ? "a user's token" : "an App JWT"} (apps/revoke-installation-access-token takes an installation token)`;
      return { status: 501, refusal: message, body: { message, documentation_url: REVOKE_DOCS_URL, status: "501" } };
    }
    this.#revoked.add(call.token);
    return { status: 204 };
  }

  #mint(call: StandinCall): StandinAnswer {
    const token = `ghs_standin${String(this.#id()).padStart(30, "0")}`;
    const expiresAt = this.#options.now() + this.#options.tokenLifetimeMs;
    this.#tokens.set(token, expiresAt);
    const requested = (call.body as { repositories?: string[] } | undefined)?.repositories;
    return {
      status: 201,
      body: {
        token,
        expires_at: new Date(expiresAt).toISOString(),
        permissions: { issues: "write", contents: "write", pull_requests: "write", metadata: "read" },
        repository_selection: requested ? "selected" : "all"
      }
    };
  }

  #installation(owner: string): Record<string, unknown> {
    const base = this.#options.baseUrl();
    const now = this.#iso();
    return {
      id: 1,
      account: this.#user(owner, "Organization"),
      repository_selection: "selected",
      access_tokens_url: `${base}/app/installations/1/access_tokens`,
      repositories_url: `${base}/installation/repositories`,
      html_url: `${base}/organizations/${owner}/settings/installations/1`,
      app_id: STANDIN_APP_ID,
      app_slug: this.#slug(),
      target_id: this.#userId(owner),
      target_type: "Organization",
      permissions: { issues: "write", contents: "write", pull_requests: "write", metadata: "read" },
      events: ["issue_comment"],
      created_at: now,
      updated_at: now,
      single_file_name: null,
      suspended_by: null,
      suspended_at: null
    };
  }

  #permission(login: string): StandinAnswer {
    const role = this.#roles.get(login.toLowerCase()) ?? this.#options.defaultRole;
    // `permission` is GitHub's legacy base role: maintain reads as write, triage as read.
    const permission = role === "maintain" ? "write" : role === "triage" ? "read" : role;
    const at = ROLE_NAMES.indexOf(role);
    const user = {
      ...this.#user(login, "User"),
      permissions: { admin: at <= 0, maintain: at <= 1, push: at <= 2, triage: at <= 3, pull: at <= 4 },
      role_name: role
    };
    return { status: 200, body: { permission, role_name: role, user } };
  }

  /** GitHub's `integration` (the authenticated App), with every required field and the slug. */
  #app(): Record<string, unknown> {
    const base = this.#options.baseUrl();
    const slug = this.#slug();
    return {
      id: STANDIN_APP_ID,
      slug,
      node_id: `A_standin${STANDIN_APP_ID}`,
      client_id: "Iv1.standin",
      owner: this.#user("acme", "Organization"),
      name: slug,
      description: "agent-think's App, as the local GitHub stand-in plays it",
      external_url: base,
      html_url: `${base}/apps/${slug}`,
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
      permissions: { issues: "write", contents: "write", pull_requests: "write", metadata: "read" },
      events: ["issue_comment"],
      installations_count: 1
    };
  }

  /** GitHub's public-user (`GET /users/{username}`): a `[bot]` login is a Bot, anyone else a User. */
  #publicUser(login: string): Record<string, unknown> {
    return {
      ...this.#user(login, login.toLowerCase().endsWith("[bot]") ? "Bot" : "User"),
      user_view_type: "public",
      name: null,
      company: null,
      blog: "",
      location: null,
      email: null,
      hireable: null,
      bio: null,
      public_repos: 0,
      public_gists: 0,
      followers: 0,
      following: 0,
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z"
    };
  }

  #slug(): string {
    return this.#options.botLogin.replace(/\[bot\]$/, "");
  }

  /** GitHub's simple-user, with every required field. */
  #user(login: string, type: "Bot" | "User" | "Organization"): Record<string, unknown> {
    const base = this.#options.baseUrl();
    const url = `${base}/users/${encodeURIComponent(login)}`;
    return {
      login,
      id: this.#userId(login),
      node_id: `U_standin${this.#userId(login)}`,
      avatar_url: `${base}/avatars/${encodeURIComponent(login)}`,
      gravatar_id: "",
      url,
      html_url: `${base}/${encodeURIComponent(login)}`,
      followers_url: `${url}/followers`,
      following_url: `${url}/following{/other_user}`,
      gists_url: `${url}/gists{/gist_id}`,
      starred_url: `${url}/starred{/owner}{/repo}`,
      subscriptions_url: `${url}/subscriptions`,
      organizations_url: `${url}/orgs`,
      repos_url: `${url}/repos`,
      events_url: `${url}/events{/privacy}`,
      received_events_url: `${url}/received_events`,
      type,
      site_admin: false
    };
  }

  #userId(login: string): number {
    const key = login.toLowerCase();
    if (key === this.#options.botLogin.toLowerCase()) return STANDIN_BOT_USER_ID;
    let id = this.#userIds.get(key);
    if (id === undefined) {
      id = 100 + this.#userIds.size;
      this.#userIds.set(key, id);
    }
    return id;
  }

  #id(): number {
    return this.#nextId++;
  }

  #iso(): string {
    return new Date(this.#options.now()).toISOString();
  }
}

/** GitHub's "Validation Failed" for a comment body its description allows and GitHub does not. */
function commentRefused(code: string, message: string): StandinAnswer {
  return validationFailed("IssueComment", code, "body", message, "https://docs.github.com/rest/issues/comments#create-an-issue-comment");
}

/** GitHub's 422 "Validation Failed" for a request its description allows and GitHub does not. */
function validationFailed(resource: string, code: string, field: string, message: string, documentationUrl: string): StandinAnswer {
  return validationError({ resource, code, field, message }, documentationUrl);
}

/** One error of GitHub's "Validation Failed": GitHub leaves out `field` or `message` where it has none ("A pull request already exists" names no field). */
type ValidationError = { resource: string; code: string; field?: string; message?: string };

/** GitHub's 422 "Validation Failed" with `error` as GitHub words it; the refusal recorded says why in `refusal`, else the error's message. */
function validationError(error: ValidationError, documentationUrl: string, refusal?: string): StandinAnswer {
  return {
    status: 422,
    refusal: refusal ?? error.message ?? "Validation Failed",
    body: { message: "Validation Failed", errors: [error], documentation_url: documentationUrl, status: "422" }
  };
}

/** A 501 refusal naming the fields of a pull request's create or update the stand-in does not model. */
function unmodelledPullFields(operation: string, body: Record<string, unknown>): StandinAnswer | null {
  const fields = UNMODELLED_PULL_FIELDS.filter((field) => body[field] !== undefined);
  if (fields.length === 0) return null;
  const message = `The GitHub stand-in does not model a pull request's ${fields.join(", ")} (${operation})`;
  return { status: 501, refusal: message, body: { message, documentation_url: PULLS_DOCS_URL, status: "501" } };
}

/** A 501 refusal naming the fields of an issue's create or update the stand-in does not model (an empty value, null or [], is taken). */
function unmodelledIssueFields(body: Record<string, unknown>): StandinAnswer | null {
  const fields = UNMODELLED_ISSUE_FIELDS.filter((field) => body[field] !== undefined && body[field] !== null && !(Array.isArray(body[field]) && (body[field] as unknown[]).length === 0));
  if (fields.length === 0) return null;
  const message = `The GitHub stand-in does not model an issue's ${fields.join(", ")}`;
  return { status: 501, refusal: message, body: { message, documentation_url: ISSUES_DOCS_URL, status: "501" } };
}

/** GitHub's 404 for a resource it does not have (or will not show). */
function notFound(documentationUrl: string): StandinAnswer {
  return { status: 404, body: { message: "Not Found", documentation_url: documentationUrl, status: "404" } };
}

function pullKey(repo: string, number: number): string {
  return `${repo}#${number}`.toLowerCase();
}

/** Repository names are case-insensitive on GitHub, paths and refs are not. */
function fileKey(repo: string, ref: string | undefined, path: string): string {
  return `${ref ?? ""} ${repo.toLowerCase()}/${path.replace(/^\/+|\/+$/g, "")}`;
}

/** Git's blob id of `bytes`, as GitHub's `sha` for a file. */
function gitBlobSha(bytes: Buffer): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** A stable made-up commit id. */
function fakeSha(seed: string): string {
  return createHash("sha1").update(seed).digest("hex");
}

function issueKey(params: Record<string, string>): string {
  return `${params.owner}/${params.repo}#${params.issue_number}`.toLowerCase();
}

/** GitHub's pagination header: first/prev when past page 1, next/last when before the last page. */
export function linkHeader(url: string, query: URLSearchParams, page: number, lastPage: number): string | null {
  const to = (target: number, rel: string) => {
    const params = new URLSearchParams(query);
    params.set("page", String(target));
    return `<${url}?${params.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(to(page - 1, "prev"));
  if (page < lastPage) links.push(to(page + 1, "next"), to(lastPage, "last"));
  if (page > 1) links.push(to(1, "first"));
  return links.length > 0 ? links.join(", ") : null;
}
