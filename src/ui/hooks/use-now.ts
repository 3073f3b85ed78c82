/** The current time, re-rendering every `intervalMs` so relative times ("2 min ago") stay true. */
import { useEffect, useState } from "react";

export const NOW_TICK_MS = 10_000;

export function useNow(intervalMs: number = NOW_TICK_MS): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
