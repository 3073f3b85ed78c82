/**
 * The token broker's rule: an installation token only for a well-formed
 * repository on the allowlist that the App is installed on, scoped to that
 * repository alone, with the App's bot as GitHub names it; the agent Worker
 * calls it (AgentThinkTokenBroker, index.ts) so it never holds App
 * credentials. `access` picks write, read-only or "report" (comment and
 * react). Errors are TokenBrokerError naming the repository and the fix,
 * never a token or a malformed `repo`. docs/ingress.md, "Tokens".
 */
import type { BotIdentity } from "../../src/shared/dispatch";
import { parseRepo } from "../../src/shared/repo";
import { isAllowedRepo, type IngressConfig } from "./config";
import { TokenMintError, type RepoRef, type RepoToken, type TokenAccess } from "./github/app-client";
import { AppIdentityError } from "./github/app-identity";
import type { Logger } from "./log";

export type TokenBrokerErrorCode = "invalid_repo" | "invalid_access" | "invalid_repositories" | "not_allowed" | TokenMintError["code"] | AppIdentityError["code"];

/** What the broker answers: an installation token, its expiry, and the App's bot. */
export type BrokeredToken = RepoToken & { bot: BotIdentity };

export class TokenBrokerError extends Error {
  override readonly name = "TokenBrokerError";
  constructor(
    readonly code: TokenBrokerErrorCode,
    detail: string
  ) {
    // The prefix survives RPC, where the class and code do not.
    super(`agent-think-ingress token broker: ${detail}`);
  }
}

export type BrokerDeps = {
  config(): IngressConfig;
  /** `also`: other repositories' names (same owner) a read token also reads. */
  mint(repo: RepoRef, access: TokenAccess, also?: readonly string[]): Promise<RepoToken>;
  /** The App's bot (cached), asked with the token just minted. */
  identity(token: string): Promise<BotIdentity>;
  log: Logger;
};

export async function mintForRepo(repo: unknown, deps: BrokerDeps, options?: unknown): Promise<BrokeredToken> {
  const refuse = (code: TokenBrokerErrorCode, detail: string, fields: Record<string, unknown> = {}) => {
    deps.log("broker:refused", { code, ...fields });
    return new TokenBrokerError(code, detail);
  };
  const parsed = typeof repo === "string" ? parseRepo(repo) : null;
  // parseRepo's reason says what is wrong ('must be "owner/name"', "owner must be ..."): said once, after "repo".
  if (parsed === null) throw refuse("invalid_repo", 'repo must be a string "owner/name"');
  if (!parsed.ok) throw refuse("invalid_repo", `repo ${parsed.reason}`);
  const full = `${parsed.owner}/${parsed.name}`;
  const access = accessOf(options);
  if (access === null) throw refuse("invalid_access", 'options.access must be "write", "read" or "report"');
  const also = alsoOf(options, parsed.owner, access);
  if (also === null) {
    throw refuse("invalid_repositories", `options.repositories must be at most ${MAX_ALSO_READ} other repositories of ${parsed.owner}, as "owner/name", and only with access "read"`);
  }
  if (!isAllowedRepo(deps.config(), full)) throw refuse("not_allowed", `${full} is not in ALLOWED_REPOS`, { repo: full });
  let token: RepoToken;
  try {
    token = await deps.mint(parsed, access, also);
  } catch (error) {
    if (error instanceof TokenMintError) throw refuse(error.code, error.message, { repo: full });
    throw error;
  }
  deps.log.addSecret(token.token);
  let bot: BotIdentity;
  try {
    bot = await deps.identity(token.token);
  } catch (error) {
    if (error instanceof AppIdentityError) {
      throw refuse(error.code, `the GitHub App could not learn its own identity from GitHub: ${error.message}`, { repo: full });
    }
    throw error;
  }
  deps.log("broker:minted", { repo: full, access, expiresAt: token.expiresAt, bot: bot.login });
  return { token: token.token, expiresAt: token.expiresAt, bot };
}

/** `{ access: "read" }` or `{ access: "report" }` asks for that token; nothing, or `"write"`, for the bot's usual one; anything else is null. */
/** The most other repositories a read token may also read (src/run/registries.ts holds a config to the same). */
export const MAX_ALSO_READ = 10;

/**
 * `options.repositories`: other repositories of `owner` a read token also reads, as names, for
 * a `git` registry entry; only with access "read"; none when absent; null when malformed. They
 * need not be in ALLOWED_REPOS (nothing there is a run's); the App's installation bounds them.
 */
function alsoOf(options: unknown, owner: string, access: TokenAccess): string[] | null {
  const listed = options !== null && typeof options === "object" ? (options as { repositories?: unknown }).repositories : undefined;
  if (listed === undefined) return [];
  if (access !== "read" || !Array.isArray(listed) || listed.length > MAX_ALSO_READ) return null;
  const names: string[] = [];
  for (const item of listed) {
    const parsed = typeof item === "string" ? parseRepo(item) : null;
    if (!parsed?.ok || parsed.owner.toLowerCase() !== owner.toLowerCase()) return null;
    if (!names.includes(parsed.name)) names.push(parsed.name);
  }
  return names;
}

function accessOf(options: unknown): TokenAccess | null {
  if (options === undefined || options === null) return "write";
  if (typeof options !== "object") return null;
  const access = (options as { access?: unknown }).access;
  if (access === undefined) return "write";
  return access === "write" || access === "read" || access === "report" ? access : null;
}
