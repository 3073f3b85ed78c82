/**
 * The reporter tier's gate: with `reporters: reproduce` in the repository's
 * `.github/agent-think.yml`, the issue's own author may ask for a
 * reproduction without write access, once per issue per UTC day. Decides,
 * from what the webhook route already has, whether a commenter the
 * permission gate refused is a reporter, and what they get: a reporter run
 * or a polite refusal. start-run.ts takes the day's claims. Pure: no KV, no
 * GitHub. docs/ingress.md, "The reporter tier".
 */
import { parseRepoConfig } from "../../src/run/repo-config";
import { dayOf } from "../../src/shared/reporter-budget";
import type { RepoFile } from "./repo-triggers";
import type { Trigger } from "./trigger";

/**
 * `reproduce`, `reproduce this`, `reproduce this issue`, `please reproduce …`,
 * on the instruction's first line, in any case; anything else (`open a PR
 * fixing this`, `reproduce and fix this`) is not a reproduction request.
 */
export function isReproduceRequest(instruction: string): boolean {
  const line = (instruction.split(/\r?\n/, 1)[0] ?? "").trim().toLowerCase().replace(/[.!]+$/, "");
  if (/^please\s+reproduce(\s+(this(\s+issue)?|it|the\s+(bug|issue)))?(\s*,?\s*please)?$/.test(line)) return true;
  return /^reproduce(\s+(this(\s+issue)?|it|the\s+(bug|issue)))?(\s*,?\s*please)?$/.test(line);
}

/**
 * The comment is on an issue (not a pull request's conversation, not a
 * review or a review comment) and its author is the issue's: same login and,
 * where the payload names both, same user id.
 */
export function isIssueAuthor(trigger: Trigger): boolean {
  if (trigger.ref.kind !== "comment" || trigger.pullRequest !== undefined) return false;
  const author = trigger.issueAuthor;
  const commenter = trigger.user;
  if (author == null || commenter === null) return false;
  if (author.login.toLowerCase() !== commenter.login.toLowerCase()) return false;
  return author.id === undefined || commenter.id === undefined || author.id === commenter.id;
}

/** Whether the repository offers the tier: `reporters: reproduce` in a file that parses; no file, or one that does not parse, is off. */
export function reportersOn(file: RepoFile): boolean {
  if (!file.found || "tooLargeBytes" in file) return false;
  const parsed = parseRepoConfig(file.text);
  return parsed.ok && parsed.config.reporters === "reproduce";
}

/** Why the issue's author without write access gets no run: the refusal's marker reason. */
export type ReporterRefusalReason = "reporters_off" | "not_a_reproduction" | "reporter_daily_limit";

export type ReporterDecision = { ok: true } | { ok: false; reason: Exclude<ReporterRefusalReason, "reporter_daily_limit"> };

/** For the issue's author without write access: a reporter run (still subject to the daily claim), or why not. */
export function decideReporter(instruction: string, reporters: boolean): ReporterDecision {
  if (!reporters) return { ok: false, reason: "reporters_off" };
  if (!isReproduceRequest(instruction)) return { ok: false, reason: "not_a_reproduction" };
  return { ok: true };
}

/** The polite refusal, the same for every reason: short, neutral, no links, mentioning only who asked. */
export const reporterRefusalBody = (login: string) =>
  `@${login} thanks — on this repository the bot can only reproduce an issue for its author, once a day; a maintainer can ask for more.`;

/** The comment when REPORTER_DAILY_BUDGET is spent: once per repository per day. */
export const reporterBudgetBody = (login: string) =>
  `@${login} thanks — reporter runs on this repository are paused for today (UTC); a maintainer can still ask, and reproductions can be asked again tomorrow.`;

/** The comment when the repository has its most reporter runs going: once per issue per day, and the day's run is given back. */
export const reporterBusyBody = (login: string) =>
  `@${login} thanks — other reproductions are running on this repository right now; ask again in a little while.`;

const issueKey = (repo: { owner: string; name: string }, issueNumber: number, at: number) =>
  `${dayOf(at)}:${repo.owner}/${repo.name}#${issueNumber}`.toLowerCase();

/**
 * CommentClaim names (no comment has them), each a UTC day's first-wins: the
 * issue's one reporter run (given back when the agent is busy), its one
 * refusal comment, its one busy notice, the repository's one budget notice.
 */
export const reporterRunClaim = (repo: { owner: string; name: string }, issueNumber: number, at: number) => `reporter-run:${issueKey(repo, issueNumber, at)}`;
export const reporterNoticeClaim = (repo: { owner: string; name: string }, issueNumber: number, at: number) => `reporter-notice:${issueKey(repo, issueNumber, at)}`;
export const reporterBusyNoticeClaim = (repo: { owner: string; name: string }, issueNumber: number, at: number) => `reporter-busy-notice:${issueKey(repo, issueNumber, at)}`;
export const reporterBudgetNoticeClaim = (repo: { owner: string; name: string }, at: number) => `reporter-budget-notice:${dayOf(at)}:${repo.owner}/${repo.name}`.toLowerCase();
/** Longer than the day each claim names, so the day's claim is still there at 23:59 UTC. */
export const REPORTER_CLAIM_RETENTION_MS = 2 * 24 * 60 * 60 * 1000;
