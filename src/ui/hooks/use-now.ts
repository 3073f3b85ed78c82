/**
 * The current time, re-rendering every `intervalMs` so relative times
 * ("2 min ago") stay true. While the Worker's markup is hydrated it is the
 * time that markup was rendered at, so the text matches; the render after
 * hydration has the browser's clock.
 */
import { useEffect, useState } from "react";
import { useFirstView } from "../first-view";
import { useServerMarkup } from "./use-server-markup";

export const NOW_TICK_MS = 10_000;

export function useNow(intervalMs: number = NOW_TICK_MS): number {
  const { renderedAt } = useFirstView();
  const serverMarkup = useServerMarkup();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return serverMarkup && renderedAt !== null ? renderedAt : now;
}
