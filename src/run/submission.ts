/**
 * How a dispatch becomes a durable submission, and how a submission is shown
 * to callers. Pure.
 */
import type { SubmissionStatus, SubmissionStatusValue } from "../shared/dispatch";

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
