/**
 * The command center's data for the dashboard: the snapshot `/` came with
 * (first-view.ts) for the first paint, else `GET /api/command-center`;
 * the CommandCenterAgent's state synced live over its socket, whose chunk
 * loads once the first frame is drawn (command-center-socket.ts,
 * after-paint.ts); and snapshots for older
 * pages and every few seconds while the socket is down (or has not
 * delivered state yet).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { CommandCenterState, Snapshot } from "../../shared/command-center";
import { fetchSnapshot, parseLiveState } from "../api";
import { useFirstView } from "../first-view";
import { afterNextPaint } from "./after-paint";
import {
  combineSources,
  COMMAND_CENTER_NAME,
  pollDelayMs,
  POLL_INTERVAL_MS,
  shouldPoll,
  type DashboardData,
  type SocketStatus
} from "../view-models/dashboard";

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
  const first = useFirstView();
  const [inline] = useState(first.peek);
  const [live, setLive] = useState<CommandCenterState | null>(null);
  const [firstPage, setFirstPage] = useState<Snapshot | null>(inline?.snapshot ?? null);
  const [olderPages, setOlderPages] = useState<Snapshot[]>([]);
  const [socket, setSocket] = useState<SocketStatus>("connecting");
  const [error, setError] = useState<string | null>(null);
  const [pollError, setPollError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [refreshes, setRefreshes] = useState(0);
  const failures = useRef(0);

  useEffect(() => {
    let open = true;
    let close: (() => void) | undefined;
    const cancel = afterNextPaint(() => {
      import("./command-center-socket").then(
        ({ openCommandCenterSocket }) => {
          if (!open) return;
          close = openCommandCenterSocket(COMMAND_CENTER_AGENT, COMMAND_CENTER_NAME, {
            onOpen: () => open && setSocket("open"),
            onClose: () => open && setSocket("closed"),
            onState: (state) => {
              const parsed = parseLiveState(state);
              if (open && parsed) setLive(parsed);
            }
          });
        },
        (reason: unknown) => {
          // The chunk did not load (a deploy replaced it): the poll carries on.
          console.warn(`[agent-think] the live socket could not be loaded: ${message(reason)}`);
          if (open) setSocket("closed");
        }
      );
    });
    return () => {
      open = false;
      cancel();
      close?.();
    };
  }, []);

  // The first page, once on mount (unless `/` came with a fresh one) and
  // whenever asked: the first paint does not wait for the socket.
  useEffect(() => {
    first.release();
    if (refreshes === 0 && inline?.fresh) return;
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
  }, [refreshes, inline, first]);

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
