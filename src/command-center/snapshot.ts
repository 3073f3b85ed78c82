/**
 * Reading the registry: one page of the snapshot (`GET /api/command-center`)
 * and the metrics over the store. Pure: `now` and the stale window are
 * parameters.
 */
import {
  DEFAULT_SNAPSHOT_LIMIT,
  MAX_SNAPSHOT_LIMIT,
  type Metrics,
  type Snapshot,
  type SnapshotOptions
} from "../shared/command-center";
import { decodeCursor, encodeCursor } from "./cursor";
import { computeMetrics, METRICS_WINDOW_MS } from "./metrics";
import { toSummary } from "./registry";
import type { RegistryStore } from "./store";

/** A cursor this module did not write, or a limit outside 1–200. */
export class SnapshotOptionsError extends Error {
  override name = "SnapshotOptionsError";
  readonly code = "invalid_snapshot_options";
}

export function metricsOf(store: RegistryStore, now: number): Metrics {
  const since = now - METRICS_WINDOW_MS;
  return computeMetrics(store.runsTouchedSince(since), store.toolCallStats(since), now);
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
