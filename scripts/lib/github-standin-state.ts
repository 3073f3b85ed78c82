/**
 * What the local GitHub stand-in remembers and answers, per operation of
 * GitHub's description, for the calls agent-think makes: reactions on a
 * comment, an issue's comments (posted and listed), the App itself
 * (`GET /app`: its slug is `botLogin` without `[bot]`), its installation and
 * installation tokens, a user (`GET /users/{username}`: the App's bot is a
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
 * accounts exist: a reaction on any comment id, a comment on any issue, and
 * a lookup of any login are answered.
 *
 * Used by github-standin.ts, which has already matched and validated the
 * request against the description; this module trusts its parameters.
 */

export type RoleName = "admin" | "maintain" | "write" | "triage" | "read" | "none";
export const ROLE_NAMES: readonly RoleName[] = ["admin", "maintain", "write", "triage", "read", "none"];

export type StandinCall = {
  operationId: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  /** The path asked, without the query (for `Link` headers). */
  path: string;
};

export type StandinAnswer = { status: number; body?: unknown; headers?: Record<string, string>; refusal?: string };

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
type Reaction = Record<string, unknown> & { id: number };

export class GitHubStandinState {
  readonly #options: StandinStateOptions;
  readonly #comments = new Map<string, Comment[]>();
  readonly #reactions = new Map<string, Reaction>();
  readonly #roles = new Map<string, RoleName>();
  /** Tokens minted here, with when they stop working. */
  readonly #tokens = new Map<string, number>();
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
        return this.#react(call);
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

  /** Marks `token` expired, or every token minted so far. */
  expire(token?: string): void {
    const past = this.#options.now() - 1;
    if (token !== undefined) this.#tokens.set(token, past);
    else for (const minted of this.#tokens.keys()) this.#tokens.set(minted, past);
  }

  /** Forgets comments and reactions (roles and tokens stay). */
  clear(): void {
    this.#comments.clear();
    this.#reactions.clear();
  }

  #react(call: StandinCall): StandinAnswer {
    const { owner, repo, comment_id } = call.params;
    const content = (call.body as { content: string }).content;
    const key = `${owner}/${repo}#${comment_id}:${content}`.toLowerCase();
    const existing = this.#reactions.get(key);
    // GitHub answers 200 with the reaction the user already left, 201 for a new one.
    if (existing) return { status: 200, body: existing };
    const id = this.#id();
    const reaction: Reaction = { id, node_id: `REA_standin${id}`, user: this.#user(this.#options.botLogin, "Bot"), content, created_at: this.#iso() };
    this.#reactions.set(key, reaction);
    return { status: 201, body: reaction };
  }

  #comment(call: StandinCall): StandinAnswer {
    const { owner, repo, issue_number } = call.params;
    const text = (call.body as { body: string }).body;
    if (text.trim() === "") return commentRefused("missing_field", "body cannot be blank");
    if ([...text].length > MAX_COMMENT_CHARS) return commentRefused("custom", `body is too long (maximum is ${MAX_COMMENT_CHARS} characters)`);
    const id = this.#id();
    const now = this.#iso();
    const base = this.#options.baseUrl();
    const comment: Comment = {
      id,
      node_id: `IC_standin${id}`,
      url: `${base}/repos/${owner}/${repo}/issues/comments/${id}`,
      html_url: `${base}/${owner}/${repo}/issues/${issue_number}#issuecomment-${id}`,
      issue_url: `${base}/repos/${owner}/${repo}/issues/${issue_number}`,
      body: text,
      user: this.#user(this.#options.botLogin, "Bot"),
      created_at: now,
      updated_at: now,
      author_association: "NONE"
    };
    const key = issueKey(call.params);
    this.#comments.set(key, [...(this.#comments.get(key) ?? []), comment]);
    return { status: 201, body: comment };
  }

  #listComments(call: StandinCall): StandinAnswer {
    const since = call.query.get("since");
    const all = (this.#comments.get(issueKey(call.params)) ?? []).filter((comment) => since === null || Date.parse(comment.updated_at) >= Date.parse(since));
    const perPage = Math.min(Math.max(Number(call.query.get("per_page") ?? DEFAULT_PER_PAGE), 1), MAX_PER_PAGE);
    const page = Math.max(Number(call.query.get("page") ?? 1), 1);
    const lastPage = Math.max(Math.ceil(all.length / perPage), 1);
    const body = all.slice((page - 1) * perPage, page * perPage);
    const link = linkHeader(`${this.#options.baseUrl()}${call.path}`, call.query, page, lastPage);
    return { status: 200, body, ...(link ? { headers: { link } } : {}) };
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
  return {
    status: 422,
    refusal: message,
    body: {
      message: "Validation Failed",
      errors: [{ resource: "IssueComment", code, field: "body", message }],
      documentation_url: "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
      status: "422"
    }
  };
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
