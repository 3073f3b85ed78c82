/**
 * Whether a run may be on a repository: the agent Worker's own ALLOWED_REPOS (parsed by
 * src/shared/allowed-repos.ts), the second wall behind the webhook app's, for every other way in
 * (another caller of the AgentThink entrypoint, Continue on a repository since dropped). A
 * non-empty list holds everywhere; an empty one refuses every repository except under
 * LOCAL_DEV=1, where it allows any; one that does not parse refuses all, naming the variable.
 * Used by src/service.ts and src/health/allowed-repos.ts; docs/security.md. Pure.
 */
import { ALLOWED_REPOS_SHAPE, readAllowedRepos } from "../shared/allowed-repos";

/** The configuration the allowlist comes from. */
export type AllowlistConfig = { ALLOWED_REPOS?: string; LOCAL_DEV?: string };

export type RepoAllowlist =
  /** Only these repositories, lowercase. */
  | { kind: "listed"; repos: ReadonlySet<string> }
  /** Empty under LOCAL_DEV=1: any repository. */
  | { kind: "any" }
  /** Empty outside local dev: none. */
  | { kind: "none" }
  /** ALLOWED_REPOS does not parse: none, and the error says why. */
  | { kind: "invalid"; error: string };

/** A repository outside ALLOWED_REPOS; `code` tells a caller this from any other refusal. */
export class RepoNotAllowedError extends Error {
  override readonly name = "RepoNotAllowedError";
  readonly code = "repo_not_allowed";
}

/** Is `error` a repository refused by the list (by its code, so an error that crossed RPC counts too)? */
export function isRepoNotAllowed(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "repo_not_allowed";
}

/** ALLOWED_REPOS that is not a list of `owner/name`: a configuration error, like a model that cannot work. */
export class AllowedReposConfigError extends Error {
  override readonly name = "AllowedReposConfigError";
  readonly code = "bad_allowed_repos";
}

export function resolveAllowlist(config: AllowlistConfig): RepoAllowlist {
  const read = readAllowedRepos(config.ALLOWED_REPOS ?? "");
  if (!read.ok) return { kind: "invalid", error: `ALLOWED_REPOS ${ALLOWED_REPOS_SHAPE}, and "${read.bad}" is not one` };
  if (read.repos.size > 0) return { kind: "listed", repos: read.repos };
  return config.LOCAL_DEV === "1" ? { kind: "any" } : { kind: "none" };
}

/** Refuse `repo` (an `owner/name` already parsed) unless ALLOWED_REPOS allows it; GitHub names compare without case. */
export function assertRepoAllowed(repo: string, config: AllowlistConfig): void {
  const allowlist = resolveAllowlist(config);
  switch (allowlist.kind) {
    case "any":
      return;
    case "listed":
      if (allowlist.repos.has(repo.toLowerCase())) return;
      throw new RepoNotAllowedError(`${repo} is not in ALLOWED_REPOS: the agent Worker runs only on the repositories it lists`);
    case "none":
      throw new RepoNotAllowedError(
        `${repo} is not in ALLOWED_REPOS, which is empty: outside LOCAL_DEV=1 the agent Worker refuses every repository until ALLOWED_REPOS lists it`
      );
    case "invalid":
      throw new AllowedReposConfigError(`${allowlist.error}: every dispatch and Continue is refused until it is fixed`);
  }
}
