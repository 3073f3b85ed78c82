/**
 * What a replayed case is, before anything is sent: the repository it runs
 * in on the GitHub target (`<owner>/agent-think-eval-<case id>`, the only
 * names the harness creates, writes to and deletes), and the issue as it
 * is opened there or on the stand-in, with no way back to the original
 * discussion (docs/eval.md, "Replays"). Pure.
 */
import type { EvalCase } from "./case";

/** Every repository the GitHub target creates is named this and the case's id. */
export const REPLAY_PREFIX = "agent-think-eval-";

/** A replay repository's description begins with this: the harness resets or deletes only a repository that says so. */
export const REPLAY_DESCRIPTION = "agent-think eval replay";

/** The repository a case replays in under `owner`. */
export function replayRepo(owner: string, caseId: string): string {
  return `${owner}/${REPLAY_PREFIX}${caseId}`;
}

/** Whether `name` (a repository's name, without its owner) is one a replay may have. */
export function isReplayName(name: string): boolean {
  return name.toLowerCase().startsWith(REPLAY_PREFIX) && name.length > REPLAY_PREFIX.length;
}

/** A replay repository's description: the marker, the case, and that it is deleted after. */
export function replayDescription(caseId: string): string {
  return `${REPLAY_DESCRIPTION} of case ${caseId}; the eval harness deletes it after the case`;
}

const REMOVED = "(link removed)";
const OWNER_REPO = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\\/[A-Za-z0-9._-]{1,100}";
/** An issue, pull request or discussion on github.com, as a URL (with what follows: a path, a comment's anchor, a query; not a sentence's last stop). */
const THREAD_URL = new RegExp(`https?:\\/\\/(?:www\\.)?github\\.com\\/${OWNER_REPO}\\/(?:issues|pull|pulls|discussions)\\/\\d+(?:[/#?](?:[\\w\\-/#?=&%~+.]*[\\w\\-/#=&%~+])?)?`, "gi");
/** A markdown link whose target is such a URL: its text stays. */
const THREAD_LINK = new RegExp(`\\[([^\\]\\n]*)\\]\\(\\s*${THREAD_URL.source}\\s*\\)`, "gi");
/** `owner/repo#123` and `owner/repo!123` (GitHub links both to that repository's thread). */
const THREAD_REFERENCE = new RegExp(`(^|[^\\w/.-])${OWNER_REPO}[#!]\\d+\\b`, "g");

/**
 * The issue as it is opened for a replay: the case's title and body, with
 * every link to a GitHub issue, pull request or discussion and every
 * `owner/repo#123` reference taken out (a markdown link keeps its text).
 * The original thread holds the maintainers' answer, and a reference from
 * the replay would also show up in that thread on GitHub. Nothing is added.
 */
export function replayedIssue(evalCase: EvalCase): { title: string; body: string } {
  return { title: withoutThreads(evalCase.issue.title), body: withoutThreads(evalCase.issue.body) };
}

export function withoutThreads(text: string): string {
  return text
    .replace(THREAD_LINK, (_all, label: string) => (label.trim() === "" ? REMOVED : label))
    .replace(THREAD_URL, REMOVED)
    .replace(THREAD_REFERENCE, (_all, before: string) => `${before}${REMOVED}`);
}
