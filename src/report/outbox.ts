/**
 * The outbox: every message a run owes its issue, kept durably until it is
 * delivered, and the delivery of one entry. Pure: storage is a narrow
 * interface the Durable Object fills with `ctx.storage`, GitHub is a
 * `GitHubClient`.
 *
 * Exactly once: an entry is added once per id (a second add of the same id
 * is a no-op), its attempt is counted durably before each call, and a
 * comment entry that was attempted before first looks for its own marker on
 * the issue, so a comment GitHub took but whose answer was lost (a timeout,
 * an eviction mid-call) is found rather than posted again; only comments our
 * App wrote count. Reactions are idempotent on GitHub's side.
 *
 * Retries wait as GitHub asks (`nextAttemptDelayMs`): Retry-After, or the
 * rate limit's reset when it is spent, and at least a minute for a 403/429
 * rate limit; otherwise the backoff. An entry held back by GitHub keeps the
 * time before which it is not tried (`notBefore`), whatever pass comes first.
 */
import { GitHubCallError, type GitHubClient } from "../github/client";
import { noticeMarker, type Notice } from "./notices";

export type OutboxState = "pending" | "sent" | "failed";

export type OutboxEntry = Notice & {
  state: OutboxState;
  attempts: number;
  createdAt: number;
  sentAt?: number;
  /** The posted comment's page. */
  url?: string;
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

export type DeliveryDeps = {
  outbox: Outbox;
  client: GitHubClient;
  /** A client with a fresh token, after a 401; null when none can be had. */
  refreshClient?: () => Promise<GitHubClient | null>;
  now: () => number;
};

export type DeliveryOutcome =
  | { outcome: "sent"; entry: OutboxEntry; found: boolean }
  | { outcome: "retry"; entry: OutboxEntry; inMs: number; rateLimited: boolean }
  | { outcome: "failed"; entry: OutboxEntry }
  | { outcome: "skipped"; entry: OutboxEntry }
  /** GitHub asked us to wait and the time has not come: nothing was tried. */
  | { outcome: "waiting"; entry: OutboxEntry; inMs: number };

/** Deliver one entry, recording the attempt first and the result after. */
export async function deliver(entry: OutboxEntry, deps: DeliveryDeps): Promise<DeliveryOutcome> {
  if (entry.state !== "pending") return { outcome: "skipped", entry };
  if (entry.notBefore !== undefined && entry.notBefore > deps.now()) return { outcome: "waiting", entry, inMs: entry.notBefore - deps.now() };
  const attemptedBefore = entry.attempts > 0;
  const attempting: OutboxEntry = { ...entry, attempts: entry.attempts + 1 };
  await deps.outbox.put(attempting);

  const send = async (client: GitHubClient) => {
    if (entry.kind === "rocket") {
      if (entry.commentId === undefined) throw new GitHubCallError("no comment to react on", "rejected");
      await client.react(entry.repo, entry.commentId, "rocket");
      return { found: false, url: undefined };
    }
    if (entry.body === undefined) throw new GitHubCallError("no comment text", "rejected");
    if (attemptedBefore) {
      const since = entry.createdAt - MARKER_SEARCH_SLACK_MS;
      const existing = await client.findComment(entry.repo, entry.issueNumber, noticeMarker(entry.id), since);
      if (existing) return { found: true, url: existing.url };
    }
    const posted = await client.comment(entry.repo, entry.issueNumber, entry.body);
    return { found: false, url: posted.url };
  };

  try {
    let result: { found: boolean; url: string | undefined };
    try {
      result = await send(deps.client);
    } catch (error) {
      const fresh = error instanceof GitHubCallError && error.kind === "unauthorized" ? await deps.refreshClient?.() : null;
      if (!fresh) throw error;
      result = await send(fresh);
    }
    const sent: OutboxEntry = { ...attempting, state: "sent", sentAt: deps.now(), ...(result.url ? { url: result.url } : {}) };
    delete sent.lastError;
    delete sent.notBefore;
    await deps.outbox.put(sent);
    return { outcome: "sent", entry: sent, found: result.found };
  } catch (error) {
    const callError = error instanceof GitHubCallError ? error : new GitHubCallError(String(error), "retryable");
    const retry = callError.kind !== "rejected" && attempting.attempts < MAX_DELIVERY_ATTEMPTS;
    const next: OutboxEntry = { ...attempting, state: retry ? "pending" : "failed", lastError: callError.message };
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
