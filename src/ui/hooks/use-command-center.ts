/**
 * The command center's data for the dashboard: the CommandCenterAgent's
 * state synced live over its socket, plus `GET /api/command-center`
 * snapshots for the first paint, for older pages, and every few seconds
 * while the socket is down (or has not delivered state yet).
 */
import { useAgent } from "agents/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { COMMAND_CENTER_NAME, type CommandCenterState, type Snapshot } from "../../shared/command-center";
import { fetchSnapshot, parseLiveState } from "../api";
import { combineSources, pollDelayMs, POLL_INTERVAL_MS, shouldPoll, type DashboardData, type SocketStatus } from "../view-models/dashboard";

export const COMMAND_CENTER_AGENT = "command-center-agent";

export type CommandCenterData = DashboardData & {
  socket: SocketStatus;
  polling: boolean;
  /** Nothing to show yet, and no error either. */
  loading: boolean;
  /** Why there is nothing to show (first load failed and no live state). */
  error: string | null;
  /** The last poll failed (data shown may be old). */
  pollError: string | null;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore: () => void;
  /** Fetch the first page now (after a continue, or from the error state). */
  refresh: () => void;
};

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function useCommandCenter(): CommandCenterData {
  const [live, setLive] = useState<CommandCenterState | null>(null);
  const [firstPage, setFirstPage] = useState<Snapshot | null>(null);
  const [olderPages, setOlderPages] = useState<Snapshot[]>([]);
  const [socket, setSocket] = useState<SocketStatus>("connecting");
  const [error, setError] = useState<string | null>(null);
  const [pollError, setPollError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [refreshes, setRefreshes] = useState(0);
  const failures = useRef(0);

  useAgent({
    agent: COMMAND_CENTER_AGENT,
    name: COMMAND_CENTER_NAME,
    onOpen: () => setSocket("open"),
    onClose: () => setSocket("closed"),
    onStateUpdate: (state: unknown) => {
      const parsed = parseLiveState(state);
      if (parsed) setLive(parsed);
    }
  });

  // The first page, once on mount and whenever asked: the first paint does
  // not wait for the socket.
  useEffect(() => {
    const abort = new AbortController();
    fetchSnapshot(undefined, abort.signal).then(
      (snapshot) => {
        setFirstPage(snapshot);
        setError(null);
        setPollError(null);
      },
      (reason: unknown) => {
        if (!abort.signal.aborted) setError(message(reason));
      }
    );
    return () => abort.abort();
  }, [refreshes]);

  const polling = shouldPoll(socket, live !== null);
  useEffect(() => {
    if (!polling) {
      failures.current = 0;
      setPollError(null);
      return;
    }
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      try {
        const snapshot = await fetchSnapshot(undefined, abort.signal);
        failures.current = 0;
        setFirstPage(snapshot);
        setError(null);
        setPollError(null);
      } catch (reason) {
        if (abort.signal.aborted) return;
        failures.current += 1;
        setPollError(message(reason));
      }
      if (!abort.signal.aborted) timer = setTimeout(tick, pollDelayMs(failures.current));
    };
    timer = setTimeout(tick, POLL_INTERVAL_MS);
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [polling]);

  const lastPage = olderPages.at(-1) ?? firstPage;
  const nextCursor = lastPage?.nextCursor;
  const loadMore = useCallback(() => {
    if (!nextCursor || loadingMore) return;
    setLoadingMore(true);
    fetchSnapshot(nextCursor).then(
      (page) => {
        setOlderPages((pages) => [...pages, page]);
        setLoadingMore(false);
      },
      (reason: unknown) => {
        setPollError(message(reason));
        setLoadingMore(false);
      }
    );
  }, [nextCursor, loadingMore]);

  const refresh = useCallback(() => setRefreshes((n) => n + 1), []);

  const data = useMemo(
    () => combineSources(live, firstPage ? [firstPage, ...olderPages] : olderPages),
    [live, firstPage, olderPages]
  );
  const hasData = live !== null || firstPage !== null;
  return {
    ...data,
    socket,
    polling,
    loading: !hasData && error === null,
    error: hasData ? null : error,
    pollError,
    hasMore: Boolean(nextCursor),
    loadingMore,
    loadMore,
    refresh
  };
}
