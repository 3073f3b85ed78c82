/**
 * What the closing comment says for each way a run ends (`closingText`): the
 * line to the requester, the result or how the run ended, and the footer
 * with the run's figures. Model text in it is neutralized and the whole fits
 * GitHub's limit (docs/reporting.md, "The closing comment"). Pure. Used by
 * notices.ts (closingNotice); the eval harness reads `OUTCOME_HEADINGS`.
 */
import { setupCouldNotRun, setupFailureLine, type BudgetLimit, type RunEnding, type SetupFailure } from "../run/ending";
import { MAX_LOGIN_CHARS } from "../shared/repo";
import { cutText, fitMessage, MAX_NOTICE_TEXT_CHARS } from "./body-cap";
import { blockPart, continueHow, formatDuration, oneLine, quoteModelText, reproductionText } from "./message-parts";
import { codeBlock, codeSpan, neutralize } from "./neutralize";
import type { RunRef } from "./run-ref";
import { linkPolicy } from "./run-ref";
import { resultText } from "./result-text";
import type { BlockedRequest } from "../shared/command-center";
import { formatCost } from "../shared/pricing";

export { OUTCOME_HEADINGS } from "./outcome-headings";

const MAX_ERROR_CHARS = 500;
const MAX_CANCEL_REASON_CHARS = 300;

/**
 * Today's signup rule for a login: letters, digits and single hyphens, not
 * first or last. Stricter than what a dispatch accepts (shared/repo.ts):
 * a login outside it could be read by GitHub's mention parser as a
 * different, shorter account (`@mona-cat_octo` as `@mona-cat`), and a bot
 * (`dependabot[bot]`) is not notified by a mention at all.
 */
const MENTIONABLE_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9]))*$/;

/** `@login` when the requester may be mentioned, else null (no login, a bot, any other shape): then the message names no one. */
export function requesterMention(login: string | undefined): string | null {
  if (!login || login.length > MAX_LOGIN_CHARS || !MENTIONABLE_LOGIN.test(login)) return null;
  return `@${login}`;
}

/** What a reporter-tier run's closing message says under its first line. */
export const REPORTER_TIER_LINE = "This was a reproduction asked for by the issue's author (reporter tier): nothing was pushed.";

/** How many failed checks a CI follow-up's closing line names before "and N more". */
const CI_CHECKS_NAMED = 3;

/** What a CI follow-up's closing message says under its first line: which head's checks failed and which, as code. */
export function ciFollowUpLine(ci: NonNullable<RunRef["ci"]>): string {
  const named = ci.checks.slice(0, CI_CHECKS_NAMED).map((name) => codeSpan(cutText(oneLine(name), 100)));
  const more = ci.checks.length > CI_CHECKS_NAMED ? ` and ${ci.checks.length - CI_CHECKS_NAMED} more` : "";
  const checks = named.length ? ` (${named.join(", ")}${more})` : "";
  return `This was a CI follow-up: the checks that failed on ${codeSpan(ci.headSha.slice(0, 7))}${checks} started it.`;
}

/**
 * The closing message's first line and its blank line: to the requester, and
 * for a continuation where it came from, then for a reporter-tier run that
 * it was one, and for a CI follow-up what started it; none when nothing applies.
 */
function openingLines(run: RunRef): string[] {
  const mention = requesterMention(run.requestedBy);
  const where = run.continuedFrom === "github" ? "GitHub" : "the dashboard";
  const line = run.continued ? (mention ? `${mention} — continued from ${where}.` : `Continued from ${where}.`) : mention;
  const lines = [...(line ? [line] : []), ...(run.tier === "reporter" ? [REPORTER_TIER_LINE] : []), ...(run.ci ? [ciFollowUpLine(run.ci)] : [])];
  return lines.length ? [...lines, ""] : [];
}

/**
 * The closing message for how the run ended, opening with a line to the
 * requester (`openingLines`). Model text in it (the result, the final
 * answer, an error) is neutralized: it notifies no one and links only to our
 * pages and the run's repository. It fits GitHub's limit, that line included.
 */
export function closingText(ending: RunEnding, run: RunRef): string {
  const text = closingBody(ending, run);
  // A result and a final answer fit their footer inside the size cap; the other messages are short, and get it when the run's figures are known.
  return ending.kind === "result" || ending.kind === "finished" || !run.stats ? text : `${text}\n\n${footer(run)}`;
}

/**
 * The message's last line: `agent-think · 3 minutes · 12 tool calls · $0.42 · thread`,
 * and for the scripted model that no model ran; when the egress gateway
 * refused requests, how many and to which hosts; when the run's sandbox was
 * given a private registry's credential, that registry's host. Without
 * figures, the thread link alone.
 */
function footer(run: RunRef): string {
  const stats = run.stats;
  const parts = ["agent-think"];
  if (stats) {
    if (stats.durationMs !== undefined) parts.push(formatDuration(stats.durationMs));
    parts.push(`${stats.toolCalls} tool call${stats.toolCalls === 1 ? "" : "s"}`);
    parts.push(stats.cost ? `cost ${formatCost(stats.cost)}` : "cost unknown");
    const blocked = blockedText(stats.blocked ?? []);
    if (blocked) parts.push(blocked);
    const privateSources = privateSourcesText(stats.privateSources ?? []);
    if (privateSources) parts.push(privateSources);
    if (stats.models?.length) parts.push(stats.models.join(" then "));
    if (stats.scripted) parts.push("scripted demonstration: no model ran");
  }
  return `<sub>${parts.join(" · ")} · [thread](${run.threadUrl})</sub>`;
}

/** Hosts named in the footer at most; the thread page lists every one. */
const FOOTER_BLOCKED_HOSTS = 3;

/** `2 requests blocked: evil.example` (hosts most refused first, as code: a host is not a link), or "" when none were. */
export function blockedText(blocked: readonly BlockedRequest[]): string {
  const total = blocked.reduce((sum, entry) => sum + entry.count, 0);
  if (total === 0) return "";
  const byHost = new Map<string, number>();
  for (const entry of blocked) byHost.set(entry.host, (byHost.get(entry.host) ?? 0) + entry.count);
  const hosts = [...byHost.entries()].sort((a, b) => b[1] - a[1]).map(([host]) => host);
  const named = hosts.slice(0, FOOTER_BLOCKED_HOSTS).map((host) => codeSpan(host)).join(", ");
  const more = hosts.length > FOOTER_BLOCKED_HOSTS ? ` and ${hosts.length - FOOTER_BLOCKED_HOSTS} more` : "";
  return `${total} request${total === 1 ? "" : "s"} blocked: ${named}${more}`;
}

/** Private registries named in the footer at most; the thread page lists every one. */
const FOOTER_PRIVATE_SOURCES = 3;

/** `private sources: \`npm.acme.example\`` (hosts only, as code, in the ledger's order), or "" when the run used none. */
export function privateSourcesText(hosts: readonly string[]): string {
  if (hosts.length === 0) return "";
  const named = hosts.slice(0, FOOTER_PRIVATE_SOURCES).map((host) => codeSpan(host)).join(", ");
  const more = hosts.length > FOOTER_PRIVATE_SOURCES ? ` and ${hosts.length - FOOTER_PRIVATE_SOURCES} more` : "";
  return `private source${hosts.length === 1 ? "" : "s"}: ${named}${more}`;
}

function closingBody(ending: RunEnding, run: RunRef): string {
  const policy = linkPolicy(run);
  const thread = `[the run's thread](${run.threadUrl})`;
  const opening = openingLines(run);
  switch (ending.kind) {
    case "result":
      return resultText(ending.result, policy, ending.proof, { opening, cutNotice: cutNotice(run), footer: footer(run) });
    case "finished":
      return fitMessage(
        ([text], cut) =>
          [
            ...opening,
            `**agent-think finished.**`,
            "",
            text || "_The run ended without a report._",
            ...(ending.reproductionUrl ? ["", `**Reproduction:** ${reproductionText(ending.reproductionUrl, policy)}`] : []),
            "",
            `Details: ${thread}.`,
            ...(cut ? ["", cutNotice(run)] : []),
            ...(run.stats ? ["", footer(run)] : [])
          ].join("\n"),
        [blockPart(quoteModelText(ending.text), policy)],
        MAX_NOTICE_TEXT_CHARS
      );
    case "failed":
      return [
        ...opening,
        `❌ **agent-think could not finish this run.**`,
        "",
        `Last error: ${codeSpan(cutText(oneLine(ending.error), MAX_ERROR_CHARS))}`,
        "",
        `What it did so far is in ${thread}; ${continueHow(run, "may")}.`
      ].join("\n");
    case "interrupted":
      return [
        ...opening,
        `❌ **agent-think was interrupted and could not recover this run.**`,
        "",
        `What it did so far is in ${thread}; ${continueHow(run, "may")}.`
      ].join("\n");
    case "cancelled": {
      // Who stopped it is named, not pinged: they know.
      const reason = ending.reason ? neutralize(cutText(oneLine(ending.reason), MAX_CANCEL_REASON_CHARS), policy, { mode: "inline" }) : "";
      return [...opening, `⏹️ **agent-think stopped this run${reason ? ` (${reason})` : ""}.**`, "", `What it did before stopping is in ${thread}.`].join("\n");
    }
    case "setup-failed":
      return setupFailedText(ending.failure, opening, thread, continueHow(run, "then"));
    case "budget":
      return [
        ...opening,
        `⏸️ **agent-think stopped this run: ${budgetText(ending.limit)}.**`,
        "",
        `What it did so far is in ${thread}; an operator can continue it from the dashboard with a fresh budget.`
      ].join("\n");
  }
}

/** A setup output tail longer than this is cut from the front: its end says why it failed. */
const MAX_SETUP_OUTPUT_CHARS = 4_000;

/** The repository could not be prepared: which step, how it failed, its last output, and what to do. */
function setupFailedText(failure: SetupFailure, opening: string[], thread: string, then: string): string {
  const fix = setupCouldNotRun(failure)
    ? `The command never ran: its backend answered the error above (the container, not the repository). Fix that where agent-think runs, ${then}.`
    : failure.kind === "checkout"
      ? `Check that the App can read the repository (and the pull request's head), ${then}.`
      : `Fix ${codeSpan(failure.file)} (or what the step needs) on the default branch, ${then}.`;
  const details =
    failure.kind === "config"
      ? failure.errors.slice(0, 20).map((error) => `- ${codeSpan(cutText(oneLine(error), 300))}`)
      : failure.output.trim()
        ? ["Its last output:", "", codeBlock(tail(failure.output, MAX_SETUP_OUTPUT_CHARS))]
        : ["It printed nothing."];
  return [
    ...opening,
    `⚠️ **agent-think could not prepare the repository: ${setupFailureLine(failure).replace(/`/g, "")}.**`,
    "",
    failure.kind === "step" && failure.durationMs !== undefined ? `${codeSpan(failure.command)} ran for ${formatDuration(failure.durationMs)}. The model did not start.` : "The model did not start.",
    "",
    ...details,
    "",
    `${fix} Details: ${thread}.`
  ].join("\n");
}

/** The last `max` characters of `text`, from a line start where one is near. */
function tail(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(text.length - max);
  const newline = cut.indexOf("\n");
  return `…\n${newline >= 0 && newline < 200 ? cut.slice(newline + 1) : cut}`;
}

function cutNotice(run: RunRef): string {
  return `✂️ _This comment was cut to fit GitHub's size limit. The full text is in [the run's thread](${run.threadUrl})._`;
}

function budgetText(limit: BudgetLimit): string {
  switch (limit.kind) {
    case "tokens":
      return `it used its token budget (${limit.used.toLocaleString("en-US")} of ${limit.budget.toLocaleString("en-US")} tokens) before finishing`;
    case "cost":
      return `it spent its budget ($${limit.used.toFixed(2)} of $${limit.budget.toFixed(2)}) before finishing`;
    case "steps":
      return `it reached the step cap (${limit.steps} steps) before finishing`;
  }
}
