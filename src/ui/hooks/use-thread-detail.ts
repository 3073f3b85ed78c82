/**
 * A thread's detail (`GET /api/command-center/threads/:session`: the thread
 * and its runs, newest first), read on the first paint and again whenever
 * `changeKey` changes (the command center's summary or the transcript moved
 * on), and every few seconds while `active`, so a run's line follows it.
 * A 404 says the command center has no such thread.
 */
import { useEffect, useRef, useState } from "react";
import type { ThreadDetail } from "../../shared/command-center";
import { ApiError, fetchThreadDetail } from "../api";

export type ThreadDetailState = {
  detail: ThreadDetail | null;
  /** The API answered 404: the command center knows no such thread. */
  notFound: boolean;
  /** The last read failed otherwise (the page goes by the transcript and the summary). */
  error: string | null;
  /** The first read answered, one way or another. */
  settled: boolean;
};

const ACTIVE_POLL_MS = 5_000;
/** Changes come in bursts (a tool call, then the summary): read once they settle. */
const DEBOUNCE_MS = 250;

export function useThreadDetail(session: string, changeKey: string, active: boolean): ThreadDetailState {
  const [state, setState] = useState<ThreadDetailState>({ detail: null, notFound: false, error: null, settled: false });
  const [tick, setTick] = useState(0);
  // Until the first answer, read at once; after it, changes are debounced.
  const answered = useRef(false);

  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setTick((n) => n + 1), ACTIVE_POLL_MS);
    return () => clearInterval(timer);
  }, [active]);

  useEffect(() => {
    const abort = new AbortController();
    const load = async () => {
      try {
        const detail = await fetchThreadDetail(session, abort.signal);
        answered.current = true;
        setState({ detail, notFound: false, error: null, settled: true });
      } catch (reason) {
        if (abort.signal.aborted) return;
        answered.current = true;
        if (reason instanceof ApiError && reason.status === 404) setState({ detail: null, notFound: true, error: null, settled: true });
        else setState((previous) => ({ ...previous, error: reason instanceof Error ? reason.message : String(reason), settled: true }));
      }
    };
    const timer = setTimeout(() => void load(), answered.current ? DEBOUNCE_MS : 0);
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [session, changeKey, tick]);

  return state;
}
