/**
 * The outbox: every message a run owes its issue, kept durably until it is
 * delivered, and the delivery of one entry, exactly once: an entry is added
 * once per id, its attempt counted before each call, and a retried comment
 * first looks for its own marker on the issue. Retries wait as GitHub asks
 * (`nextAttemptDelayMs`, kept on the entry as `notBefore`). Pure: storage is
 * a narrow interface the Durable Object fills, GitHub a `GitHubClient`.
 * docs/reporting.md, "Exactly once".
 */
import { GitHubCallError, type GitHubClient } from "../github/client";
import { OUTCOME_LABEL_PREFIX } from "../shared/outcomes";
import { noticeId, noticeMarker, type Notice } from "./notices";
import { progressBody, progressPointerText } from "./progress";
import type { ReportClient } from "./report-client";

/** `dropped`: a progress edit the run's end made moot; never sent. */
export type OutboxState = "pending" | "sent" | "failed" | "dropped";

export type OutboxEntry = Notice & {
  state: OutboxState;
  attempts: number;
  createdAt: number;
  sentAt?: number;
  /** The posted comment's page. */
  url?: string;
  /** The posted comment's id (comments only): what a progress edit patches. */
  postedId?: number;
  /** progress-edit: bumped by each new body, so an edit sent meanwhile does not mark a newer one sent. */
  revision?: number;
  lastError?: string;
  /** GitHub asked us to wait (a rate limit, Retry-After): no attempt before this time (epoch ms). */
  notBefore?: number;
};

export interface OutboxStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  list<T>(options: { prefix: string }): Promise<Map<string, T>>;
}

const PREFIX = "agent-think:outbox:";

export class Outbox {
  readonly #storage: OutboxStorage;
  constructor(storage: OutboxStorage) {
    this.#storage = storage;
  }

  /** Add a notice once; null when one with its id already exists. */
  async add(notice: Notice, now: number): Promise<OutboxEntry | null> {
    if (await this.get(notice.id)) return null;
    const entry: OutboxEntry = { ...notice, state: "pending", attempts: 0, createdAt: now };
    await this.put(entry);
    return entry;
  }

  get(id: string): Promise<OutboxEntry | undefined> {
    return this.#storage.get<OutboxEntry>(PREFIX + id);
  }

  put(entry: OutboxEntry): Promise<void> {
    return this.#storage.put(PREFIX + entry.id, entry);
  }

  async all(): Promise<OutboxEntry[]> {
    return [...(await this.#storage.list<OutboxEntry>({ prefix: PREFIX })).values()].sort((a, b) => a.createdAt - b.createdAt);
  }

  async pending(): Promise<OutboxEntry[]> {
    return (await this.all()).filter((entry) => entry.state === "pending");
  }
}

/** Attempts per entry before it is given up as failed. */
export const MAX_DELIVERY_ATTEMPTS = 6;
const RETRY_DELAYS_MS = [2_000, 10_000, 30_000, 60_000, 300_000];

/** How long to wait after the `attempts`-th failed attempt. */
export function retryDelayMs(attempts: number): number {
  return RETRY_DELAYS_MS[Math.min(Math.max(attempts - 1, 0), RETRY_DELAYS_MS.length - 1)]!;
}

/** The least wait after a 403/429 rate limit, as GitHub's documentation asks when no header says more. */
export const RATE_LIMIT_MIN_WAIT_MS = 60_000;
/** The most any header makes us wait: the primary limit resets within an hour. */
export const RATE_LIMIT_MAX_WAIT_MS = 60 * 60_000;
/** Added to a reset time, for the clocks' difference. */
const RESET_SLACK_MS = 1_000;

/**
 * How long to wait before the next attempt after `error` ended the
 * `attempts`-th: what GitHub said (Retry-After in seconds; else the reset
 * time when x-ratelimit-remaining is 0), at least RATE_LIMIT_MIN_WAIT_MS for a
 * 403/429 rate limit, the backoff when GitHub said nothing. `asked` is true
 * when the wait came from GitHub rather than the backoff.
 */
export function nextAttemptDelayMs(error: GitHubCallError, attempts: number, now: number): { inMs: number; asked: boolean } {
  const hint = error.retry;
  let asked: number | undefined;
  if (hint?.retryAfterSeconds !== undefined) asked = hint.retryAfterSeconds * 1_000;
  else if (hint?.remaining === 0 && hint.resetEpochSeconds !== undefined) asked = Math.max(0, hint.resetEpochSeconds * 1_000 - now) + RESET_SLACK_MS;
  if (hint?.rateLimited) asked = Math.max(asked ?? retryDelayMs(attempts), RATE_LIMIT_MIN_WAIT_MS);
  if (asked === undefined) return { inMs: retryDelayMs(attempts), asked: false };
  return { inMs: Math.min(Math.max(asked, 0), RATE_LIMIT_MAX_WAIT_MS), asked: true };
}

/** How far before an entry's creation its marker search looks, for clock skew. */
const MARKER_SEARCH_SLACK_MS = 5 * 60_000;

/** The shared client, with the reporter's own calls where it has them (report-client.ts). */
export type DeliveryClient = GitHubClient & Partial<Pick<ReportClient, "editComment" | "reactToReviewComment" | "labelIssue">>;

export type DeliveryDeps = {
  outbox: Outbox;
  client: DeliveryClient;
  /** A client with a fresh token, after a 401; null when none can be had. */
  refreshClient?: () => Promise<DeliveryClient | null>;
  now: () => number;
};

export type DeliveryOutcome =
  | { outcome: "sent"; entry: OutboxEntry; found: boolean }
  | { outcome: "retry"; entry: OutboxEntry; inMs: number; rateLimited: boolean }
  | { outcome: "failed"; entry: OutboxEntry }
  | { outcome: "skipped"; entry: OutboxEntry }
  /** A progress edit the run's end made moot. */
  | { outcome: "dropped"; entry: OutboxEntry }
  /** GitHub asked us to wait and the time has not come: nothing was tried. */
  | { outcome: "waiting"; entry: OutboxEntry; inMs: number };

/** Deliver one entry, recording the attempt first and the result after. */
export async function deliver(pendingEntry: OutboxEntry, deps: DeliveryDeps): Promise<DeliveryOutcome> {
  // An edit's body may have been replaced since the pass listed it: send the latest.
  const entry = isEdit(pendingEntry) ? ((await deps.outbox.get(pendingEntry.id)) ?? pendingEntry) : pendingEntry;
  if (entry.state !== "pending") return { outcome: "skipped", entry };
  if (entry.notBefore !== undefined && entry.notBefore > deps.now()) return { outcome: "waiting", entry, inMs: entry.notBefore - deps.now() };
  const edit = isEdit(entry) ? await editTarget(entry, deps) : null;
  if (edit && "outcome" in edit) return edit;
  const held = entry.kind === "label" ? await labelHeld(entry, deps) : null;
  if (held) return held;
  const attemptedBefore = entry.attempts > 0;
  const attempting: OutboxEntry = { ...entry, attempts: entry.attempts + 1 };
  await deps.outbox.put(attempting);

  const send = async (client: DeliveryClient): Promise<{ found: boolean; url: string | undefined; id?: number }> => {
    if (entry.kind === "rocket") {
      if (entry.reviewCommentId !== undefined) {
        if (!client.reactToReviewComment) throw new GitHubCallError("no review comment reactions", "rejected");
        await client.reactToReviewComment(entry.repo, entry.reviewCommentId, "rocket");
        return { found: false, url: undefined };
      }
      if (entry.commentId === undefined) throw new GitHubCallError("no comment to react on", "rejected");
      await client.react(entry.repo, entry.commentId, "rocket");
      return { found: false, url: undefined };
    }
    if (entry.kind === "label") {
      if (!client.labelIssue || entry.label === undefined) throw new GitHubCallError("no issue labels", "rejected");
      await client.labelIssue(entry.repo, entry.issueNumber, entry.label, OUTCOME_LABEL_PREFIX);
      return { found: false, url: undefined };
    }
    if (edit) {
      if (!client.editComment) throw new GitHubCallError("no comment edits", "rejected");
      await client.editComment(entry.repo, edit.commentId, edit.body);
      return { found: false, url: edit.url };
    }
    if (entry.body === undefined) throw new GitHubCallError("no comment text", "rejected");
    if (attemptedBefore) {
      const since = entry.createdAt - MARKER_SEARCH_SLACK_MS;
      const existing = await client.findComment(entry.repo, entry.issueNumber, noticeMarker(entry.id), since);
      if (existing) return { found: true, url: existing.url, id: existing.id };
    }
    const posted = await client.comment(entry.repo, entry.issueNumber, entry.body);
    return { found: false, url: posted.url, id: posted.id };
  };

  try {
    let result: { found: boolean; url: string | undefined; id?: number };
    try {
      result = await send(deps.client);
    } catch (error) {
      const fresh = error instanceof GitHubCallError && error.kind === "unauthorized" ? await deps.refreshClient?.() : null;
      if (!fresh) throw error;
      result = await send(fresh);
    }
    let sent: OutboxEntry = {
      ...attempting,
      state: "sent",
      sentAt: deps.now(),
      ...(result.url ? { url: result.url } : {}),
      ...(result.id !== undefined ? { postedId: result.id } : {})
    };
    delete sent.lastError;
    delete sent.notBefore;
    if (entry.kind === "progress-edit") {
      // A newer body (or the run's end) arrived while this one was on its way: it stays, with this edit's time.
      const current = await deps.outbox.get(entry.id);
      if (current && (current.revision !== attempting.revision || current.state === "dropped")) sent = { ...current, sentAt: sent.sentAt, attempts: 0 };
    }
    await deps.outbox.put(sent);
    return { outcome: "sent", entry: sent, found: result.found };
  } catch (error) {
    const callError = error instanceof GitHubCallError ? error : new GitHubCallError(String(error), "retryable");
    const retry = callError.kind !== "rejected" && attempting.attempts < MAX_DELIVERY_ATTEMPTS;
    // A progress edit whose body was replaced meanwhile keeps the newer body.
    const current = entry.kind === "progress-edit" ? await deps.outbox.get(entry.id) : undefined;
    const base = current && current.revision !== attempting.revision ? { ...current, attempts: attempting.attempts } : attempting;
    if (base.state === "dropped") return { outcome: "dropped", entry: base };
    const next: OutboxEntry = { ...base, state: retry ? "pending" : "failed", lastError: callError.message };
    delete next.notBefore;
    if (!retry) {
      await deps.outbox.put(next);
      return { outcome: "failed", entry: next };
    }
    const wait = nextAttemptDelayMs(callError, next.attempts, deps.now());
    if (wait.asked) next.notBefore = deps.now() + wait.inMs;
    await deps.outbox.put(next);
    return { outcome: "retry", entry: next, inMs: wait.inMs, rateLimited: callError.retry?.rateLimited ?? false };
  }
}

/**
 * Why the outcome's label is not applied now: it follows its closing
 * comment, so it waits while that is pending and is given up when that was
 * (a label with no comment to explain it helps no one). Null: apply it.
 */
async function labelHeld(entry: OutboxEntry, deps: DeliveryDeps): Promise<DeliveryOutcome | null> {
  const closing = await deps.outbox.get(noticeId(entry.submissionId, "closing"));
  if (!closing || closing.state === "pending") return { outcome: "waiting", entry, inMs: Math.max(EDIT_WAIT_MS, (closing?.notBefore ?? 0) - deps.now()) };
  if (closing.state === "sent") return null;
  const failed: OutboxEntry = { ...entry, state: "failed", lastError: "the closing comment was not posted" };
  await deps.outbox.put(failed);
  return { outcome: "failed", entry: failed };
}

const isEdit = (entry: Notice) => entry.kind === "progress-edit" || entry.kind === "progress-final";

/** How often a progress edit waits for the comment it edits (or the closing comment it points to) before it is tried again. */
const EDIT_WAIT_MS = 1_000;

/**
 * What a progress edit patches, and with what: the progress comment once it
 * is posted; for the final edit, the pointer to the closing comment once
 * that settled. Or why it is not sent now: waiting for either, dropped (an
 * edit after the run's end), given up (the progress comment never posted),
 * or held back by the throttle (at most one edit per `minIntervalMs`; the
 * final edit is not held, so the comment never
 * disagrees with the closing comment for longer than it takes to send it).
 */
async function editTarget(entry: OutboxEntry, deps: DeliveryDeps): Promise<{ commentId: number; body: string; url?: string } | DeliveryOutcome> {
  const created = await deps.outbox.get(noticeId(entry.submissionId, "progress"));
  const now = deps.now();
  if (entry.kind === "progress-edit" && (await deps.outbox.get(noticeId(entry.submissionId, "progress-final")))) {
    const dropped: OutboxEntry = { ...entry, state: "dropped" };
    await deps.outbox.put(dropped);
    return { outcome: "dropped", entry: dropped };
  }
  if (!created || created.state === "failed" || created.state === "dropped" || (created.state === "sent" && created.postedId === undefined)) {
    const failed: OutboxEntry = { ...entry, state: "failed", lastError: "the progress comment was not posted" };
    await deps.outbox.put(failed);
    return { outcome: "failed", entry: failed };
  }
  if (created.state === "pending") return { outcome: "waiting", entry, inMs: Math.max(EDIT_WAIT_MS, (created.notBefore ?? 0) - now) };
  if (entry.kind === "progress-edit") {
    // The first edit goes at once (the plan shows as soon as there is one); each later one waits for the throttle.
    const due = entry.sentAt === undefined ? 0 : entry.sentAt + (entry.minIntervalMs ?? 0);
    if (due > now) return { outcome: "waiting", entry, inMs: due - now };
    return { commentId: created.postedId!, body: entry.body ?? "", ...(created.url ? { url: created.url } : {}) };
  }
  const closing = await deps.outbox.get(noticeId(entry.submissionId, "closing"));
  if (closing?.state === "pending") return { outcome: "waiting", entry, inMs: Math.max(EDIT_WAIT_MS, (closing.notBefore ?? 0) - now) };
  const closingUrl = closing?.state === "sent" ? closing.url : undefined;
  return {
    commentId: created.postedId!,
    body: progressBody(entry.submissionId, progressPointerText(closingUrl, entry.threadUrl ?? "")),
    ...(created.url ? { url: created.url } : {})
  };
}
