/**
 * The records the command center keeps and the narrow store it keeps them
 * in. The registry (registry.ts) holds all the rules and works over this
 * interface; the Durable Object backs it with SQLite (sql-store.ts) and the
 * unit tests with an in-memory fake. Pure: types only.
 *
 * A store does no validation and makes no decisions; every method is
 * synchronous so the registry's read-check-write stays atomic inside one
 * Durable Object transaction.
 */
import type { BlockedRequest, Cost, EndedStatus, GitHubContinuation, IssueMessages, ThreadStatus, TokenUsage } from "../shared/command-center";
import type { ResultOutcome } from "../shared/outcomes";
import type { RunTier } from "../shared/dispatch";

/** One issue's session as stored: the summary the dashboard lists, without derived fields. */
export type ThreadRecord = {
  session: string;
  repo: string;
  issueNumber: number;
  issueTitle?: string;
  requestedBy?: { login: string; avatarUrl?: string };
  instructionSummary: string;
  status: ThreadStatus;
  /** Runs of this thread, a pending continuation claim included. */
  runCount: number;
  /** Totals over every run of the thread. */
  toolCalls: number;
  toolErrors: number;
  tokens?: TokenUsage;
  /** What the thread's ended runs cost, summed. */
  cost?: Cost;
  /** Who continued the current run from the dashboard. */
  continuedBy?: string;
  /** Who continued the current run from GitHub, and the comment that asked. */
  continuedFromGitHub?: GitHubContinuation;
  /** Ended runs in a row that failed, the current one included; absent when it did not fail. */
  failures?: number;
  /** The current run's recoveries, when it had any. */
  recoveries?: number;
  /**
   * When the command center last asked the current run's agent whether it
   * had ended and heard that it had not (or could not hear): a quiet active
   * thread is called stale only once asked (staleness.ts `isStale`).
   */
  quietCheckedAt?: number;
  /** The latest run's error; cleared when a run ends done or cancelled (a cancel never sets it). */
  lastError?: string;
  /** The current run: the latest dispatched one. */
  submissionId: string;
  /** When the current run was dispatched. */
  startedAt: number;
  turnStartedAt?: number;
  lastActivityAt: number;
  firstToolMs?: number;
  durationMs?: number;
  /** What the current run posted on its issue, or could not. */
  issueMessages?: IssueMessages;
  /**
   * The issue's latest reproduction page, as its run reported it. Outlives
   * the run: carried over to the next run until a publication replaces it.
   */
  reproductionUrl?: string;
  /** Requests the egress gateway refused the current run, summed over its tally; absent when none were. */
  blockedRequests?: number;
  /** When the thread was first dispatched. */
  createdAt: number;
  /**
   * A continuation claimed this thread and its `dispatched` event has not
   * arrived yet. While set, the old submission's events no longer reach the
   * thread. `fromGitHub`: a maintainer's `continue` on GitHub claimed it;
   * the continuation's run takes it when its `dispatched` arrives.
   */
  claim?: { at: number; fromGitHub?: GitHubContinuation };
};

/** One run (one submission) as the metrics need it; also buffers events that arrive before their `dispatched`. */
export type RunRecord = {
  session: string;
  submissionId: string;
  /** From its `dispatched` event: where the run's spend is counted. */
  repo?: string;
  issueNumber?: number;
  dispatchedAt?: number;
  turnStartedAt?: number;
  firstToolAt?: number;
  endedAt?: number;
  status?: EndedStatus;
  /** Think's chat recovery: how many times it took the turn over, and whether the latest has resumed. */
  recovery?: { count: number; state: "recovering" | "resumed" };
  /** What failed, for `error` only. */
  error?: string;
  tokens?: TokenUsage;
  cost?: Cost;
  /** It ran on the scripted model. */
  scripted?: boolean;
  /** From its `dispatched` event: a reporter-tier run, counted against REPORTER_DAILY_BUDGET. */
  tier?: RunTier;
  /** The models that served its steps, in the order they first did. */
  models?: string[];
  /** What it reported with `report_result`. */
  outcome?: ResultOutcome;
  /** Whether its pull request's proof held (src/run/fix-proof.ts); absent when it needed none. */
  proven?: boolean;
  /** Who continued it from the dashboard. */
  continuedBy?: string;
  /** Who continued it from GitHub, and the comment that asked. */
  continuedFromGitHub?: GitHubContinuation;
  /** Its issue messages that settled, by kind. */
  notices?: IssueMessages;
  /** When the first of them was posted (its `sent` notice's `at`): the run's first response on the issue. */
  firstMessageAt?: number;
  /** The latest reproduction page this run published, and when (a later publication replaces it). */
  reproduction?: { url: string; at: number };
  /** What the egress gateway refused it, per host and method: its largest tally (egress.ts). */
  blocked?: BlockedRequest[];
  /** The private registries it was given a credential for, by host, sorted (egress.ts). */
  privateSources?: string[];
  toolCalls: number;
  toolErrors: number;
  /** The latest `at` of any event of this run; what retention prunes by. */
  touchedAt: number;
};

/** What the runs that ended in a window cost: all of them, per repository and the costliest runs (each most expensive first). */
export type Spend = {
  total: Cost;
  byRepo: Array<{ repo: string; runs: number; cost: Cost }>;
  costliest: RunRecord[];
};

/** Where the next page starts: after this thread in newest-activity-first order. */
export type ThreadCursor = { lastActivityAt: number; session: string };

export interface RegistryStore {
  getThread(session: string): ThreadRecord | undefined;
  putThread(thread: ThreadRecord): void;
  /** Active threads whose last activity is before `before`, the quietest first, at most `limit`. */
  quietActiveThreads(before: number, limit: number): ThreadRecord[];
  /** The quietest active thread that is not stale at `now` (staleness.ts `isStale`): the next one to go quiet, or to ask about. */
  quietestUnsettled(now: number, staleRunMs: number): ThreadRecord | undefined;
  /** Threads by lastActivityAt descending, then session descending, strictly after `after`. */
  pageThreads(after: ThreadCursor | undefined, limit: number): ThreadRecord[];
  countThreads(): number;

  getRun(session: string, submissionId: string): RunRecord | undefined;
  putRun(run: RunRecord): void;
  /** Runs with touchedAt >= since. */
  runsTouchedSince(since: number): RunRecord[];
  /** The session's runs still kept, in no order. */
  runsOf(session: string): RunRecord[];
  /** The spend of runs that ended at or after `since` (a run with no cost is unknown, so its totals are floors); `top` entries per list. */
  spendSince(since: number, top: number): Spend;
  /** What the reporter-tier runs that ended since `since` cost, per repository (lowercased), most expensive first. */
  reporterSpendSince(since: number): Spend["byRepo"];

  /** Remember one tool call; false when this (session, submission, key) was seen before. */
  addToolCall(call: { session: string; submissionId: string; key: string; at: number; ok: boolean }): boolean;
  /** Tool calls with at >= since, and how many of them failed. */
  toolCallStats(since: number): { calls: number; errors: number };

  /** Forget runs touched and tool calls made before `before`. Threads are kept forever. */
  /** Forget runs touched before `runsBefore` and tool calls before `toolCallsBefore`. */
  prune(runsBefore: number, toolCallsBefore: number): void;
}
