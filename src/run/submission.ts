/**
 * How a dispatch becomes a durable submission, and how a submission is shown
 * to callers. Pure.
 */
import type { DispatchInput, SubmissionStatus, SubmissionStatusValue } from "../shared/dispatch";
import type { RunContext } from "./run-context";

/** The same triggering comment always maps to the same submission. */
export function idempotencyKeyFor(commentId: number | undefined): string | undefined {
  return commentId === undefined ? undefined : `comment:${commentId}`;
}

export type SubmissionRecord = {
  status: SubmissionStatusValue;
  error?: string;
  createdAt: number;
  startedAt?: number;
  completedAt?: number;
  // Whatever else the ledger holds (metadata, the idempotency key) is
  // deliberately not copied: status never leaks what was asked.
  [other: string]: unknown;
};

export function toSubmissionStatus(record: SubmissionRecord): SubmissionStatus {
  const status: SubmissionStatus = { status: record.status, createdAt: record.createdAt };
  if (record.error !== undefined) status.error = record.error;
  if (record.startedAt !== undefined) status.startedAt = record.startedAt;
  if (record.completedAt !== undefined) status.completedAt = record.completedAt;
  return status;
}

export const TERMINAL_STATUSES: ReadonlySet<SubmissionStatusValue> = new Set([
  "completed",
  "aborted",
  "skipped",
  "error"
]);

/**
 * What a dispatch keeps with its submission: who asked, and what is the
 * run's own whatever a later dispatch replaces the run context with (its
 * tier and CI failures, read back for the turn and its closing comment).
 */
export function dispatchMetadata(input: Pick<DispatchInput, "commentId" | "pullRequest" | "requestedBy" | "tier" | "ci">): Record<string, unknown> {
  return {
    ...(input.commentId === undefined ? {} : { commentId: input.commentId }),
    // A review comment's run has no issue comment: its 🚀 goes on the review comment.
    ...(input.pullRequest?.reviewComment ? { reviewCommentId: input.pullRequest.reviewComment.id } : {}),
    ...(input.requestedBy ? { requestedBy: input.requestedBy.login } : {}),
    ...(input.tier ? { tier: input.tier } : {}),
    ...(input.ci ? { ci: input.ci } : {})
  };
}

/** What a continuation keeps with its submission: that it is one, who asked first, its tier, and who continued it (an operator, or a comment). */
export function continuationMetadata(run: Pick<RunContext, "requestedBy" | "tier">, by: { operator?: string; fromGitHub?: unknown }): Record<string, unknown> {
  return {
    continuation: true,
    ...(run.requestedBy ? { requestedBy: run.requestedBy.login } : {}),
    ...(run.tier ? { tier: run.tier } : {}),
    ...(by.operator ? { operator: by.operator } : {}),
    ...(by.fromGitHub ? { fromGitHub: by.fromGitHub } : {})
  };
}
