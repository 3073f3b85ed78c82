/**
 * Keeps the window scrolled to the end of what streams while a turn
 * streams, as long as the reader is already near it; scrolling away stops
 * the following. The end is the element `anchor` selects when there is one
 * (the latest run's end, with the older runs' lines below it), else the
 * bottom of the page.
 */
import { useEffect, useLayoutEffect, useRef } from "react";

const NEAR_BOTTOM_PX = 160;

/** How far below the viewport's bottom the end is (negative when above it). */
function endBelow(anchor: string | undefined): number {
  const element = anchor ? document.querySelector(anchor) : null;
  if (element) return element.getBoundingClientRect().bottom - window.innerHeight;
  return document.documentElement.scrollHeight - (window.innerHeight + window.scrollY);
}

export function useFollowScroll(active: boolean, change: unknown, anchor?: string): void {
  const nearEnd = useRef(true);
  useEffect(() => {
    const onScroll = () => {
      nearEnd.current = endBelow(anchor) <= NEAR_BOTTOM_PX;
    };
    onScroll();
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, [anchor]);
  useLayoutEffect(() => {
    if (!active || !nearEnd.current) return;
    const below = endBelow(anchor);
    if (below > 0) window.scrollBy({ top: below + 16 });
  }, [active, change, anchor]);
}
