/**
 * The read-only token the egress gateway attaches to the sandbox's reads of GitHub (git
 * fetches, REST GETs, GraphQL queries; src/egress/gateway.ts). Minted from the token broker
 * with read permissions, kept in memory only, renewed TOKEN_REFRESH_MARGIN_MS before it expires;
 * the one it replaces, and the one a finished turn leaves (`take`), go back for revocation. When
 * none can be had, reads go without one, never with the run's (why: docs/security.md). Each
 * token is handed to `secrets` for redaction. Pure apart from its dependencies.
 */
import { TOKEN_REFRESH_MARGIN_MS, TOKEN_REFRESH_RETRY_MS, type MintedToken } from "./run-token";
import { INSTALLATION_TOKEN_LIFETIME_MS } from "./run-context";

export type ReadTokenDeps = {
  /** A read-only installation token for `repo` (and `also`, other repositories of its owner) from the token broker. */
  mint(repo: string, also: readonly string[]): Promise<MintedToken>;
  secrets: { add(secret: string): void };
  now(): number;
  log(event: string, fields: Record<string, unknown>): void;
  /** A token this no longer holds: revoke it. */
  retired?: (token: string) => void;
  /** What the log calls it (`token:<kind>`, `github:<kind>-token-failed`): "read-only" unless told. */
  kind?: string;
};

export class ReadOnlyToken {
  readonly #deps: ReadTokenDeps;
  /** `key`: the repository and the others the token also reads, as one string. */
  #held: { key: string; token: string; expiresAt: number } | undefined;
  #minting: Promise<string> | undefined;
  #retryAt = 0;
  /** Every token held in this isolate: a revoked one is still redacted. */
  readonly #seen = new Set<string>();

  constructor(deps: ReadTokenDeps) {
    this.#deps = deps;
  }

  /** A read-only token for `repo` (and `also`) with time left, minting one when needed; "" when none can be had. */
  fresh(repo: string, also: readonly string[] = []): Promise<string> {
    const held = this.#held;
    const now = this.#deps.now();
    const key = [repo, ...[...also].sort()].join(" ");
    if (held && held.key === key && held.expiresAt - now > TOKEN_REFRESH_MARGIN_MS) return Promise.resolve(held.token);
    if (now < this.#retryAt) return Promise.resolve(held && held.key === key && held.expiresAt > now ? held.token : "");
    this.#minting ??= this.#mint(repo, also, key).finally(() => {
      this.#minting = undefined;
    });
    return this.#minting;
  }

  /** Every read-only token this isolate held, for redaction. */
  secrets(): string[] {
    return [...this.#seen];
  }

  /** Forget the token held (its turn ended) and give it back for revocation; undefined when none is held. */
  take(): string | undefined {
    const token = this.#held?.token;
    this.#held = undefined;
    this.#retryAt = 0;
    return token;
  }

  async #mint(repo: string, also: readonly string[], key: string): Promise<string> {
    try {
      const minted = await this.#deps.mint(repo, also);
      if (!minted.token) throw new Error("the token broker gave no token");
      this.#deps.secrets.add(minted.token);
      this.#seen.add(minted.token);
      const previous = this.#held?.token;
      const expiresAt = minted.expiresAt === undefined ? Number.NaN : Date.parse(minted.expiresAt);
      this.#held = { key, token: minted.token, expiresAt: Number.isNaN(expiresAt) ? this.#deps.now() + INSTALLATION_TOKEN_LIFETIME_MS : expiresAt };
      this.#deps.log(`token:${this.#deps.kind ?? "read-only"}`, { expiresAt: minted.expiresAt });
      if (previous && previous !== minted.token) this.#deps.retired?.(previous);
      return minted.token;
    } catch (error) {
      this.#retryAt = this.#deps.now() + TOKEN_REFRESH_RETRY_MS;
      this.#deps.log(this.#deps.kind ? `github:${this.#deps.kind}-token-failed` : "github:read-token-failed", { error: error instanceof Error ? error.message : String(error) });
      return "";
    }
  }
}
