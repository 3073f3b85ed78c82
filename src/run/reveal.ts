/**
 * Hidden content in the text a run reads from GitHub (an issue's body, its
 * comments, a pull request's body and reviews), made visible and flagged
 * rather than removed: the model reads exactly what was hidden, marked as
 * such, so it can tell a maintainer what the issue was hiding and never
 * takes it for something a person saw.
 *
 * - an HTML comment (`<!-- … -->`, which GitHub does not render) becomes
 *   `[hidden HTML comment: …]`;
 * - Unicode tag characters (U+E0000–U+E007F, which mirror ASCII and render as
 *   nothing) become `[hidden tag text: …]`, decoded;
 * - an invisible formatting character becomes `[U+200B]` (its code point);
 * - a spelling of the run envelope's own tag is neutralized, as in the
 *   envelope (sanitize.ts).
 *
 * `revealJson` applies it to the text fields of a GitHub API answer (REST or
 * GraphQL): every string under a key that holds what someone wrote (`body`,
 * `title`, `bodyText`, `message`, …), however deep. The egress gateway runs
 * every API answer the sandbox reads through it. Pure.
 */
import { HTML_COMMENT, INVISIBLE, neutralizeEnvelopeTags, type Removed } from "./sanitize";

/** `kinds`: what was made visible or neutralized, named as sanitize.ts names what it removes, in the order the passes run. */
export type Revealed = { text: string; revealed: boolean; kinds: Removed[] };

/** The keys of a GitHub answer whose values are text a person wrote (REST and GraphQL spellings). */
export const WRITTEN_TEXT_KEYS: ReadonlySet<string> = new Set(["body", "body_text", "bodyText", "title", "message", "description", "name"]);

const TAG_BASE = 0xe0000;

export function revealHidden(text: string): Revealed {
  const kinds: Removed[] = [];
  let out = text;
  const pass = (kind: Removed, next: string) => {
    if (next !== out) kinds.push(kind);
    out = next;
  };
  pass("html-comments", out.replace(HTML_COMMENT, (comment) => `[hidden HTML comment: ${comment.replace(/^<!--/, "").replace(/-->$/, "").trim()}]`));
  pass(
    "unicode-tags",
    out.replace(/[\u{E0000}-\u{E007F}]+/gu, (run) => {
      const decoded = [...run].map((char) => String.fromCharCode(char.codePointAt(0)! - TAG_BASE)).join("");
      return `[hidden tag text: ${decoded.replace(/[^\x20-\x7E]/g, "")}]`;
    })
  );
  pass("invisible-characters", out.replace(INVISIBLE, (char) => `[U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}]`));
  pass("lookalike-tags", neutralizeEnvelopeTags(out));
  return { text: out, revealed: kinds.length > 0, kinds };
}

/** `value` (parsed JSON) with every written-text field revealed; `revealed` when any changed. */
export function revealJson(value: unknown): { value: unknown; revealed: boolean } {
  let revealed = false;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
      if (typeof child === "string" && WRITTEN_TEXT_KEYS.has(key)) {
        const shown = revealHidden(child);
        revealed ||= shown.revealed;
        out[key] = shown.text;
      } else out[key] = walk(child);
    }
    return out;
  };
  return { value: walk(value), revealed };
}
