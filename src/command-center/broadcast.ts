/**
 * The state synced live to dashboards, bounded however many threads exist:
 * metrics, the total and the most recent threads, within MAX_RECENT_THREADS
 * and MAX_BROADCAST_BYTES (free text cut, threads dropped from the tail
 * until it fits). Also when the next active thread goes quiet, so the
 * command center asks its agent then without any event arriving. Pure.
 * docs/command-center.md, "Bounded broadcast".
 */
import { isActiveStatus, MAX_BROADCAST_BYTES, MAX_RECENT_THREADS, type CommandCenterState, type IssueMessages, type Metrics, type ThreadSummary } from "../shared/command-center";
import { REPRODUCTION_URL_MAX_CHARS } from "../shared/command-center-events";
import { cutText, ISSUE_MESSAGE_ERROR_MAX_CHARS } from "./text";

/**
 * Cuts for the broadcast: roomy enough for a sidebar, small enough that 50
 * busy threads fit, each with its issue messages and a reproduction URL.
 * Errors are cut as issue-message errors are: the snapshot has them whole.
 */
export const BROADCAST_TITLE_MAX_CHARS = 200;
export const BROADCAST_ERROR_MAX_CHARS = 200;
export const BROADCAST_AVATAR_URL_MAX_CHARS = 300;
/** The tighter cuts for a thread that does not fit alone. */
const TIGHT_TEXT_MAX_CHARS = 40;

export type BroadcastLimits = { maxBytes: number; maxThreads: number };
const DEFAULT_LIMITS: BroadcastLimits = { maxBytes: MAX_BROADCAST_BYTES, maxThreads: MAX_RECENT_THREADS };

const encoder = new TextEncoder();
export function jsonBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).byteLength;
}

/**
 * The bounded state from the newest-first `threads` (pass at least
 * maxThreads of them when there are that many).
 */
export function boundedState(
  input: { metrics: Metrics; threads: readonly ThreadSummary[]; total: number; updatedAt: number },
  limits: BroadcastLimits = DEFAULT_LIMITS
): CommandCenterState {
  const empty: CommandCenterState = { metrics: input.metrics, recent: [], total: input.total, updatedAt: input.updatedAt };
  // `[]` becomes `[a,b,...]`: each thread adds its bytes and one comma after the first.
  let used = jsonBytes(empty);
  const recent: ThreadSummary[] = [];
  for (const thread of input.threads.slice(0, limits.maxThreads)) {
    let fitted = trimForBroadcast(thread);
    let size = jsonBytes(fitted) + (recent.length > 0 ? 1 : 0);
    if (used + size > limits.maxBytes && recent.length === 0) {
      fitted = trimForBroadcast(thread, TIGHT_TEXT_MAX_CHARS);
      size = jsonBytes(fitted);
    }
    if (used + size > limits.maxBytes) break;
    recent.push(fitted);
    used += size;
  }
  return { ...empty, recent };
}

/** The thread with its free text cut; identifiers stay whole. */
export function trimForBroadcast(thread: ThreadSummary, textMax?: number): ThreadSummary {
  const title = textMax ?? BROADCAST_TITLE_MAX_CHARS;
  const error = textMax ?? BROADCAST_ERROR_MAX_CHARS;
  const trimmed: ThreadSummary = { ...thread, instructionSummary: cutText(thread.instructionSummary, textMax ?? Infinity) };
  if (thread.issueTitle !== undefined) trimmed.issueTitle = cutText(thread.issueTitle, title);
  if (thread.lastError !== undefined) trimmed.lastError = cutText(thread.lastError, error);
  if (thread.issueMessages !== undefined) trimmed.issueMessages = trimMessages(thread.issueMessages, textMax ?? ISSUE_MESSAGE_ERROR_MAX_CHARS);
  // An identifier, so never cut: the registry keeps none longer; the broadcast does not trust it.
  if (thread.reproductionUrl !== undefined && thread.reproductionUrl.length > REPRODUCTION_URL_MAX_CHARS) delete trimmed.reproductionUrl;
  if (thread.requestedBy !== undefined) {
    const { login, avatarUrl } = thread.requestedBy;
    trimmed.requestedBy =
      avatarUrl !== undefined && avatarUrl.length <= BROADCAST_AVATAR_URL_MAX_CHARS && textMax === undefined
        ? { login, avatarUrl }
        : { login };
  }
  return trimmed;
}

/** Errors cut again (the registry already did; the broadcast does not trust it). URLs are identifiers: kept whole. */
function trimMessages(messages: IssueMessages, errorMax: number): IssueMessages {
  const trimmed: IssueMessages = {};
  for (const [kind, message] of Object.entries(messages) as Array<[keyof IssueMessages, IssueMessages[keyof IssueMessages]]>) {
    if (message === undefined) continue;
    trimmed[kind] = message.error === undefined ? { ...message } : { ...message, error: cutText(message.error, errorMax) };
  }
  return trimmed;
}

/**
 * The earliest moment at which an active (running or recovering), not yet
 * stale thread among `threads` has been quiet for the stale window; undefined
 * when none will.
 */
export function nextStaleAt(
  threads: readonly Pick<ThreadSummary, "status" | "stale" | "lastActivityAt">[],
  staleRunMs: number
): number | undefined {
  let next: number | undefined;
  for (const thread of threads) {
    if (!isActiveStatus(thread.status) || thread.stale) continue;
    const at = thread.lastActivityAt + staleRunMs + 1;
    next = next === undefined ? at : Math.min(next, at);
  }
  return next;
}
