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
 */
import type { BudgetLimit, RunEnding, RunResult } from "../run/ending";

export type NoticeKind = "rocket" | "closing" | "stale";

/** One message for the issue, durable until it is delivered. */
export type Notice = {
  /** `<submissionId>:<kind>`: one of each kind per submission. */
  id: string;
  kind: NoticeKind;
  submissionId: string;
  repo: string;
  issueNumber: number;
  /** The comment to react on (rocket only). */
  commentId?: number;
  /** The comment text (closing and stale only), marker included. */
  body?: string;
};

export const noticeId = (submissionId: string, kind: NoticeKind) => `${submissionId}:${kind}`;

/** The hidden line that identifies our comment for one submission and kind. */
export const noticeMarker = (id: string) => `<!-- agent-think:${id} -->`;

export type RunRef = { repo: string; issueNumber: number; submissionId: string; threadUrl: string };

export function rocketNotice(run: RunRef, commentId: number): Notice {
  return { id: noticeId(run.submissionId, "rocket"), kind: "rocket", submissionId: run.submissionId, repo: run.repo, issueNumber: run.issueNumber, commentId };
}

export function closingNotice(run: RunRef, ending: RunEnding): Notice {
  return commentNotice(run, "closing", closingText(ending, run.threadUrl));
}

export function staleNotice(run: RunRef, quietForMs: number): Notice {
  const text = [
    `⏳ **agent-think has done nothing on this run for ${formatDuration(quietForMs)}.** It may be stuck rather than slow.`,
    "",
    `Follow it live: ${run.threadUrl}. An operator can continue it from the dashboard; this issue still gets the run's result if it finishes.`
  ].join("\n");
  return commentNotice(run, "stale", text);
}

function commentNotice(run: RunRef, kind: NoticeKind, text: string): Notice {
  const id = noticeId(run.submissionId, kind);
  return {
    id,
    kind,
    submissionId: run.submissionId,
    repo: run.repo,
    issueNumber: run.issueNumber,
    body: `${noticeMarker(id)}\n${text}`
  };
}

const OUTCOME_HEADINGS: Record<RunResult["outcome"], string> = {
  reproduced: "✅ Reproduced",
  "not-reproduced": "❔ Not reproduced",
  "needs-info": "💬 Needs more information",
  "pr-opened": "🛠️ Pull request opened",
  "no-pr": "❔ No pull request"
};

export function closingText(ending: RunEnding, threadUrl: string): string {
  const thread = `[the run's thread](${threadUrl})`;
  switch (ending.kind) {
    case "result":
      return resultText(ending.result, threadUrl);
    case "finished":
      return [
        `**agent-think finished.**`,
        "",
        quoteModelText(ending.text) || "_The run ended without a report._",
        ...(ending.reproductionUrl ? ["", `**Reproduction:** ${ending.reproductionUrl}`] : []),
        "",
        `Details: ${thread}.`
      ].join("\n");
    case "failed":
      return [
        `❌ **agent-think could not finish this run.**`,
        "",
        `Last error: ${inlineCode(ending.error)}`,
        "",
        `What it did so far is in ${thread}; an operator can continue it from the dashboard.`
      ].join("\n");
    case "interrupted":
      return [
        `❌ **agent-think was interrupted and could not recover this run.**`,
        "",
        `What it did so far is in ${thread}; an operator can continue it from the dashboard.`
      ].join("\n");
    case "cancelled":
      return [`⏹️ **agent-think stopped this run${ending.reason ? ` (${ending.reason})` : ""}.**`, "", `What it did before stopping is in ${thread}.`].join("\n");
    case "budget":
      return [
        `⏸️ **agent-think stopped this run: ${budgetText(ending.limit)}.**`,
        "",
        `What it did so far is in ${thread}; an operator can continue it from the dashboard with a fresh budget.`
      ].join("\n");
  }
}

function resultText(result: RunResult, threadUrl: string): string {
  const lines = [`### ${OUTCOME_HEADINGS[result.outcome]}`, "", quoteModelText(result.summary)];
  if (result.reproductionUrl) lines.push("", `**Reproduction:** ${result.reproductionUrl}`);
  if (result.pullRequestUrl) lines.push("", `**Pull request:** ${result.pullRequestUrl}`);
  if (result.steps?.length) lines.push("", "**Steps**", ...result.steps.map((step, i) => `${i + 1}. ${oneLine(step)}`));
  if (result.changes?.length) lines.push("", "**Changes**", ...result.changes.map((change) => `- ${oneLine(change)}`));
  if (result.verification) lines.push("", `**Verified:** ${quoteModelText(result.verification)}`);
  lines.push("", `<sub>agent-think · [thread](${threadUrl})</sub>`);
  return lines.join("\n");
}

function budgetText(limit: BudgetLimit): string {
  return limit.kind === "tokens"
    ? `it used its token budget (${limit.used.toLocaleString("en-US")} of ${limit.budget.toLocaleString("en-US")} tokens) before finishing`
    : `it reached the step cap (${limit.steps} steps) before finishing`;
}

/** Model text goes on the issue as text: no HTML comments that could fake our markers. */
function quoteModelText(text: string): string {
  return text.replace(/<!--[\s\S]*?(-->|$)/g, "").trim();
}

function oneLine(text: string): string {
  return quoteModelText(text).replace(/\s*\n\s*/g, " ");
}

function inlineCode(text: string): string {
  const flat = oneLine(text).slice(0, 500);
  const fence = flat.includes("`") ? "``" : "`";
  return `${fence} ${flat} ${fence}`;
}

export function formatDuration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes >= 1) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const seconds = Math.max(1, Math.round(ms / 1_000));
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
