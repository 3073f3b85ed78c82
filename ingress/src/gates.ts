/**
 * Who may start a run: only a person with write-level standing on the
 * repository (author_association OWNER, MEMBER or COLLABORATOR), never a
 * bot. The App's own comments (BOT_LOGIN) are refused first, so the bot's
 * reports, which may quote the instruction, can never trigger another run;
 * any other `[bot]` login or Bot account is refused too, because a bot
 * cannot be held to account for what it asks the agent to do.
 *
 * Pure. The repository allowlist is in config.ts; this looks at the commenter.
 */
import type { Commenter } from "./payload";

export const TRUSTED_ASSOCIATIONS: ReadonlySet<string> = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

export type CommenterGate = { ok: true; login: string } | { ok: false; reason: "own_bot" | "bot" | "not_trusted" };

export function gateCommenter(user: Commenter | null, association: string, botLogin: string): CommenterGate {
  if (user === null) return { ok: false, reason: "not_trusted" };
  const login = user.login.toLowerCase();
  if (botLogin !== "" && login === botLogin) return { ok: false, reason: "own_bot" };
  if (user.type === "Bot" || login.endsWith("[bot]")) return { ok: false, reason: "bot" };
  if (!TRUSTED_ASSOCIATIONS.has(association)) return { ok: false, reason: "not_trusted" };
  return { ok: true, login: user.login };
}
