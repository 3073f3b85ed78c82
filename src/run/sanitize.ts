/**
 * Prompt-injection hygiene for text a commenter controls (the instruction,
 * the issue title, later the issue body and comments): hidden HTML comments
 * and zero-width or bidi-control characters are removed before the text
 * reaches the model, and what was removed is noted so the model (and a
 * reader of the transcript) knows. The text still reaches the model only as
 * data inside the run envelope. Pure.
 */
export type Removed = "html-comments" | "invisible-characters";

export type Sanitized = { text: string; removed: Removed[] };

const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
// Zero-width space/non-joiner/joiner, word joiner, BOM, soft hyphen, and the
// bidi embedding, override and isolate controls.
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF\u00AD\u202A-\u202E\u2066-\u2069]/g;

export function sanitizeUserText(text: string): Sanitized {
  const removed: Removed[] = [];
  let out = text;
  if (HTML_COMMENT.test(out)) {
    removed.push("html-comments");
    out = out.replace(HTML_COMMENT, "");
  }
  HTML_COMMENT.lastIndex = 0;
  if (INVISIBLE.test(out)) {
    removed.push("invisible-characters");
    out = out.replace(INVISIBLE, "");
  }
  INVISIBLE.lastIndex = 0;
  return { text: out, removed };
}
