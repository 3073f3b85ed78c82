/**
 * ALLOWED_REPOS: the repositories agent-think may work on, as the operator
 * lists them: `owner/name` entries separated by commas, compared without
 * case. The webhook app ignores a delivery from any other repository and its
 * token broker mints for none (ingress/src/config.ts); the agent Worker
 * refuses to dispatch or continue a run on one (src/service.ts). Pure.
 */

/** The listed repositories, lowercase; or the entry that is not `owner/name`. */
export function readAllowedRepos(value: string): { ok: true; repos: ReadonlySet<string> } | { ok: false; bad: string } {
  const repos = value
    .split(",")
    .map((repo) => repo.trim().toLowerCase())
    .filter((repo) => repo !== "");
  const bad = repos.find((repo) => !/^[^/\s]+\/[^/\s]+$/.test(repo));
  return bad === undefined ? { ok: true, repos: new Set(repos) } : { ok: false, bad };
}

/** What ALLOWED_REPOS must be, for an error naming it. */
export const ALLOWED_REPOS_SHAPE = "must be a comma-separated list of owner/name";
