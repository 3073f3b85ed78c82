/**
 * The browser's side of the first view (first-view.ts): the snapshot the
 * Worker put into `/`'s index.html, and whether #root holds the markup the
 * Worker rendered from it. Read once per document, by the entry; the entry
 * is a module script, so it runs once the whole page (the snapshot last)
 * is parsed. Reading the text is view-models/inline-snapshot.ts; the
 * element's contract is src/http/inline-snapshot.ts.
 */
import { FIRST_VIEW_ATTRIBUTE, INLINE_SNAPSHOT_ID } from "../http/inline-snapshot";
import { firstView, type FirstView } from "./first-view";
import { readInlineSnapshot } from "./view-models/inline-snapshot";

export function takeFirstView(): FirstView {
  const element = document.getElementById(INLINE_SNAPSHOT_ID);
  const view = firstView(readInlineSnapshot(element?.textContent, Date.now()), element?.hasAttribute(FIRST_VIEW_ATTRIBUTE) ?? false);
  element?.remove();
  return view;
}
