/**
 * Reading the registry: one page of the snapshot (`GET /api/command-center`)
 * and the metrics over the store. Pure: `now` and the stale window are
 * parameters.
 */
import {
  DEFAULT_SNAPSHOT_LIMIT,
  MAX_SNAPSHOT_LIMIT,
  type Metrics,
  type RunSummary,
  type ThreadDetail,
  type Snapshot,
  type SnapshotOptions
} from "../shared/command-center";
import { decodeCursor, encodeCursor } from "./cursor";
import { computeMetrics, METRICS_WINDOW_MS, SPEND_WINDOW_MS, type ActivityMetrics } from "./metrics";
import { toSummary } from "./staleness";
import type { RegistryStore, RunRecord, ThreadRecord } from "./store";

/** A cursor this module did not write, or a limit outside 1–200. */
export class SnapshotOptionsError extends Error {
  override name = "SnapshotOptionsError";
  readonly code = "invalid_snapshot_options";
}

export function metricsOf(store: RegistryStore, now: number): Metrics {
  return { ...activityOf(store, now), ...spendOf(store, now) };
}

/** The last 24 hours' metrics, without the spend (which the CommandCenterAgent keeps longer: it scans a week). */
export function activityOf(store: RegistryStore, now: number): ActivityMetrics {
  const since = now - METRICS_WINDOW_MS;
  return computeMetrics(store.runsTouchedSince(since), store.toolCallStats(since), now);
}

export type SpendMetrics = Pick<Metrics, "spendToday" | "spend7d" | "spendByRepo" | "costliestRuns" | "reporterSpendToday">;

/** The entries each spend list shows. */
export const SPEND_TOP = 5;

/** Spend since midnight UTC and over the last 7 days, per repository, and the costliest runs of those 7 days. */
export function spendOf(store: RegistryStore, now: number): SpendMetrics {
  const midnight = new Date(now);
  midnight.setUTCHours(0, 0, 0, 0);
  const week = store.spendSince(now - SPEND_WINDOW_MS, SPEND_TOP);
  const reporters = store.reporterSpendSince(midnight.getTime()).slice(0, SPEND_TOP);
  return {
    ...(reporters.length ? { reporterSpendToday: reporters } : {}),
    spendToday: store.spendSince(midnight.getTime(), 0).total,
    spend7d: week.total,
    spendByRepo: week.byRepo,
    costliestRuns: week.costliest.flatMap((run) =>
      run.repo && run.issueNumber && run.endedAt !== undefined && run.cost
        ? [{ session: run.session, repo: run.repo, issueNumber: run.issueNumber, submissionId: run.submissionId, endedAt: run.endedAt, cost: run.cost }]
        : []
    )
  };
}

/** Threads newest activity first, `limit` of them after `cursor`, with the cursor of the next page if there is one. */
export function snapshotPage(
  store: RegistryStore,
  options: SnapshotOptions,
  now: number,
  staleRunMs: number,
  metrics: Metrics = metricsOf(store, now)
): Snapshot {
  const limit = options.limit ?? DEFAULT_SNAPSHOT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SNAPSHOT_LIMIT) {
    throw new SnapshotOptionsError(`limit must be an integer from 1 to ${MAX_SNAPSHOT_LIMIT}`);
  }
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
  if (after === null) throw new SnapshotOptionsError("cursor is not one this server wrote");

  const rows = store.pageThreads(after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    metrics,
    threads: page.map((thread) => toSummary(thread, now, staleRunMs)),
    total: store.countThreads(),
    ...(rows.length > limit && last ? { nextCursor: encodeCursor({ lastActivityAt: last.lastActivityAt, session: last.session }) } : {}),
    generatedAt: now
  };
}

/**
 * One thread and its runs still kept (a week and a day), newest first, for
 * its page; null for a session the command center has no thread for.
 */
export function threadDetail(store: RegistryStore, session: string, now: number, staleRunMs: number): ThreadDetail | null {
  const thread = store.getThread(session);
  if (!thread) return null;
  const runs = store.runsOf(session);
  // The current run's record may be pruned or not yet written: the thread knows it.
  if (!runs.some((run) => run.submissionId === thread.submissionId)) {
    runs.push({ session, submissionId: thread.submissionId, dispatchedAt: thread.startedAt, toolCalls: 0, toolErrors: 0, touchedAt: thread.lastActivityAt });
  }
  const newest = (run: RunRecord) => run.dispatchedAt ?? run.touchedAt;
  return {
    thread: toSummary(thread, now, staleRunMs),
    runs: runs
      .filter((run) => run.dispatchedAt !== undefined || run.submissionId === thread.submissionId)
      .sort((a, b) => newest(b) - newest(a))
      .map((run) => runSummary(run, thread))
  };
}

function runSummary(run: RunRecord, thread: ThreadRecord): RunSummary {
  const current = run.submissionId === thread.submissionId;
  const status: RunSummary["status"] =
    run.status ?? (current && (thread.status === "running" || thread.status === "recovering") ? thread.status : run.turnStartedAt !== undefined ? "running" : "queued");
  return {
    submissionId: run.submissionId,
    status,
    ...(run.dispatchedAt === undefined ? {} : { dispatchedAt: run.dispatchedAt }),
    ...(run.turnStartedAt === undefined ? {} : { turnStartedAt: run.turnStartedAt }),
    ...(run.endedAt === undefined ? {} : { endedAt: run.endedAt }),
    ...(run.error === undefined ? {} : { error: run.error }),
    ...(run.tokens === undefined ? {} : { tokens: run.tokens }),
    ...(run.cost === undefined ? {} : { cost: run.cost }),
    // The current run's tool calls are on the thread when its record was rebuilt.
    toolCalls: run.toolCalls,
    ...(run.continuedBy === undefined ? {} : { continuedBy: run.continuedBy }),
    ...(run.continuedFromGitHub === undefined ? {} : { continuedFromGitHub: run.continuedFromGitHub }),
    ...(run.scripted ? { scripted: true } : {}),
    ...(run.tier ? { tier: run.tier } : {}),
    ...(run.models?.length ? { models: [...run.models] } : {}),
    ...(run.outcome === undefined ? {} : { outcome: run.outcome }),
    ...(run.proven === undefined ? {} : { proven: run.proven }),
    ...(run.reproduction === undefined ? {} : { reproductionUrl: run.reproduction.url }),
    ...(run.blocked?.length ? { blocked: run.blocked.map((entry) => ({ host: entry.host, method: entry.method, count: entry.count })) } : {}),
    ...(run.privateSources?.length ? { privateSources: [...run.privateSources] } : {})
  };
}
