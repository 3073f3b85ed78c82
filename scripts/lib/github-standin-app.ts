/**
 * The App as the stand-in plays it: `GET /app` (its slug is the bot's login
 * without `[bot]`), its one installation on any owner's account, and
 * installation tokens: minted with a lifetime, expired on demand, revoked
 * over the API (`DELETE /installation/token`).
 */

import type { StandinAccounts } from "./github-standin-accounts";
import { notModelled, requiresAuthentication, type StandinAnswer, type StandinBasics, type StandinCall } from "./github-standin-answers";

/** The App's id in `GET /app` and its installation's `app_id`. */
export const STANDIN_APP_ID = 1;

const REVOKE_DOCS_URL = "https://docs.github.com/rest/apps/installations#revoke-an-installation-access-token";
/** What the App, its installation and every token it mints may do. */
const APP_PERMISSIONS = { issues: "write", contents: "write", pull_requests: "write", metadata: "read" } as const;
const APP_EVENTS = ["issue_comment"] as const;

export type AppOptions = {
  botLogin: string;
  tokenLifetimeMs: number;
  now: () => number;
};

export class StandinApp {
  readonly #basics: StandinBasics;
  readonly #accounts: Pick<StandinAccounts, "user" | "userId">;
  readonly #options: AppOptions;
  /** Tokens minted here, with when they stop working. */
  readonly #tokens = new Map<string, number>();
  /** Tokens revoked over the API (any token, minted here or not), in the order they were revoked. */
  readonly #revoked = new Set<string>();

  constructor(basics: StandinBasics, accounts: Pick<StandinAccounts, "user" | "userId">, options: AppOptions) {
    this.#basics = basics;
    this.#accounts = accounts;
    this.#options = options;
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

  /**
   * `DELETE /installation/token`: the token the call carries stops working
   * (github-standin.ts answers it 401 "Bad credentials" from then on, this
   * call's own repeat included). No token is GitHub's 401; a user's token
   * or the App's JWT is not an installation token, and what GitHub answers
   * those is not modelled (501).
   */
  revoke(call: StandinCall): StandinAnswer {
    const caller = call.caller ?? { kind: "anonymous" };
    if (caller.kind === "anonymous" || !call.token) return requiresAuthentication("apps/revoke-installation-access-token", REVOKE_DOCS_URL);
    if (caller.kind !== "installation") {
      return notModelled(
        `The GitHub stand-in does not model revoking ${caller.kind === "user" ? "a user's token" : "an App JWT"} (apps/revoke-installation-access-token takes an installation token)`,
        REVOKE_DOCS_URL
      );
    }
    this.#revoked.add(call.token);
    return { status: 204 };
  }

  mint(call: StandinCall): StandinAnswer {
    const token = `ghs_standin${String(this.#basics.nextId()).padStart(30, "0")}`;
    const expiresAt = this.#options.now() + this.#options.tokenLifetimeMs;
    this.#tokens.set(token, expiresAt);
    const requested = (call.body as { repositories?: string[] } | undefined)?.repositories;
    return {
      status: 201,
      body: {
        token,
        expires_at: new Date(expiresAt).toISOString(),
        permissions: { ...APP_PERMISSIONS },
        repository_selection: requested ? "selected" : "all"
      }
    };
  }

  installation(owner: string): Record<string, unknown> {
    const base = this.#basics.baseUrl();
    const now = this.#basics.iso();
    return {
      id: 1,
      account: this.#accounts.user(owner, "Organization"),
      repository_selection: "selected",
      access_tokens_url: `${base}/app/installations/1/access_tokens`,
      repositories_url: `${base}/installation/repositories`,
      html_url: `${base}/organizations/${owner}/settings/installations/1`,
      app_id: STANDIN_APP_ID,
      app_slug: this.#slug(),
      target_id: this.#accounts.userId(owner),
      target_type: "Organization",
      permissions: { ...APP_PERMISSIONS },
      events: [...APP_EVENTS],
      created_at: now,
      updated_at: now,
      single_file_name: null,
      suspended_by: null,
      suspended_at: null
    };
  }

  /** GitHub's `integration` (the authenticated App), with every required field and the slug. */
  app(): Record<string, unknown> {
    const base = this.#basics.baseUrl();
    const slug = this.#slug();
    return {
      id: STANDIN_APP_ID,
      slug,
      node_id: `A_standin${STANDIN_APP_ID}`,
      client_id: "Iv1.standin",
      owner: this.#accounts.user("acme", "Organization"),
      name: slug,
      description: "agent-think's App, as the local GitHub stand-in plays it",
      external_url: base,
      html_url: `${base}/apps/${slug}`,
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
      permissions: { ...APP_PERMISSIONS },
      events: [...APP_EVENTS],
      installations_count: 1
    };
  }

  #slug(): string {
    return this.#options.botLogin.replace(/\[bot\]$/, "");
  }
}
