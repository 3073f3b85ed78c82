/**
 * What a run says on its issue, and when. Pure.
 *
 * A run talks to the issue at most three ways: 🚀 on the triggering comment
 * when its turn starts, one stale notice if it goes quiet, and exactly one
 * closing message when it ends: the skill's result, or a notice saying how
 * it ended (error, interrupted, cancelled, budget exhausted) with the live
 * thread link. Each message is keyed by its submission and kind, and each
 * comment carries a hidden marker with that key, so a comment whose response
 * was lost is found again instead of posted twice.
 *
 * Good citizenship: what a model wrote is neutralized (neutralize.ts: no
 * mention, no cross-reference to another repository, no link but to our
 * pages and the run's repository), steps are code, a pull request link must
 * be one of the run's repository and a reproduction one of our pages
 * (link-policy.ts), and every comment fits GitHub's size limit, cut longest
 * part first with a pointer to the thread (body-cap.ts).
 *
 * One mention per run, ours: the closing message's first line names the
 * requester (`@alice`), so the person who asked is notified of the answer; a
 * continuation's says where it was continued from (the dashboard or
 * GitHub), naming no one who continued it. Only a login that a mention cannot misread is mentioned (today's
 * signup rule, `requesterMention`); a bot, an Enterprise Managed User or an
 * account from before that rule gets no name. Nothing else we write
 * mentions anyone: the stale notice does not (the closing message notifies
 * the requester; one notification per run is enough), and the one who
 * stopped a run is named in code.
 */
import { setupCouldNotRun, setupFailureLine, type BudgetLimit, type RunEnding, type RunResult, type SetupFailure } from "../run/ending";
import { MAX_LOGIN_CHARS } from "../shared/repo";
import type { RunTier } from "../shared/dispatch";
import { capBody, cutText, fitMessage, MAX_NOTICE_TEXT_CHARS, type CutPart } from "./body-cap";
import { pullRequestLink, reproductionLink, type LinkPolicy } from "./link-policy";
import { codeBlock, codeSpan, neutralize } from "./neutralize";
import { proofLine, proofSection } from "./proof-text";
import type { ProofRecord } from "../run/fix-proof";
import type { BlockedRequest, Cost } from "../shared/command-center";
import { OUTCOME_LABELS, RESULT_OUTCOMES } from "../shared/outcomes";
import { formatCost } from "../shared/pricing";

/**
 * `progress` is the live progress comment's creation, `progress-edit` its
 * latest throttled edit (one entry, its body replaced as the run goes), and
 * `progress-final` its last edit, the pointer to the closing comment
 * (progress.ts).
 */
export type NoticeKind = "rocket" | "closing" | "stale" | "progress" | "progress-edit" | "progress-final";

/** One message for the issue, durable until it is delivered. */
export type Notice = {
  /** `<submissionId>:<kind>`: one of each kind per submission. */
  id: string;
  kind: NoticeKind;
  submissionId: string;
  repo: string;
  issueNumber: number;
  /** The issue comment to react on (rocket only). */
  commentId?: number;
  /** The pull request review comment to react on instead (rocket only): GitHub's pulls/comments reactions. */
  reviewCommentId?: number;
  /** progress-edit: the least time between two edits of the progress comment. */
  minIntervalMs?: number;
  /** progress-final: the run's thread, linked when the closing comment could not be posted. */
  threadUrl?: string;
  /** The comment text (closing and stale only), marker included. */
  body?: string;
};

export const noticeId = (submissionId: string, kind: NoticeKind) => `${submissionId}:${kind}`;

/** The hidden line that identifies our comment for one submission and kind. */
export const noticeMarker = (id: string) => `<!-- agent-think:${id} -->`;

export type RunRef = {
  repo: string;
  issueNumber: number;
  submissionId: string;
  threadUrl: string;
  /** Our own pages (PUBLIC_BASE_URL); a message links nowhere else but the run's repository. Default: where `threadUrl` lives. */
  publicBaseUrl?: string;
  /** GitHub's web host (`https://github.com`, an Enterprise Server's); without it no GitHub page counts as the run's repository. */
  githubWebUrl?: string;
  /** The login of who asked for the run (the dispatch's commenter); the closing message's first line mentions it when it may (`requesterMention`). */
  requestedBy?: string;
  /** The run was continued (`ThinkAgent.continueRun`); its closing message says so. */
  continued?: boolean;
  /** Where the continuation came from; absent: the dashboard. */
  continuedFrom?: "github";
  /** The mention that continues a run from GitHub (`@<slug>`), when the App's bot is known; shown as code, never a mention. */
  continueHandle?: string;
  /** What the run took, for the closing message's footer; absent in messages written without it. */
  stats?: RunStats;
  /** `reporter`: the issue's author asked for this run under the reporter tier; its closing message says so. */
  tier?: RunTier;
  /** A CI follow-up: the pull request's head whose checks failed, and the checks' names; its closing message says so. */
  ci?: { headSha: string; checks: string[] };
};

/** How long a run took, its tool calls, what it cost (absent: unknown), whether no model ran (the scripted model), and what the egress gateway refused. */
export type RunStats = { durationMs?: number; toolCalls: number; cost?: Cost; scripted?: boolean; models?: string[]; blocked?: BlockedRequest[] };

/** 🚀 on the triggering comment: an issue comment by id, or `{ reviewCommentId }` for a pull request review comment. */
export function rocketNotice(run: RunRef, target: number | { reviewCommentId: number }): Notice {
  const on = typeof target === "number" ? { commentId: target } : { reviewCommentId: target.reviewCommentId };
  return { id: noticeId(run.submissionId, "rocket"), kind: "rocket", submissionId: run.submissionId, repo: run.repo, issueNumber: run.issueNumber, ...on };
}

export function closingNotice(run: RunRef, ending: RunEnding): Notice {
  return commentNotice(run, "closing", closingText(ending, run));
}

/** How a maintainer on GitHub, or an operator, goes on with a run that ended short: `then` for a sentence that follows an instruction. */
function continueHow(run: RunRef, form: "may" | "then"): string {
  const comment = run.continueHandle ? codeSpan(`${run.continueHandle} continue`) : "";
  if (form === "then") return comment ? `then comment ${comment} here (or continue it from the dashboard)` : "then continue the run from the dashboard";
  return comment ? `comment ${comment} to continue it, or an operator can from the dashboard` : "an operator can continue it from the dashboard";
}

export function staleNotice(run: RunRef, quietForMs: number): Notice {
  const text = [
    `⏳ **agent-think has done nothing on this run for ${formatDuration(quietForMs)}.** It may be stuck rather than slow.`,
    "",
    `Follow it live: ${run.threadUrl}. ${capitalized(continueHow(run, "may"))}; this issue still gets the run's result if it finishes.`
  ].join("\n");
  return commentNotice(run, "stale", text);
}

export function commentNotice(run: RunRef, kind: NoticeKind, text: string): Notice {
  const id = noticeId(run.submissionId, kind);
  return {
    id,
    kind,
    submissionId: run.submissionId,
    repo: run.repo,
    issueNumber: run.issueNumber,
    body: `${noticeMarker(id)}\n${capBody(text, MAX_NOTICE_TEXT_CHARS)}`
  };
}

const OUTCOME_EMOJI: Record<RunResult["outcome"], string> = {
  reproduced: "✅",
  "not-reproduced": "❔",
  "needs-info": "💬",
  "pr-opened": "🛠️",
  "pr-updated": "🛠️",
  "pr-unproven": "⚠️",
  "no-pr": "❔",
  "review-addressed": "🛠️",
  "patch-suggested": "🩹"
};

/** The closing comment's heading for each outcome ("✅ Reproduced"); the eval harness reads the outcome back from it. */
export const OUTCOME_HEADINGS = Object.fromEntries(
  RESULT_OUTCOMES.map((outcome) => [outcome, `${OUTCOME_EMOJI[outcome]} ${OUTCOME_LABELS[outcome]}`])
) as Record<RunResult["outcome"], string>;

/** A URL longer than this is never linked, and shown cut. */
const MAX_LINKED_URL_CHARS = 2_000;
const SHOWN_URL_CHARS = 200;
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
 * refused requests, how many and to which hosts. Without figures, the thread link alone.
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

function closingBody(ending: RunEnding, run: RunRef): string {
  const policy = linkPolicy(run);
  const thread = `[the run's thread](${run.threadUrl})`;
  const opening = openingLines(run);
  switch (ending.kind) {
    case "result":
      return resultText(ending.result, run, policy, opening, ending.proof);
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

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

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

function resultText(result: RunResult, run: RunRef, policy: LinkPolicy, opening: string[], proof: ProofRecord | undefined): string {
  const steps = result.steps ?? [];
  const changes = result.changes ?? [];
  const addressed = result.addressed ?? [];
  const missing = result.missing ?? [];
  const parts = [
    blockPart(quoteModelText(result.summary), policy),
    // Steps are commands and clicks to repeat: code, verbatim.
    listPart(steps.map(oneLine), (step, i) => `${i + 1}. ${codeSpan(step)}`, "steps"),
    listPart(changes.map(oneLine), (change) => `- ${neutralize(change, policy, { mode: "inline" })}`, "changes"),
    inlinePart(result.verification ? oneLine(result.verification) : "", policy),
    listPart(addressed.map(addressedLine), (line) => `- ${neutralize(line, policy, { mode: "inline" })}`, "review points"),
    patchPart(result.patch ?? ""),
    inlinePart(result.evidence ? oneLine(result.evidence) : "", policy),
    listPart(missing.map(oneLine), (question) => `- ${neutralize(question, policy, { mode: "inline" })}`, "questions"),
    proofPart(proof, policy)
  ];
  return fitMessage(
    ([summary, stepLines, changeLines, verification, addressedLines, patch, evidence, missingLines, proofText], cut) => {
      const lines = [...opening, `### ${OUTCOME_HEADINGS[result.outcome]}`, "", summary!];
      if (result.reproductionUrl) lines.push("", `**Reproduction:** ${reproductionText(result.reproductionUrl, policy)}`);
      if (result.pullRequestUrl) lines.push("", `**Pull request:** ${pullRequestText(result.pullRequestUrl, policy)}`);
      if (result.evidence) lines.push("", `**Evidence:** ${evidence!}`);
      if (missing.length) lines.push("", "**To go on, this needs**", missingLines!);
      if (steps.length) lines.push("", "**Steps**", stepLines!);
      if (changes.length) lines.push("", "**Changes**", changeLines!);
      if (addressed.length) lines.push("", "**Review**", addressedLines!);
      if (result.verification) lines.push("", `**Verified:** ${verification!}`);
      if (proof) lines.push("", proofText!);
      if (result.patch) lines.push("", "<details><summary>Patch</summary>", "", patch!, "", "</details>");
      if (cut) lines.push("", cutNotice(run));
      lines.push("", footer(run));
      return lines.join("\n");
    },
    parts,
    MAX_NOTICE_TEXT_CHARS
  );
}

/** One review point as a line: where it is (the comment's link is checked by neutralize like any other), then what was done. */
function addressedLine(point: NonNullable<RunResult["addressed"]>[number]): string {
  const where = [point.path ? `\`${point.path.replace(/`/g, "")}\`` : "", point.comment ?? ""].filter(Boolean).join(" ");
  return oneLine(where ? `${where}: ${point.change}` : point.change);
}

/** The Worker's proof of the pull request (proof-text.ts); where it does not fit, its one line. */
function proofPart(proof: ProofRecord | undefined, policy: LinkPolicy): CutPart {
  const section = proof ? neutralize(proofSection(proof), policy) : "";
  return {
    size: section.length,
    render: (limit) => (section.length <= limit ? section : proof ? neutralize(cutText(proofLine(proof), Math.max(0, limit)), policy, { mode: "inline" }) : "")
  };
}

/** A patch as a diff block; cut, it keeps its first lines and says so, since half a patch does not apply. */
function patchPart(patch: string): CutPart {
  return {
    size: patch.length,
    render(limit) {
      if (patch.length <= limit) return codeBlock(patch, "diff");
      const cut = patch.slice(0, Math.max(0, limit)).replace(/\n[^\n]*$/, "");
      return `${codeBlock(cut, "diff")}\n\n_The patch was cut to fit; the whole patch is in the run's thread._`;
    }
  };
}

function cutNotice(run: RunRef): string {
  return `✂️ _This comment was cut to fit GitHub's size limit. The full text is in [the run's thread](${run.threadUrl})._`;
}

function reproductionText(url: string, policy: LinkPolicy): string {
  const link = url.length <= MAX_LINKED_URL_CHARS ? reproductionLink(url, policy) : null;
  return link ?? `${shownUrl(url)} _(not one of this bot's pages, so not linked)_`;
}

function pullRequestText(url: string, policy: LinkPolicy): string {
  const link = url.length <= MAX_LINKED_URL_CHARS ? pullRequestLink(url, policy) : null;
  return link ?? `${shownUrl(url)} _(not a pull request of ${codeSpan(policy.repo)}, so not linked)_`;
}

function shownUrl(url: string): string {
  const cut = cutText(oneLine(url), SHOWN_URL_CHARS);
  return codeSpan(cut.length < url.length ? `${cut}…` : cut);
}

export function linkPolicy(run: RunRef): LinkPolicy {
  return {
    publicBaseUrl: run.publicBaseUrl ?? run.threadUrl.replace(/\/thread\/[^/]*$/, ""),
    githubWebUrl: run.githubWebUrl ?? "",
    repo: run.repo
  };
}

/** Free text in its own paragraphs, neutralized, cut with "…". */
function blockPart(text: string, policy: LinkPolicy): CutPart {
  return { size: text.length, render: (limit) => neutralize(withEllipsis(text, limit), policy) };
}

/** Free text inside a line, neutralized, cut with "…". */
function inlinePart(text: string, policy: LinkPolicy): CutPart {
  return { size: text.length, render: (limit) => neutralize(withEllipsis(text, limit), policy, { mode: "inline" }) };
}

/** One line per item, in order; a cut keeps the first items whole, cuts the next and says how many more there were. */
function listPart(items: string[], line: (item: string, index: number) => string, noun: string): CutPart {
  const size = items.reduce((sum, item) => sum + item.length, 0);
  return {
    size,
    render(limit) {
      const lines: string[] = [];
      let left = limit;
      for (const [index, item] of items.entries()) {
        if (left <= 0) break;
        lines.push(line(withEllipsis(item, left), index));
        left -= item.length;
      }
      const more = items.length - lines.length;
      if (more > 0) lines.push("", `_… and ${more} more ${noun}, in the thread._`);
      return lines.join("\n");
    }
  };
}

function withEllipsis(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = cutText(text, limit);
  return cut ? `${cut} …` : "…";
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

/** Model text goes on the issue as text: no HTML comments that could fake our markers. */
function quoteModelText(text: string): string {
  return text.replace(/<!--[\s\S]*?(-->|$)/g, "").trim();
}

function oneLine(text: string): string {
  return quoteModelText(text).replace(/\s*\n\s*/g, " ");
}

export function formatDuration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes >= 1) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const seconds = Math.max(1, Math.round(ms / 1_000));
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
