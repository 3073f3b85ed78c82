/**
 * The stand-in's accounts: GitHub's user shapes (simple, public, private),
 * an id per login for the stand-in's life (the App's bot's is fixed), each
 * login's role on repositories and the collaborator permission it answers,
 * and who a call acts as, with that author's author_association.
 */

import { errorAnswer, requiresAuthentication, type StandinAnswer, type StandinCall, type StandinCaller } from "./github-standin-answers";

export type RoleName = "admin" | "maintain" | "write" | "triage" | "read" | "none";
export const ROLE_NAMES: readonly RoleName[] = ["admin", "maintain", "write", "triage", "read", "none"];

/** The App's bot user's id, the same in every answer that names the bot (its comments, reactions, `GET /users`). */
export const STANDIN_BOT_USER_ID = 190_000_001;

const USER_DOCS_URL = "https://docs.github.com/rest/users/users#get-the-authenticated-user";

/** Who wrote something: a user, or a Bot (the App's bot, a seeded `[bot]` author). */
export type Author = { login: string; type: "User" | "Bot" };

export type AccountsOptions = {
  baseUrl: () => string;
  botLogin: string;
  /** Role per login, case-insensitive; everyone else has `defaultRole`. */
  permissions: Record<string, RoleName>;
  defaultRole: RoleName;
};

export class StandinAccounts {
  readonly #options: AccountsOptions;
  readonly #roles = new Map<string, RoleName>();
  readonly #userIds = new Map<string, number>();

  constructor(options: AccountsOptions) {
    this.#options = options;
    for (const [login, role] of Object.entries(options.permissions)) this.#roles.set(login.toLowerCase(), role);
  }

  setRole(login: string, role: RoleName): void {
    this.#roles.set(login.toLowerCase(), role);
  }

  /** Who a call acts as: the user of a user's token, else the App's bot. */
  author(call: StandinCall): Author {
    return call.caller?.kind === "user" ? { login: call.caller.login, type: "User" } : { login: this.#options.botLogin, type: "Bot" };
  }

  /**
   * A user's author_association on `repo`, from the role the stand-in gives
   * them: the repository's owner and an admin are OWNER, maintain and write
   * MEMBER, triage and read CONTRIBUTOR, none NONE. The App's bot is NONE.
   */
  association(author: Author, repo: string): string {
    if (author.type === "Bot") return "NONE";
    const login = author.login.toLowerCase();
    if (login === repo.split("/")[0]!.toLowerCase()) return "OWNER";
    const role = this.#roles.get(login) ?? this.#options.defaultRole;
    if (role === "admin") return "OWNER";
    if (role === "maintain" || role === "write") return "MEMBER";
    if (role === "triage" || role === "read") return "CONTRIBUTOR";
    return "NONE";
  }

  permission(login: string): StandinAnswer {
    const role = this.#roles.get(login.toLowerCase()) ?? this.#options.defaultRole;
    // `permission` is GitHub's legacy base role: maintain reads as write, triage as read.
    const permission = role === "maintain" ? "write" : role === "triage" ? "read" : role;
    const at = ROLE_NAMES.indexOf(role);
    const user = {
      ...this.user(login, "User"),
      permissions: { admin: at <= 0, maintain: at <= 1, push: at <= 2, triage: at <= 3, pull: at <= 4 },
      role_name: role
    };
    return { status: 200, body: { permission, role_name: role, user } };
  }

  /** `GET /user`: a user's token is that user (GitHub's private-user); the App's tokens are 403, as GitHub answers an integration; no token 401. */
  authenticatedUser(caller: StandinCaller): StandinAnswer {
    if (caller.kind === "anonymous") return requiresAuthentication("users/get-authenticated", USER_DOCS_URL);
    if (caller.kind !== "user") {
      const message = "Resource not accessible by integration";
      return errorAnswer(403, message, USER_DOCS_URL, `users/get-authenticated: ${message} (an App's ${caller.kind === "app" ? "JWT" : "installation token"})`);
    }
    return {
      status: 200,
      body: {
        ...this.publicUser(caller.login),
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

  /** GitHub's public-user (`GET /users/{username}`): a `[bot]` login is a Bot, anyone else a User. */
  publicUser(login: string): Record<string, unknown> {
    return {
      ...this.user(login, login.toLowerCase().endsWith("[bot]") ? "Bot" : "User"),
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

  /** GitHub's simple-user, with every required field. */
  user(login: string, type: "Bot" | "User" | "Organization"): Record<string, unknown> {
    const base = this.#options.baseUrl();
    const url = `${base}/users/${encodeURIComponent(login)}`;
    return {
      login,
      id: this.userId(login),
      node_id: `U_standin${this.userId(login)}`,
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

  /** A login's id (or any name's: repositories take theirs from here too), made up on first use; the App's bot's is STANDIN_BOT_USER_ID. */
  userId(login: string): number {
    const key = login.toLowerCase();
    if (key === this.#options.botLogin.toLowerCase()) return STANDIN_BOT_USER_ID;
    let id = this.#userIds.get(key);
    if (id === undefined) {
      id = 100 + this.#userIds.size;
      this.#userIds.set(key, id);
    }
    return id;
  }
}
