/**
 * The command center's data, from two sources: the live state synced over
 * the CommandCenterAgent's socket (metrics and the most recent threads) and
 * snapshots polled from `GET /api/command-center` (first paint, older pages,
 * and the fallback while the socket is down). Decides which metrics are
 * fresher, merges the thread lists, and when to poll. Pure.
 */
import type { CommandCenterState, Metrics, Snapshot, ThreadSummary } from "../../shared/command-center";
import { mergeThreads } from "./threads";

export type SocketStatus = "connecting" | "open" | "closed";

/** The command center the dashboard shows (zod-free, so the entry chunk stays without zod). */
export { COMMAND_CENTER_NAME } from "../../shared/command-center-name";

export type DashboardData = {
  metrics: Metrics | null;
  threads: ThreadSummary[];
  /** Threads the command center knows, loaded or not. */
  total: number;
  /** When the figures shown were computed. */
  asOf: number | null;
  /** Where the freshest figures came from. */
  source: "live" | "snapshot" | "none";
};

export function combineSources(
  live: CommandCenterState | null,
  snapshots: readonly Snapshot[]
): DashboardData {
  const latestSnapshot = snapshots.reduce<Snapshot | null>(
    (best, snapshot) => (!best || snapshot.generatedAt > best.generatedAt ? snapshot : best),
    null
  );
  // Freshest source first: it wins a tie on last activity, which is how a
  // change that is not activity (an issue message settling) gets through.
  const sources = [
    ...(live ? [{ at: live.updatedAt, threads: live.recent }] : []),
    ...snapshots.map((snapshot) => ({ at: snapshot.generatedAt, threads: snapshot.threads }))
  ].sort((a, b) => b.at - a.at);
  const threads = mergeThreads(...sources.map((source) => source.threads));
  if (live && (!latestSnapshot || live.updatedAt >= latestSnapshot.generatedAt)) {
    return { metrics: live.metrics, threads, total: Math.max(live.total, threads.length), asOf: live.updatedAt, source: "live" };
  }
  if (latestSnapshot) {
    return {
      metrics: latestSnapshot.metrics,
      threads,
      total: Math.max(latestSnapshot.total, threads.length),
      asOf: latestSnapshot.generatedAt,
      source: "snapshot"
    };
  }
  return { metrics: null, threads, total: threads.length, asOf: null, source: "none" };
}

/** Poll while the socket is not open, or is open but has not delivered state yet. */
export function shouldPoll(socket: SocketStatus, hasLiveState: boolean): boolean {
  return socket !== "open" || !hasLiveState;
}

/** How often to poll: every few seconds, backing off after failures up to half a minute. */
export const POLL_INTERVAL_MS = 3_000;
export const MAX_POLL_INTERVAL_MS = 30_000;

export function pollDelayMs(consecutiveFailures: number): number {
  const failures = Math.max(0, Math.min(consecutiveFailures, 10));
  return Math.min(MAX_POLL_INTERVAL_MS, POLL_INTERVAL_MS * 2 ** failures);
}

/** The first page's size, and how a later page is asked for. */
export const SNAPSHOT_PAGE_SIZE = 100;

export function snapshotPath(cursor?: string, limit: number = SNAPSHOT_PAGE_SIZE): string {
  const params = new URLSearchParams();
  if (cursor) params.set("cursor", cursor);
  params.set("limit", String(limit));
  return `/api/command-center?${params.toString()}`;
}

export type ConnectionView = { label: string; tone: "good" | "warn" | "bad"; title: string };

/** The connection badge in the header. */
export function connectionView(socket: SocketStatus, polling: boolean, pollError: boolean): ConnectionView {
  if (socket === "open" && !polling) return { label: "live", tone: "good", title: "Live: updates arrive over the socket." };
  if (pollError) return { label: "offline", tone: "bad", title: "The socket is down and polling fails: retrying." };
  if (socket === "connecting" && !polling) return { label: "connecting", tone: "warn", title: "Connecting the live socket." };
  return { label: "polling", tone: "warn", title: "The live socket is down: polling every few seconds." };
}
