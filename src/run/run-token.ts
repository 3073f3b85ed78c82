/**
 * The run's installation token as a ThinkAgent holds it: the stored copy is the run context's
 * (run-context.ts); this keeps the in-memory copy, replaces it (a new dispatch, a continuation, a
 * `stop`), renews it through the token broker (TOKEN_REFRESH_MARGIN_MS before it expires, and
 * after a 401), hands a token it no longer holds to `retired` (revoked), and redacts it, and
 * anything shaped like a GitHub token, from what the run sends. A failed renewal is logged and
 * the run keeps its token; an empty token (local dev) is never renewed. Each token is also
 * registered with the console guard; the bot that comes with one is kept with it (who the bot
 * is: bot-identity.ts). Pure apart from its narrow dependencies.
 */
import type { BotIdentity } from "../shared/dispatch";
import { redactDeep, redactSecrets } from "./redact";
import { runTokenExpiresAt, type RunContext, type RunContextStore } from "./run-context";

/** A token with less than this left is renewed before it is used: time for a push, a PR and the closing comment. */
export const TOKEN_REFRESH_MARGIN_MS = 10 * 60 * 1000;
/** After a failed renewal the broker is asked again no sooner than this, not on every step. */
export const TOKEN_REFRESH_RETRY_MS = 60 * 1000;

/** What the token broker answers: the token, when known its expiry (ISO 8601), and the App's bot when the broker names it. */
export type MintedToken = { token: string; expiresAt?: string; bot?: BotIdentity };

export type RunTokenDeps = {
  runs: Pick<RunContextStore, "get" | "setToken">;
  /** A fresh installation token for `repo` from the token broker. */
  mint(repo: string): Promise<MintedToken>;
  /** Where every token this run holds is registered for the console guard. */
  secrets: { add(secret: string): void };
  now(): number;
  /** The agent's log: `token:refreshed` and `github:token-refresh-failed` (never with the token). */
  log(event: string, fields: Record<string, unknown>): void;
  /** Other tokens of this run that everything it sends must not hold either (the gateway's read-only one). */
  alsoSecret?: () => string[];
  /** A token the run held and no longer does (replaced by a dispatch, a continuation, a renewal): revoke it. */
  retired?: (token: string) => void;
};

type RenewReason = "expiring" | "unauthorized";

export class RunToken {
  readonly #deps: RunTokenDeps;
  #token = "";
  /** The renewal under way, shared by every caller that needs one meanwhile. */
  #renewing: Promise<string | null> | undefined;
  /** After a failed renewal: when an expiring token may be renewed again (ms since the epoch). */
  #retryAt = 0;

  constructor(deps: RunTokenDeps) {
    this.#deps = deps;
  }

  /** The token in memory ("" before one is known). */
  get value(): string {
    return this.#token;
  }

  /** Hold `token` as the run's (it is already stored in the run context, or is about to be). */
  adopt(token: string): void {
    const previous = this.#token;
    this.#token = token;
    this.#deps.secrets.add(token);
    if (previous && previous !== token) this.#deps.retired?.(previous);
  }

  /** The stored token, held in memory too. */
  async load(): Promise<string> {
    this.adopt((await this.#deps.runs.get())?.installationToken ?? "");
    return this.#token;
  }

  /**
   * Store `token` (expiring at `expiresAt`, when known; with the bot it came
   * with, when named) as the run's and hold it; null when there is no run to
   * give it to.
   */
  async replace(token: string, expiresAt?: string, bot?: BotIdentity): Promise<RunContext | null> {
    const run = await this.#deps.runs.setToken(token, this.#deps.now(), expiresAt, bot);
    if (run) this.adopt(token);
    return run;
  }

  /**
   * The stored token, held in memory too, renewed first when it expires
   * within TOKEN_REFRESH_MARGIN_MS. When the renewal fails the current token
   * is returned (and the failure logged).
   */
  async fresh(): Promise<string> {
    const run = await this.#deps.runs.get();
    this.adopt(run?.installationToken ?? "");
    if (!run || !this.#token || !this.#expiring(run)) return this.#token;
    return (await this.#renew(run.repo, "expiring")) ?? this.#token;
  }

  /** After a 401: a fresh token from the broker, stored for the run; null when none can be had. */
  refresh(repo: string): Promise<string | null> {
    return this.#renew(repo, "unauthorized");
  }

  #expiring(run: RunContext): boolean {
    const now = this.#deps.now();
    return runTokenExpiresAt(run) - now <= TOKEN_REFRESH_MARGIN_MS && now >= this.#retryAt;
  }

  #renew(repo: string, reason: RenewReason): Promise<string | null> {
    this.#renewing ??= this.#mintAndStore(repo, reason).finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  async #mintAndStore(repo: string, reason: RenewReason): Promise<string | null> {
    try {
      const minted = await this.#deps.mint(repo);
      const run = minted.token ? await this.replace(minted.token, minted.expiresAt, minted.bot) : null;
      if (!run) throw new Error(minted.token ? "the run context is gone" : "the token broker gave no token");
      this.#deps.log("token:refreshed", { reason, expiresAt: minted.expiresAt });
      return minted.token;
    } catch (error) {
      this.#retryAt = this.#deps.now() + TOKEN_REFRESH_RETRY_MS;
      this.#deps.log("github:token-refresh-failed", { reason, error: error instanceof Error ? error.message : String(error) });
      return null;
    }
  }

  /** Forget the token in memory (the run context was cleared); it is returned, for revocation. */
  clear(): string {
    const token = this.#token;
    this.#token = "";
    this.#retryAt = 0;
    return token;
  }

  /** The secrets a log line of this run must not hold. */
  secrets(): string[] {
    return [...(this.#token ? [this.#token] : []), ...(this.#deps.alsoSecret?.() ?? [])];
  }

  redact(text: string): string {
    return redactSecrets(text, this.secrets());
  }

  redactDeep<T>(value: T): T {
    return redactDeep(value, this.secrets());
  }
}
