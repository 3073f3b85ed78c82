/**
 * The snapshot the Worker put into `/`'s index.html, taken once per
 * document: the command center's first mount shows it, a later mount
 * (back from a thread) asks the API as before. The entry is a module
 * script, so it runs once the whole page (the snapshot last) is parsed. Reading it is
 * view-models/inline-snapshot.ts; the element's contract is
 * src/http/inline-snapshot.ts.
 */
import { INLINE_SNAPSHOT_ID } from "../http/inline-snapshot";
import { readInlineSnapshot, type InlineSnapshot } from "./view-models/inline-snapshot";

let taken: InlineSnapshot | null | undefined;

/** The document's snapshot until `releaseInlineSnapshot` (the same answer for StrictMode's second render). */
export function peekInlineSnapshot(): InlineSnapshot | null {
  if (taken === undefined) {
    const element = document.getElementById(INLINE_SNAPSHOT_ID);
    taken = readInlineSnapshot(element?.textContent, Date.now());
    element?.remove();
  }
  return taken;
}

/** Once the page that showed it has mounted: no later mount reuses it. */
export function releaseInlineSnapshot(): void {
  taken = null;
}
