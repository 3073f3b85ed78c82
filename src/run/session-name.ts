/**
 * Session names: one stable, readable Durable Object name per (repo, issue).
 *
 * Format: `<owner>-<name>-<issue>`, lowercased, with every hyphen inside the
 * owner or the repository name doubled. `cloudflare/agents#1859` is
 * `cloudflare-agents-1859`; `a-b/c#1` is `a--b-c-1` and `a/b-c#1` is
 * `a-b--c-1`, so two different issues never share a session.
 *
 * Why that is injective: an owner never ends in a hyphen (GitHub's rule), so
 * inside the owner every run of hyphens has even length and the first
 * odd-length run starts with the owner/name separator; the issue number has
 * no hyphens, so the last hyphen is the name/issue separator.
 * `parseSessionName` inverts the mapping, which the tests check.
 *
 * GitHub names are case-insensitive, so `Foo/Bar#1` and `foo/bar#1` are one
 * session. Pure: used by the entrypoint, the routes and the CLI.
 */
import { parseRepo, type RepoRef } from "../shared/repo";

export type IssueRef = RepoRef & { issueNumber: number };

const escapeHyphens = (part: string) => part.toLowerCase().replaceAll("-", "--");

export function sessionName(repo: string, issueNumber: number): string {
  const ref = parseRepo(repo);
  if (!ref.ok) throw new TypeError(`repo: ${ref.reason}`);
  if (!Number.isSafeInteger(issueNumber) || issueNumber < 1) {
    throw new TypeError("issueNumber: must be a positive integer");
  }
  return `${escapeHyphens(ref.owner)}-${escapeHyphens(ref.name)}-${issueNumber}`;
}

/** Inverse of `sessionName` (owner and name come back lowercased), or null. */
export function parseSessionName(session: string): IssueRef | null {
  const issueMatch = /-([1-9][0-9]*)$/.exec(session);
  if (!issueMatch) return null;
  const prefix = session.slice(0, issueMatch.index);
  // The first odd-length run of hyphens begins with the owner/name separator.
  let separator = -1;
  for (const run of prefix.matchAll(/-+/g)) {
    if (run[0].length % 2 === 1) {
      separator = run.index;
      break;
    }
  }
  if (separator < 0) return null;
  const unescape = (part: string) =>
    [...part.matchAll(/-+/g)].every((run) => run[0].length % 2 === 0) ? part.replaceAll("--", "-") : null;
  const owner = unescape(prefix.slice(0, separator));
  const name = unescape(prefix.slice(separator + 1));
  if (owner === null || name === null) return null;
  const repo = parseRepo(`${owner}/${name}`);
  if (!repo.ok) return null;
  const issueNumber = Number(issueMatch[1]);
  if (!Number.isSafeInteger(issueNumber)) return null;
  // Only canonical spellings are session names.
  if (sessionName(`${owner}/${name}`, issueNumber) !== session) return null;
  return { owner: repo.owner, name: repo.name, issueNumber };
}

/** A cheap syntactic check for names arriving in URLs and RPC inputs. */
export function isSessionName(value: string): boolean {
  return value.length <= 300 && parseSessionName(value) !== null;
}
