/**
 * CI_FIX_REPOS: the repositories whose `ci: { fix }` the operator accepts,
 * as ALLOWED_REPOS lists them (`owner/name`, commas, no case), or `*` for
 * every allowed one; empty accepts none. A CI follow-up pushes to the App's
 * branch, and that push runs the repository's workflows with whatever
 * secrets they hold (docs/security.md, CI secrets), so only the operator
 * can say yes. Both Workers read it: the webhook app starts no follow-up
 * elsewhere, and the agent Worker refuses one (src/service.ts). Pure.
 */
import { ALLOWED_REPOS_SHAPE, readAllowedRepos } from "./allowed-repos";

export type CiFixRepos = { kind: "all" } | { kind: "listed"; repos: ReadonlySet<string> } | { kind: "invalid"; error: string };

export function parseCiFixRepos(value: string | undefined): CiFixRepos {
  const text = (value ?? "").trim();
  if (text === "*") return { kind: "all" };
  const read = readAllowedRepos(text);
  if (!read.ok) return { kind: "invalid", error: `CI_FIX_REPOS ${ALLOWED_REPOS_SHAPE} (or "*"), and "${read.bad}" is not one` };
  return { kind: "listed", repos: read.repos };
}

/** Whether CI follow-ups may run on `repo` (a list that does not parse accepts none). */
export function ciFixAccepted(repo: string, value: string | undefined): boolean {
  const accepted = parseCiFixRepos(value);
  return accepted.kind === "all" || (accepted.kind === "listed" && accepted.repos.has(repo.toLowerCase()));
}
