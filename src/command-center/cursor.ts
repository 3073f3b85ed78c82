/**
 * The snapshot's paging cursor: an opaque base64url token naming the last
 * thread of a page (its last activity and session). Keyset paging over
 * (lastActivityAt desc, session desc) is stable: a page never repeats or
 * skips a thread because others were added. Pure.
 */
import type { ThreadCursor } from "./store";

const MAX_CURSOR_CHARS = 1_024;

export function encodeCursor(cursor: ThreadCursor): string {
  const bytes = new TextEncoder().encode(`${cursor.lastActivityAt}:${cursor.session}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The cursor, or null for anything this module did not write. */
export function decodeCursor(text: string): ThreadCursor | null {
  if (text.length === 0 || text.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  let decoded: string;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
  } catch {
    return null;
  }
  const separator = decoded.indexOf(":");
  if (separator <= 0) return null;
  const head = decoded.slice(0, separator);
  const lastActivityAt = Number(head);
  const session = decoded.slice(separator + 1);
  if (!/^\d+(\.\d+)?$/.test(head) || !Number.isFinite(lastActivityAt) || session.length === 0) return null;
  return { lastActivityAt, session };
}
