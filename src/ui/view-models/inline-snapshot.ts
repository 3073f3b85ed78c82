/**
 * The first snapshot the Worker put into index.html (src/http/inline-snapshot.ts),
 * read like a fetched one (`readSnapshot`, no zod). Absent or unreadable, the
 * SPA asks the API as it always did; older than INLINE_FRESH_MS by this
 * browser's clock (a page kept open, a restored tab, a clock apart from the
 * server's), it is shown and a fresh page asked for at once. Pure.
 */
import type { Snapshot } from "../../shared/command-center";
import { readSnapshot } from "./wire";

/** Young enough to stand for the first page without asking the API again. */
export const INLINE_FRESH_MS = 30_000;

export type InlineSnapshot = { snapshot: Snapshot; fresh: boolean };

/** The element's text read as a snapshot, or null: then there is nothing to show until the API answers. */
export function readInlineSnapshot(text: string | null | undefined, now: number): InlineSnapshot | null {
  if (!text) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const read = readSnapshot(body);
  if (!read.ok) return null;
  const age = now - read.value.generatedAt;
  return { snapshot: read.value, fresh: age >= -INLINE_FRESH_MS && age <= INLINE_FRESH_MS };
}
