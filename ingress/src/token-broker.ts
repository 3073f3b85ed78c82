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

export type TokenBrokerErrorCode = "invalid_repo" | "invalid_access" | "not_allowed" | TokenMintError["code"] | AppIdentityError["code"];

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
  mint(repo: RepoRef, access: TokenAccess): Promise<RepoToken>;
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
  if (!isAllowedRepo(deps.config(), full)) throw refuse("not_allowed", `${full} is not in ALLOWED_REPOS`, { repo: full });
  let token: RepoToken;
  try {
    token = await deps.mint(parsed, access);
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
function accessOf(options: unknown): TokenAccess | null {
  if (options === undefined || options === null) return "write";
  if (typeof options !== "object") return null;
  const access = (options as { access?: unknown }).access;
  if (access === undefined) return "write";
  return access === "write" || access === "read" || access === "report" ? access : null;
}
