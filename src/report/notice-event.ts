/**
 * The command-center `notice` event for an outbox entry that settled, so the
 * dashboard shows what a run posted on its issue and what it could not.
 * The ThinkAgent sends it fire-and-forget from the reporter's `onSettled`.
 * Pure: the session, the clock and the redaction are parameters. A pending
 * entry has nothing to report, nor has the progress comment: the dashboard
 * shows the run live itself, and its issue's answer is the closing comment.
 */
import { ISSUE_MESSAGE_KINDS, type IssueMessageKind } from "../shared/command-center";
import { type NoticeEvent } from "../shared/command-center-events";
import type { OutboxEntry } from "./outbox";

export function noticeEvent(
  session: string,
  entry: OutboxEntry,
  options: { now: number; redact?: (text: string) => string }
): NoticeEvent | null {
  if (entry.state === "pending" || entry.state === "dropped") return null;
  if (!(ISSUE_MESSAGE_KINDS as readonly string[]).includes(entry.kind)) return null;
  const redact = options.redact ?? ((text: string) => text);
  return {
    type: "notice",
    session,
    submissionId: entry.submissionId,
    kind: entry.kind as IssueMessageKind,
    state: entry.state,
    ...(entry.state === "sent" && entry.url ? { url: entry.url } : {}),
    ...(entry.state === "failed" ? { error: redact(entry.lastError ?? "failed") } : {}),
    at: entry.sentAt ?? options.now
  };
}
