/**
 * The messages a run puts on its issue, as durable `Notice` records: 🚀 on
 * the triggering comment, one stale notice, one closing comment (its words
 * are closing-text.ts), the outcome's label, and the progress comment's
 * entries (progress.ts).
 * Each is keyed by its submission and kind, and each comment carries a
 * hidden marker with that key, so one whose response was lost is found
 * again instead of posted twice (docs/reporting.md). Pure.
 */
import type { RunEnding } from "../run/ending";
import { outcomeLabel } from "../shared/outcomes";
import { capBody, MAX_NOTICE_TEXT_CHARS } from "./body-cap";
import { closingText } from "./closing-text";
import { capitalized, continueHow, formatDuration } from "./message-parts";
import type { RunRef } from "./run-ref";

/**
 * `progress` is the live progress comment's creation, `progress-edit` its
 * latest throttled edit (one entry, its body replaced as the run goes), and
 * `progress-final` its last edit, the pointer to the closing comment
 * (progress.ts). `label` is the outcome's label on the issue, applied once
 * the closing comment is posted.
 */
export type NoticeKind = "rocket" | "closing" | "stale" | "progress" | "progress-edit" | "progress-final" | "label";

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
  /** label: the outcome's label (`agent-think:<outcome>`); the issue's other labels of that prefix are removed. */
  label?: string;
};

export const noticeId = (submissionId: string, kind: NoticeKind) => `${submissionId}:${kind}`;

/** The hidden line that identifies our comment for one submission and kind. */
export const noticeMarker = (id: string) => `<!-- agent-think:${id} -->`;


/** 🚀 on the triggering comment: an issue comment by id, or `{ reviewCommentId }` for a pull request review comment. */
export function rocketNotice(run: RunRef, target: number | { reviewCommentId: number }): Notice {
  const on = typeof target === "number" ? { commentId: target } : { reviewCommentId: target.reviewCommentId };
  return { id: noticeId(run.submissionId, "rocket"), kind: "rocket", submissionId: run.submissionId, repo: run.repo, issueNumber: run.issueNumber, ...on };
}

export function closingNotice(run: RunRef, ending: RunEnding): Notice {
  return commentNotice(run, "closing", closingText(ending, run));
}

/**
 * The outcome's label for the issue (`agent-think:reproduced`), which
 * replaces an earlier run's: for a result on an issue only. A pull request's
 * conversation gets none, nor does a reporter-tier run, whose course the
 * issue's author steers: the label is the maintainers' triage state.
 */
export function labelNotice(run: RunRef, ending: RunEnding): Notice | null {
  if (ending.kind !== "result" || run.onPullRequest || run.tier === "reporter") return null;
  return {
    id: noticeId(run.submissionId, "label"),
    kind: "label",
    submissionId: run.submissionId,
    repo: run.repo,
    issueNumber: run.issueNumber,
    label: outcomeLabel(ending.result.outcome)
  };
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
