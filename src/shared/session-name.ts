/**
 * Session names: one stable, readable Durable Object name per (repo, issue).
 *
 * Format: `<owner>-<name>-<issue>`, lowercased, with every hyphen inside the
 * owner or the repository name doubled. `cloudflare/agents#1859` is
 * `cloudflare-agents-1859`; `a-b/c#1` is `a--b-c-1` and `a/b-c#1` is
 * `a-b--c-1`, so two different issues never share a session. An Enterprise
 * Managed User's owner keeps its underscore (`octocat_acme/widgets#7` is
 * `octocat_acme-widgets-7`).
 *
 * Why that is injective: inside the owner every run of hyphens has even
 * length, and the owner does not end in a hyphen, so the first odd-length
 * run starts with the owner/name separator; the issue number has no
 * hyphens, so the last hyphen is the name/issue separator.
 *
 * A few accounts from before GitHub's current naming rule do end in hyphens
 * (`artur-`, src/shared/repo.ts). Their trailing hyphens are written as
 * dots instead (`artur-/x#1` is `artur.-x-1`): an owner never contains a
 * dot, so no other owner is spelled that way, and the owner part again ends
 * in something other than a hyphen. Every other owner's session is spelled
 * as it always was, so existing sessions keep their names.
 *
 * A reporter-tier run (the issue's author without write access) runs in a
 * session of its own beside the issue's, `<session>.reporter`: its own
 * ThinkAgent and WorkspaceAgent, so it shares no files, git state,
 * conversation, recorded check or egress identity with a maintainer's runs
 * (docs/security.md, "Every run its own trust domain"). A plain session
 * always ends in the issue number, so no plain session is spelled that way.
 *
 * The longest name (a 39-character owner, a 100-character name, a 16-digit
 * issue, the reporter suffix) stays under MAX_SESSION_NAME_CHARS. GitHub names are
 * case-insensitive, so `Foo/Bar#1` and `foo/bar#1` are one session.
 * `parseSessionName` inverts the mapping, which the tests check. Pure: used
 * by the entrypoint, the routes and the CLI.
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
