/**
 * GitHub repository references, checked by GitHub's own naming rules:
 * an owner is 1–39 letters, digits or single hyphens, neither first nor last;
 * a repository name is 1–100 letters, digits, `.`, `-` or `_`, and is not
 * `.` or `..`. Pure; shared by the worker, the CLI and the tests.
 */
export type RepoRef = { owner: string; name: string };

export const OWNER_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
export const REPO_NAME_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;

export type RepoParse = ({ ok: true } & RepoRef) | { ok: false; reason: string };

export function parseRepo(value: string): RepoParse {
  const parts = value.split("/");
  if (parts.length !== 2) return { ok: false, reason: 'must be "owner/name"' };
  const [owner, name] = parts as [string, string];
  if (!OWNER_PATTERN.test(owner)) {
    return { ok: false, reason: "owner must be 1-39 letters, digits or single inner hyphens" };
  }
  if (!REPO_NAME_PATTERN.test(name) || name === "." || name === "..") {
    return { ok: false, reason: "name must be 1-100 letters, digits, '.', '-' or '_'" };
  }
  return { ok: true, owner, name };
}
