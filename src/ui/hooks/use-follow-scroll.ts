/**
 * Keeps the window scrolled to the end of what streams while a turn
 * streams, as long as the reader is already near it; scrolling away stops
 * the following. The end is the element `anchor` selects when there is one
 * (the latest run's end, with the older runs' lines below it), else the
 * bottom of the page.
 */
import { useEffect, useLayoutEffect, useRef } from "react";
import { browser } from "../browser";

const NEAR_BOTTOM_PX = 160;

/** How far below the viewport's bottom the end is (negative when above it). */
function endBelow(anchor: string | undefined): number {
  const element = anchor ? browser.document.querySelector(anchor) : null;
  if (element) return element.getBoundingClientRect().bottom - browser.innerHeight;
  return browser.document.documentElement.scrollHeight - (browser.innerHeight + browser.scrollY);
}

export function useFollowScroll(active: boolean, change: unknown, anchor?: string): void {
  const nearEnd = useRef(true);
  useEffect(() => {
    const onScroll = () => {
      nearEnd.current = endBelow(anchor) <= NEAR_BOTTOM_PX;
    };
    onScroll();
    browser.addEventListener("scroll", onScroll, { passive: true });
    return () => browser.removeEventListener("scroll", onScroll);
  }, [anchor]);
  useLayoutEffect(() => {
    if (!active || !nearEnd.current) return;
    const below = endBelow(anchor);
    if (below > 0) browser.scrollBy({ top: below + 16 });
  }, [active, change, anchor]);
}
