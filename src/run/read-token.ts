/**
 * The read-only token a run's container gets when the run may write
 * nothing on GitHub: someone else's pull request, or a fork's
 * (src/run/write-policy.ts). Such a run checks out, builds and tests code
 * the pull request's author wrote; with the run's own token in the
 * container, that code could push. The command guard stops the model's
 * pushes; this stops everyone's.
 *
 * Minted from the token broker with read permissions (contents, issues,
 * pull requests, metadata), kept in memory only (a restart mints another),
 * renewed TOKEN_REFRESH_MARGIN_MS before it expires. When none can be had,
 * the container gets no token at all, never the run's: it fails closed. Each
 * token is handed to `secrets` so everything the run sends redacts it.
 * Pure apart from its dependencies.
 */
import { TOKEN_REFRESH_MARGIN_MS, TOKEN_REFRESH_RETRY_MS, type MintedToken } from "./run-token";
import { INSTALLATION_TOKEN_LIFETIME_MS } from "./run-context";

export type ReadTokenDeps = {
  /** A read-only installation token for `repo` from the token broker. */
  mint(repo: string): Promise<MintedToken>;
  secrets: { add(secret: string): void };
  now(): number;
  log(event: string, fields: Record<string, unknown>): void;
};

export class ReadOnlyToken {
  readonly #deps: ReadTokenDeps;
  #held: { repo: string; token: string; expiresAt: number } | undefined;
  #minting: Promise<string> | undefined;
  #retryAt = 0;

  constructor(deps: ReadTokenDeps) {
    this.#deps = deps;
  }

  /** A read-only token for `repo` with time left, minting one when needed; "" when none can be had. */
  fresh(repo: string): Promise<string> {
    const held = this.#held;
    const now = this.#deps.now();
    if (held && held.repo === repo && held.expiresAt - now > TOKEN_REFRESH_MARGIN_MS) return Promise.resolve(held.token);
    if (now < this.#retryAt) return Promise.resolve(held && held.repo === repo && held.expiresAt > now ? held.token : "");
    this.#minting ??= this.#mint(repo).finally(() => {
      this.#minting = undefined;
    });
    return this.#minting;
  }

  /** Every read-only token this isolate held, for redaction. */
  secrets(): string[] {
    return this.#held?.token ? [this.#held.token] : [];
  }

  async #mint(repo: string): Promise<string> {
    try {
      const minted = await this.#deps.mint(repo);
      if (!minted.token) throw new Error("the token broker gave no token");
      this.#deps.secrets.add(minted.token);
      const expiresAt = minted.expiresAt === undefined ? Number.NaN : Date.parse(minted.expiresAt);
      this.#held = { repo, token: minted.token, expiresAt: Number.isNaN(expiresAt) ? this.#deps.now() + INSTALLATION_TOKEN_LIFETIME_MS : expiresAt };
      this.#deps.log("token:read-only", { expiresAt: minted.expiresAt });
      return minted.token;
    } catch (error) {
      this.#retryAt = this.#deps.now() + TOKEN_REFRESH_RETRY_MS;
      this.#deps.log("github:read-token-failed", { error: error instanceof Error ? error.message : String(error) });
      return "";
    }
  }
}
