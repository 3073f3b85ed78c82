/**
 * The thread list of the command center: what status a thread shows, how a
 * row reads, how threads group by repository, and how the live state (the
 * most recent threads) merges with polled snapshot pages (older ones).
 * Pure: types only from the shared wire schemas; `now` is a parameter.
 */
import type { IssueMessage, ThreadSummary } from "../../shared/command-center";
import { costView, formatCount, formatDuration, formatRelativeTime, formatTimestamp, truncate, type CostView } from "./format";
import { canContinue, failedAgainNote } from "./continue";
import { isActiveStatus } from "../../shared/thread-status";
import { isReporterSession } from "../../shared/reporter-session";

/**
 * What the dashboard shows: the thread's status, except that an active one
 * (running or recovering) the command center calls stale is "stale".
 */
export type DisplayStatus = "running" | "recovering" | "stale" | "done" | "error" | "cancelled";
export type Tone = "neutral" | "good" | "warn" | "bad" | "info";

export const STATUS_LABEL: Record<DisplayStatus, string> = {
  running: "running",
  recovering: "recovering",
  stale: "stale",
  done: "done",
  error: "failed",
  cancelled: "cancelled"
};

export const STATUS_TONE: Record<DisplayStatus, Tone> = {
  running: "info",
  // Think is resuming an interrupted turn: nothing to do yet, but worth a look if it lasts.
  recovering: "warn",
  stale: "warn",
  done: "good",
  error: "bad",
  // Stopped on purpose: neither a success nor trouble.
  cancelled: "neutral"
};

/** A badge's tooltip, for the statuses whose word needs it. */
export const STATUS_TITLE: Partial<Record<DisplayStatus, string>> = {
  recovering: "The run's turn was interrupted (an eviction, a restart or a deploy); Think's chat recovery is resuming it.",
  stale: "No activity for the stale window, and the run's agent did not say it had ended: it can be continued."
};

export function displayStatus(thread: Pick<ThreadSummary, "status" | "stale">): DisplayStatus {
  if (isActiveStatus(thread.status) && thread.stale) return "stale";
  return thread.status;
}

const ordinal = (n: number) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
  return `${formatCount(n)}${suffix}`;
};

/**
 * How often Think's chat recovery resumed the latest run's turn, as a quiet
 * detail: "2nd recovery" while it recovers, "recovered 2×" once it runs or
 * ended; undefined when it never was.
 */
export function recoveryNote(thread: Pick<ThreadSummary, "status" | "recoveries">): string | undefined {
  const count = thread.recoveries;
  if (count === undefined || count < 1) return undefined;
  return thread.status === "recovering" ? `${ordinal(count)} recovery` : `recovered ${formatCount(count)}×`;
}

/** The warning for an issue message that could not be posted. */
export function couldNotPost(message: Pick<IssueMessage, "error">): string {
  return `Could not post on the issue: ${truncate(message.error?.trim() || "no reason given", 200)}`;
}

/** The run's closing comment could not be posted: the issue never got its answer. */
export function closingFailed(thread: Pick<ThreadSummary, "issueMessages">): boolean {
  return thread.issueMessages?.closing?.state === "failed";
}

/**
 * Needs a human: failed or stale (Continue), or its issue never got the
 * closing comment (someone has to tell the issue, whatever the run did).
 */
export function needsHuman(thread: Pick<ThreadSummary, "status" | "stale" | "issueMessages">): boolean {
  return canContinue(thread) || closingFailed(thread);
}

/** Where a thread's live view lives. Session names are URL-safe, but encode anyway. */
export const threadHref = (session: string) => `/thread/${encodeURIComponent(session)}`;

export type ThreadRowView = {
  session: string;
  href: string;
  repo: string;
  /** "#12 Crash on start" or "#12". */
  title: string;
  status: DisplayStatus;
  statusLabel: string;
  tone: Tone;
  /** The badge's tooltip, when the word needs one. */
  statusTitle?: string;
  /** "2nd recovery" or "recovered 2×", when Think's chat recovery resumed the latest run. */
  recoveries?: string;
  /** "2 min ago", from the last activity. */
  when: string;
  whenTitle: string;
  instruction: string;
  requestedBy?: string;
  /** "run 2 · 5 tool calls · 1 error". */
  counters: string;
  duration?: string;
  /** How long an active (running or recovering) thread has been running: "3 min 04 s". */
  runningFor?: string;
  lastError?: string;
  /** "failed again (2 failures)": the latest run failed, and the one before it too. */
  failedAgain?: string;
  /** "continued by alice@example.com": who continued the latest run from the dashboard. */
  continuedBy?: string;
  /** What the thread's runs cost, when a run reported it (absent before: left out of a row, not "unknown"). */
  cost?: CostView;
  /** "Could not post on the issue: …", when the closing comment failed. */
  issueFailure?: string;
  /** The tone of its entry in the attention list: at least a warning when the issue got no answer. */
  attentionTone: Tone;
  canContinue: boolean;
};

export function threadRowView(thread: ThreadSummary, now: number): ThreadRowView {
  const status = displayStatus(thread);
  const closing = thread.issueMessages?.closing;
  const issueFailure = closing?.state === "failed" ? couldNotPost(closing) : undefined;
  const counters = [
    thread.runCount > 1 ? `run ${thread.runCount}` : null,
    `${formatCount(thread.toolCalls)} tool call${thread.toolCalls === 1 ? "" : "s"}`,
    thread.toolErrors > 0 ? `${formatCount(thread.toolErrors)} error${thread.toolErrors === 1 ? "" : "s"}` : null
  ].filter((part) => part !== null);
  return {
    session: thread.session,
    href: threadHref(thread.session),
    repo: thread.repo,
    // An issue's reporter session (its author's reproductions) is a thread of its own beside the issue's: said in its title.
    title: `#${thread.issueNumber}${isReporterSession(thread.session) ? " (reporter)" : ""}${thread.issueTitle ? ` ${truncate(thread.issueTitle, 90)}` : ""}`,
    status,
    statusLabel: STATUS_LABEL[status],
    tone: STATUS_TONE[status],
    statusTitle: STATUS_TITLE[status],
    recoveries: recoveryNote(thread),
    when: formatRelativeTime(thread.lastActivityAt, now),
    whenTitle: `last activity ${formatTimestamp(thread.lastActivityAt)}`,
    instruction: truncate(thread.instructionSummary, 140),
    requestedBy: thread.requestedBy ? `@${thread.requestedBy.login}` : undefined,
    counters: counters.join(" · "),
    duration: thread.durationMs === undefined ? undefined : formatDuration(thread.durationMs),
    runningFor: isActiveStatus(thread.status) ? formatDuration(Math.max(0, now - thread.startedAt)) : undefined,
    lastError: thread.lastError ? truncate(thread.lastError, 300) : undefined,
    failedAgain: failedAgainNote(thread),
    continuedBy: thread.continuedBy ? `continued by ${truncate(thread.continuedBy, 80)}` : undefined,
    cost: thread.cost ? costView(thread.cost) : undefined,
    issueFailure,
    attentionTone: issueFailure && STATUS_TONE[status] !== "bad" ? "warn" : STATUS_TONE[status],
    canContinue: canContinue(thread)
  };
}

export type RepoGroup = {
  repo: string;
  threads: ThreadSummary[];
  latestActivityAt: number;
  /** "3 threads · 1 running · 1 recovering · 1 failed". */
  summary: string;
};

/**
 * Ties broken by session name in code-unit order: session names are
 * lowercase ASCII (src/shared/session-name.ts), and localeCompare's collator
 * costs the first paint some 10 ms on its first use.
 */
const bySession = (a: ThreadSummary, b: ThreadSummary) => (a.session < b.session ? -1 : a.session > b.session ? 1 : 0);

const byRecentActivity = (a: ThreadSummary, b: ThreadSummary) => b.lastActivityAt - a.lastActivityAt || bySession(a, b);

/** Groups by repository: the most recently active repository first, its threads newest first. */
export function groupByRepo(threads: readonly ThreadSummary[]): RepoGroup[] {
  const groups = new Map<string, ThreadSummary[]>();
  for (const thread of threads) {
    const key = thread.repo.toLowerCase();
    const list = groups.get(key);
    if (list) list.push(thread);
    else groups.set(key, [thread]);
  }
  return [...groups.values()]
    .map((list) => {
      const sorted = [...list].sort(byRecentActivity);
      const count = (status: DisplayStatus) => sorted.filter((thread) => displayStatus(thread) === status).length;
      const parts = [`${sorted.length} thread${sorted.length === 1 ? "" : "s"}`];
      for (const status of ["running", "recovering", "stale", "error"] as const) {
        const n = count(status);
        if (n > 0) parts.push(`${n} ${STATUS_LABEL[status]}`);
      }
      return {
        repo: sorted[0]!.repo,
        threads: sorted,
        latestActivityAt: sorted[0]!.lastActivityAt,
        summary: parts.join(" · ")
      };
    })
    .sort((a, b) => b.latestActivityAt - a.latestActivityAt || a.repo.localeCompare(b.repo));
}

/**
 * One list from several sources (live state first, then snapshot pages): one
 * entry per session, the copy with the latest activity winning (the earlier
 * source on a tie), newest first.
 */
export function mergeThreads(...sources: ReadonlyArray<readonly ThreadSummary[] | undefined>): ThreadSummary[] {
  const bySession = new Map<string, ThreadSummary>();
  for (const source of sources) {
    for (const thread of source ?? []) {
      const seen = bySession.get(thread.session);
      if (!seen || thread.lastActivityAt > seen.lastActivityAt) bySession.set(thread.session, thread);
    }
  }
  return [...bySession.values()].sort(byRecentActivity);
}

/**
 * Threads that need a human (failed, stale, or whose closing comment could
 * not be posted), oldest trouble first; then the threads in `keep` (just
 * continued: they stay to show the answer) that no longer qualify.
 */
export function needsAttention(threads: readonly ThreadSummary[], keep: Iterable<string> = []): ThreadSummary[] {
  const list = threads.filter(needsHuman).sort((a, b) => a.lastActivityAt - b.lastActivityAt);
  const listed = new Set(list.map((thread) => thread.session));
  for (const session of keep) {
    if (listed.has(session)) continue;
    const thread = threads.find((candidate) => candidate.session === session);
    if (thread) {
      list.push(thread);
      listed.add(session);
    }
  }
  return list;
}

/**
 * Threads running right now, recovering ones included (their run has not
 * ended; stale ones are in `needsAttention`), the longest-running first.
 */
export function runningNow(threads: readonly ThreadSummary[]): ThreadSummary[] {
  return threads
    .filter((thread) => {
      const status = displayStatus(thread);
      return status === "running" || status === "recovering";
    })
    .sort((a, b) => a.startedAt - b.startedAt || bySession(a, b));
}

/** Case-insensitive filter over repo, issue, title, requester and instruction. */
export function filterThreads(threads: readonly ThreadSummary[], query: string): ThreadSummary[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [...threads];
  return threads.filter((thread) =>
    [
      thread.repo,
      `#${thread.issueNumber}`,
      thread.issueTitle ?? "",
      thread.requestedBy?.login ?? "",
      thread.instructionSummary,
      thread.session,
      STATUS_LABEL[displayStatus(thread)]
    ].some((field) => field.toLowerCase().includes(needle))
  );
}
