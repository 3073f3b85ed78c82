/**
 * Who the bot is: the GitHub App account a run's commits and comments are by, and the only
 * author whose comments a marker search trusts. In order: the run's own login and id (as the
 * webhook app or the token broker got them from GitHub); else BOT_LOGIN, a login only (the
 * container's identity script looks the id up); else, under LOCAL_DEV=1, `agent-think[bot]`;
 * else a BotIdentityError naming what is missing, never a quiet default (docs/containers.md).
 * A BOT_LOGIN that is not a bot login is an error naming it. Used by src/service.ts, ThinkAgent
 * and WorkspaceAgent. Pure: it reads the two variables it is given and asks GitHub nothing.
 */
import type { BotIdentity } from "../shared/dispatch";
import { checkBotLogin } from "../shared/repo";

/** The local GitHub stand-in's bot (scripts/lib/github-standin.ts): the identity of local dev only. */
export const DEFAULT_BOT_LOGIN = "agent-think[bot]";

/** The bot a run acts as: GitHub's login and, when known, the bot user's id. */
export type RunBot = { login: string; id?: number };

/** The configuration the identity may come from. */
export type BotConfig = { BOT_LOGIN?: string; LOCAL_DEV?: string };

export type BotResolution = { ok: true; bot: RunBot; source: "run" | "BOT_LOGIN" | "local-dev" } | { ok: false; error: string };

export const MISSING_BOT_ERROR =
  "the App's bot identity is missing: the webhook app sends it with each dispatch (bot: login and id); " +
  "to dispatch without it, set BOT_LOGIN to the App's bot login (<app-slug>[bot])";

/** Refused for want of an identity; `code` tells a caller this from any other failure. */
export class BotIdentityError extends Error {
  override readonly name = "BotIdentityError";
  readonly code = "bot_identity_missing";
}

/** The identity of a run whose stored identity is `run` (none: the configuration decides). */
export function resolveBot(run: BotIdentity | undefined, config: BotConfig): BotResolution {
  if (run) return { ok: true, bot: { login: run.login, id: run.id }, source: "run" };
  const configured = config.BOT_LOGIN ?? "";
  if (configured !== "") {
    const checked = checkBotLogin(configured);
    if (!checked.ok) return { ok: false, error: `BOT_LOGIN ${checked.reason}, such as agent-think[bot]` };
    return { ok: true, bot: { login: configured }, source: "BOT_LOGIN" };
  }
  if (config.LOCAL_DEV === "1") return { ok: true, bot: { login: DEFAULT_BOT_LOGIN }, source: "local-dev" };
  return { ok: false, error: MISSING_BOT_ERROR };
}

/** The same, throwing a BotIdentityError that says what is missing. */
export function requireBot(run: BotIdentity | undefined, config: BotConfig): RunBot {
  const resolved = resolveBot(run, config);
  if (!resolved.ok) throw new BotIdentityError(resolved.error);
  return resolved.bot;
}

/**
 * Refuse a run that holds GitHub access (a non-empty token) but could not
 * say who it is. An empty token (local dev, no GitHub access) commits and
 * posts nothing as the App, so it needs no identity.
 */
export function assertBotFor(token: string, run: BotIdentity | undefined, config: BotConfig): void {
  if (token !== "") requireBot(run, config);
}
