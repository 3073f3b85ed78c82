/**
 * What a test, the CLI or the environment hands the GitHub stand-in,
 * checked before it reaches the state: a pull request, file, repository,
 * branch, branch rules or git directory to seed (or what is wrong with it),
 * and GITHUB_STANDIN_PERMISSIONS.
 */
import { existsSync } from "node:fs";
import { ROLE_NAMES, type RoleName } from "./github-standin-accounts";
import type { FileSeed } from "./github-standin-contents";
import type { PullSeed } from "./github-standin-pulls";
import type { RepoSeed } from "./github-standin-repos";
import type { BranchSeed, GitSeed, RulesSeed } from "./github-standin-branches";

/** "mallory=read, bob=admin" → { mallory: "read", bob: "admin" }; throws naming a bad entry. */
export function parsePermissions(text: string): Record<string, RoleName> {
  const permissions: Record<string, RoleName> = {};
  for (const entry of text.split(",").map((part) => part.trim()).filter(Boolean)) {
    const [login, role] = entry.split("=").map((part) => part.trim());
    if (!login || !ROLE_NAMES.includes(role as RoleName)) {
      throw new Error(`GITHUB_STANDIN_PERMISSIONS: "${entry}" is not login=role (role one of ${ROLE_NAMES.join(", ")})`);
    }
    permissions[login] = role as RoleName;
  }
  return permissions;
}

const REPO_NAME = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** A pull request to seed, or what is wrong with it. */
export function pullSeed(value: unknown): PullSeed | string {
  if (typeof value !== "object" || value === null) return "a pull request is a JSON object: { repo, number, head?, base?, user?, state?, title?, body?, draft? }";
  const seed = value as Record<string, unknown>;
  if (typeof seed.repo !== "string" || !REPO_NAME.test(seed.repo)) return "repo must be owner/name";
  if (typeof seed.number !== "number" || !Number.isSafeInteger(seed.number) || seed.number < 1) return "number must be a positive whole number";
  const head = optionalObject(seed.head);
  if (head === null) return "head must be an object { repo?, ref?, sha? }";
  if (head.repo !== undefined && (typeof head.repo !== "string" || !REPO_NAME.test(head.repo))) return "head.repo must be owner/name";
  for (const field of ["ref", "sha"] as const) if (head[field] !== undefined && (typeof head[field] !== "string" || head[field] === "")) return `head.${field} must be a non-empty string`;
  const base = optionalObject(seed.base);
  if (base === null) return "base must be an object { ref?, sha? }";
  for (const field of ["ref", "sha"] as const) if (base[field] !== undefined && (typeof base[field] !== "string" || base[field] === "")) return `base.${field} must be a non-empty string`;
  const user = optionalObject(seed.user);
  if (user === null) return "user must be an object { login, type? }";
  if (seed.user !== undefined && (typeof user.login !== "string" || user.login === "")) return "user.login must be a non-empty string";
  if (user.type !== undefined && user.type !== "User" && user.type !== "Bot") return 'user.type must be "User" or "Bot"';
  if (seed.state !== undefined && seed.state !== "open" && seed.state !== "closed") return 'state must be "open" or "closed"';
  if (seed.title !== undefined && typeof seed.title !== "string") return "title must be a string";
  if (seed.body !== undefined && seed.body !== null && typeof seed.body !== "string") return "body must be a string or null";
  if (seed.draft !== undefined && typeof seed.draft !== "boolean") return "draft must be a boolean";
  return seed as PullSeed;
}

/** A file to seed, or what is wrong with it. */
export function fileSeed(value: unknown): FileSeed | string {
  if (typeof value !== "object" || value === null) return "a file is a JSON object: { repo, path, ref?, content }";
  const seed = value as Record<string, unknown>;
  if (typeof seed.repo !== "string" || !REPO_NAME.test(seed.repo)) return "repo must be owner/name";
  if (typeof seed.path !== "string" || seed.path.replace(/^\/+|\/+$/g, "") === "") return "path must be a file's path in the repository";
  if (seed.ref !== undefined && (typeof seed.ref !== "string" || seed.ref === "")) return "ref must be a non-empty string";
  if (typeof seed.content !== "string") return "content must be a string (the file's text)";
  return seed as FileSeed;
}

/** A repository's settings to seed, or what is wrong with them. */
export function repoSeed(value: unknown): RepoSeed | string {
  if (typeof value !== "object" || value === null) return "a repository is a JSON object: { repo, defaultBranch?, private? }";
  const seed = value as Record<string, unknown>;
  if (typeof seed.repo !== "string" || !REPO_NAME.test(seed.repo)) return "repo must be owner/name";
  if (seed.defaultBranch !== undefined && (typeof seed.defaultBranch !== "string" || seed.defaultBranch === "")) return "defaultBranch must be a non-empty string";
  if (seed.private !== undefined && typeof seed.private !== "boolean") return "private must be a boolean";
  return seed as RepoSeed;
}

const BRANCH_NAME = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,250}$/;

/** A branch's head to seed, or what is wrong with it. */
export function branchSeed(value: unknown): BranchSeed | string {
  if (typeof value !== "object" || value === null) return "a branch is a JSON object: { repo, branch, sha }";
  const seed = value as Record<string, unknown>;
  if (typeof seed.repo !== "string" || !REPO_NAME.test(seed.repo)) return "repo must be owner/name";
  if (typeof seed.branch !== "string" || !BRANCH_NAME.test(seed.branch)) return "branch must be a branch name";
  if (typeof seed.sha !== "string" || !/^[0-9a-f]{40}$/.test(seed.sha)) return "sha must be a commit id (40 hexadecimal digits)";
  return seed as BranchSeed;
}

/** Rules to seed, or what is wrong with them. */
export function rulesSeed(value: unknown): RulesSeed | string {
  if (typeof value !== "object" || value === null) return "rules are a JSON object: { repo, branches?, rules: [{ type }] }";
  const seed = value as Record<string, unknown>;
  if (typeof seed.repo !== "string" || !REPO_NAME.test(seed.repo)) return "repo must be owner/name";
  if (seed.branches !== undefined && (!Array.isArray(seed.branches) || !seed.branches.every((branch) => typeof branch === "string" && BRANCH_NAME.test(branch)))) return "branches must be a list of branch names";
  if (!Array.isArray(seed.rules) || !seed.rules.every((rule) => typeof rule === "object" && rule !== null && typeof (rule as { type?: unknown }).type === "string")) return "rules must be a list of { type, parameters? }";
  return seed as RulesSeed;
}

/** A git directory to seed, or what is wrong with it. */
export function gitSeed(value: unknown): GitSeed | string {
  if (typeof value !== "object" || value === null) return "a git directory is a JSON object: { repo, dir }";
  const seed = value as Record<string, unknown>;
  if (typeof seed.repo !== "string" || !REPO_NAME.test(seed.repo)) return "repo must be owner/name";
  if (typeof seed.dir !== "string" || !seed.dir.startsWith("/") || !existsSync(seed.dir)) return "dir must be the absolute path of a bare git repository";
  return seed as GitSeed;
}

/** An optional object field: {} when absent, null when not an object. */
function optionalObject(value: unknown): Record<string, unknown> | null {
  if (value === undefined) return {};
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
