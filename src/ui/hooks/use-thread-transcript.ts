/**
 * One thread's live transcript: the ThinkAgent socket followed by a
 * read-only TranscriptFeed, with `GET …/get-messages` for the first paint
 * and, every few seconds, while the socket is down.
 */
import { useAgent } from "agents/react";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { fetchTranscript } from "../api";
import { pollDelayMs, POLL_INTERVAL_MS, type SocketStatus } from "../view-models/dashboard";
import { TranscriptFeed, type FeedSnapshot } from "./transcript-feed";

export const THINK_AGENT = "think-agent";

export type ThreadTranscript = FeedSnapshot & {
  socket: SocketStatus;
  /** Nothing loaded yet, from either source. */
  loading: boolean;
  /** The HTTP transcript could not be read (and the socket has not delivered one). */
  error: string | null;
};

const createId = () => crypto.randomUUID();

export function useThreadTranscript(session: string): ThreadTranscript {
  const socketRef = useRef<{ send(data: string): void } | null>(null);
  // One feed per mounted page; the page is keyed by session.
  const [feed] = useState(() => new TranscriptFeed({ send: (frame) => socketRef.current?.send(frame), createId }));
  const [socket, setSocket] = useState<SocketStatus>("connecting");
  const [httpLoaded, setHttpLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const agent = useAgent({
    agent: THINK_AGENT,
    name: session,
    onOpen: () => {
      setSocket("open");
      feed.opened();
    },
    onClose: () => {
      setSocket("closed");
      feed.closed();
    },
    onMessage: (event: MessageEvent) => feed.receive(event.data)
  });
  socketRef.current = agent;

  const snapshot = useSyncExternalStore(feed.subscribe, feed.getSnapshot);

  // First paint over HTTP, then again every few seconds while the socket is
  // down. (The page is keyed by session, so all of this starts afresh per thread.)
  const socketDown = socket !== "open";
  const loadedOnce = useRef(false);
  useEffect(() => {
    if (loadedOnce.current && !socketDown) return;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const load = async () => {
      try {
        feed.loaded(await fetchTranscript(session, abort.signal));
        loadedOnce.current = true;
        failures = 0;
        setHttpLoaded(true);
        setError(null);
      } catch (reason) {
        if (abort.signal.aborted) return;
        failures += 1;
        setError(reason instanceof Error ? reason.message : String(reason));
      }
      if (socketDown && !abort.signal.aborted) timer = setTimeout(load, pollDelayMs(failures));
    };
    if (loadedOnce.current) timer = setTimeout(load, POLL_INTERVAL_MS);
    else void load();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [feed, session, socketDown]);

  const hasTranscript = snapshot.synced || httpLoaded;
  return {
    ...snapshot,
    socket,
    loading: !hasTranscript && error === null,
    error: hasTranscript ? null : error
  };
}
