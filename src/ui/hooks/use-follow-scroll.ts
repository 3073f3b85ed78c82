/**
 * Keeps the window scrolled to the bottom while a turn streams, as long as
 * the reader is already near the bottom; scrolling up stops the following.
 */
import { useEffect, useLayoutEffect, useRef } from "react";

const NEAR_BOTTOM_PX = 160;

export function useFollowScroll(active: boolean, change: unknown): void {
  const nearBottom = useRef(true);
  useEffect(() => {
    const onScroll = () => {
      const doc = document.documentElement;
      nearBottom.current = window.innerHeight + window.scrollY >= doc.scrollHeight - NEAR_BOTTOM_PX;
    };
    onScroll();
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, []);
  useLayoutEffect(() => {
    if (active && nearBottom.current) window.scrollTo({ top: document.documentElement.scrollHeight });
  }, [active, change]);
}
