/**
 * What a document's first render is drawn from, the same on the Worker
 * (src/http/first-view.tsx) and in the browser that hydrates its markup:
 * the snapshot `/` came with and the clock the Worker rendered it at. The
 * browser reads it from the page in inline-snapshot.ts; this module reads
 * no DOM.
 */
import { createContext, useContext } from "react";
import type { InlineSnapshot } from "./view-models/inline-snapshot";

export type FirstView = {
  /** The snapshot until `release()` (the same answer for StrictMode's second render). */
  peek(): InlineSnapshot | null;
  /** Once the page that showed it has mounted: no later mount reuses it. */
  release(): void;
  /** The time the Worker's markup in #root was rendered at (its snapshot's generatedAt); null when #root holds none. */
  renderedAt: number | null;
};

/** `rendered`: #root holds the Worker's markup of this snapshot, to be hydrated. */
export function firstView(inline: InlineSnapshot | null, rendered: boolean): FirstView {
  let taken = inline;
  return {
    peek: () => taken,
    release: () => {
      taken = null;
    },
    renderedAt: rendered && inline ? inline.snapshot.generatedAt : null
  };
}

export const FirstViewContext = createContext<FirstView>(firstView(null, false));

export const useFirstView = (): FirstView => useContext(FirstViewContext);
