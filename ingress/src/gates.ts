/**
 * Who may start a run: a person GitHub says may push to the repository,
 * never a bot. The App's own comments are refused first, so its reports
 * can never trigger a run; any other bot is refused too. Every person's
 * permission is asked of GitHub (permission.ts) and `gatePermission`
 * decides on it; the payload's author_association decides nothing, so
 * `gateCommenter` does not take it. Pure. The repository allowlist is in
 * config.ts. Why: docs/ingress.md, "Who can start a run".
 */
import type { CollaboratorPermission } from "./permission";
import type { Commenter } from "./payload";

/**
 * The legacy base roles of GitHub's collaborator permission API that can
 * push: `admin`, and `write`, which is also what the `maintain` role and a
 * custom role built on write or maintain report (see permission.ts).
 */
export const PERMISSIONS_THAT_MAY_ASK: ReadonlySet<string> = new Set(["admin", "write"]);

export type RefusalReason = "own_bot" | "bot" | "not_trusted";

export type CommenterGate =
  /** A person: ask GitHub what they may do (permission.ts). */
  | { verdict: "ask_permission"; login: string }
  | { verdict: "refused"; reason: RefusalReason };

/** `botLogin`: the App's own bot login, lowercase, or "" when not known. */
export function gateCommenter(user: Commenter | null, botLogin: string): CommenterGate {
  if (user === null) return { verdict: "refused", reason: "not_trusted" };
  const login = user.login.toLowerCase();
  if (botLogin !== "" && login === botLogin) return { verdict: "refused", reason: "own_bot" };
  if (user.type === "Bot" || login.endsWith("[bot]")) return { verdict: "refused", reason: "bot" };
  return { verdict: "ask_permission", login: user.login };
}

export type PermissionGate = { ok: true } | { ok: false; reason: "not_collaborator" | "insufficient_permission" };

/** GitHub's answer about the commenter: write, maintain or admin may ask. */
export function gatePermission(answer: CollaboratorPermission): PermissionGate {
  if (answer === null) return { ok: false, reason: "not_collaborator" };
  if (!PERMISSIONS_THAT_MAY_ASK.has(answer.permission)) return { ok: false, reason: "insufficient_permission" };
  return { ok: true };
}
