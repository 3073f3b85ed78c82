/**
 * Session names: one stable, readable Durable Object name per (repo, issue, tier):
 * `<owner>-<name>-<issue>`, lowercased, every hyphen inside the owner or the name doubled, an
 * owner's trailing hyphens written as dots (`a-b/c#1` is `a--b-c-1`, `artur-/x#1` is
 * `artur.-x-1`); a reporter-tier run's session is `<session>.reporter`, with its own ThinkAgent
 * and WorkspaceAgent. Injective (why, and more examples: docs/contracts.md, "Session names"),
 * within MAX_SESSION_NAME_CHARS, case-insensitive as GitHub is; `parseSessionName` inverts it.
 * Pure: used by the entrypoint, the routes and the CLI.
 */
import { parseRepo, type RepoRef } from "./repo";
import { REPORTER_SESSION_SUFFIX } from "./reporter-session";

export type IssueRef = RepoRef & { issueNumber: number };
/** A session's trust tier: `reporter` for the issue's reporter session, absent for the issue's own (a maintainer's runs). */
export type SessionTier = "reporter";
export type SessionRef = IssueRef & { tier?: SessionTier };

export { REPORTER_SESSION_SUFFIX };

export const MAX_SESSION_NAME_CHARS = 300;

const escapeHyphens = (part: string) => part.toLowerCase().replaceAll("-", "--");

/** The owner's trailing hyphens become dots (only pre-2013 accounts have any); the rest is escaped as usual. */
function escapeOwner(owner: string): string {
  const trailing = /-+$/.exec(owner)?.[0].length ?? 0;
  return escapeHyphens(owner.slice(0, owner.length - trailing)) + ".".repeat(trailing);
}

function unescapeOwner(part: string): string | null {
  const trailing = /\.+$/.exec(part)?.[0].length ?? 0;
  const head = unescapeHyphens(part.slice(0, part.length - trailing));
  return head === null ? null : head + "-".repeat(trailing);
}

/** Halves every run of hyphens, or null when one is odd (not an escaped part). */
function unescapeHyphens(part: string): string | null {
  return [...part.matchAll(/-+/g)].every((run) => run[0].length % 2 === 0) ? part.replaceAll("--", "-") : null;
}

export function sessionName(repo: string, issueNumber: number, tier?: SessionTier): string {
  const ref = parseRepo(repo);
  if (!ref.ok) throw new TypeError(`repo: ${ref.reason}`);
  if (!Number.isSafeInteger(issueNumber) || issueNumber < 1) {
    throw new TypeError("issueNumber: must be a positive integer");
  }
  const issue = `${escapeOwner(ref.owner)}-${escapeHyphens(ref.name)}-${issueNumber}`;
  return tier === "reporter" ? `${issue}${REPORTER_SESSION_SUFFIX}` : issue;
}

/** Inverse of `sessionName` (owner and name come back lowercased; `tier` for a reporter session), or null. */
export function parseSessionName(session: string): SessionRef | null {
  if (session.endsWith(REPORTER_SESSION_SUFFIX)) {
    const issue = parseIssueSession(session.slice(0, -REPORTER_SESSION_SUFFIX.length));
    return issue && { ...issue, tier: "reporter" };
  }
  return parseIssueSession(session);
}

/** The tier a session's runs have: `reporter` for a reporter session, undefined for an issue's own (or a name that is no session). */
export function sessionTier(session: string): SessionTier | undefined {
  return parseSessionName(session)?.tier;
}

/** The issue's own session for any of its sessions (a reporter session's issue), or null. */
export function issueSessionOf(session: string): string | null {
  const ref = parseSessionName(session);
  return ref && sessionName(`${ref.owner}/${ref.name}`, ref.issueNumber);
}

/** The issue's reporter session for any of its sessions, or null. */
export function reporterSessionOf(session: string): string | null {
  const ref = parseSessionName(session);
  return ref && sessionName(`${ref.owner}/${ref.name}`, ref.issueNumber, "reporter");
}

function parseIssueSession(session: string): IssueRef | null {
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
  const owner = unescapeOwner(prefix.slice(0, separator));
  const name = unescapeHyphens(prefix.slice(separator + 1));
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
  return value.length <= MAX_SESSION_NAME_CHARS && parseSessionName(value) !== null;
}
