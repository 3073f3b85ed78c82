/**
 * Hidden content in the text a run reads from GitHub (an issue's body, its comments, a pull
 * request's body and reviews), made visible and flagged rather than removed, so the model reads
 * exactly what was hidden, marked as such, and never takes it for something a person saw:
 * markdown the page never shows (`markdown: true`, hidden-markdown.ts; read as GitHub does, so
 * first), HTML comments, Unicode tag characters (decoded), invisible characters (`[U+200B]`),
 * and spellings of the envelope's tag (neutralized as in sanitize.ts). It never takes out a
 * character a reader sees. `revealJson` does it to the written fields of a REST or GraphQL
 * answer, for the egress gateway. Markers and rules: docs/security.md, Prompt injection. Pure.
 */
import { findHiddenMarkdown, isReplaced, parseBudget, type HiddenSpan, type ParseBudget } from "./hidden-markdown";
import { HTML_COMMENT, INVISIBLE, neutralizeEnvelopeTags, REMOVED_KINDS, type Removed } from "./sanitize";

/** `kinds`: what was made visible or neutralized, named as sanitize.ts names what it removes, in the order the passes run. */
export type Revealed = { text: string; revealed: boolean; kinds: Removed[] };

/** The keys of a GitHub answer whose values are text a person wrote (REST and GraphQL spellings). */
export const WRITTEN_TEXT_KEYS: ReadonlySet<string> = new Set(["body", "body_text", "bodyText", "title", "message", "description", "name"]);
/** Those GitHub renders as markdown (`bodyText` and `body_text` come already rendered to text; a title, a commit message, a name are shown as written). */
export const MARKDOWN_TEXT_KEYS: ReadonlySet<string> = new Set(["body"]);

/** `markdown`: the text is markdown GitHub renders (a body, a comment), so what the page never shows is revealed too. */
export type RevealOptions = { markdown?: boolean; budget?: ParseBudget };

const TAG_BASE = 0xe0000;

export function revealHidden(text: string, options: RevealOptions = {}): Revealed {
  const kinds: Removed[] = [];
  let out = text;
  if (options.markdown) {
    const shown = showHiddenMarkdown(text, findHiddenMarkdown(text, options.budget));
    kinds.push(...shown.kinds);
    out = shown.text;
  }
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

/** `value` (parsed JSON) with every written-text field revealed; `revealed` when any changed, `kinds` what was found, in sanitize.ts's order. */
export function revealJson(value: unknown): { value: unknown; revealed: boolean; kinds: Removed[] } {
  const found = new Set<Removed>();
  const budget = parseBudget();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
      if (typeof child === "string" && WRITTEN_TEXT_KEYS.has(key)) {
        const shown = revealHidden(child, { markdown: MARKDOWN_TEXT_KEYS.has(key), budget });
        for (const kind of shown.kinds) found.add(kind);
        out[key] = shown.text;
      } else out[key] = walk(child);
    }
    return out;
  };
  const walked = walk(value);
  return { value: walked, revealed: found.size > 0, kinds: REMOVED_KINDS.filter((kind) => found.has(kind)) };
}

/**
 * `text` with each hidden span marked: a definition, a footnote and an
 * element's contents are wrapped (`[hidden … : ` before, `]` after), an
 * attribute or a declaration is replaced by a marker that holds its text.
 * The spans nest (hidden-markdown.ts), so the markers do too. Contents that
 * already are exactly one such marker are left as they are (still named in
 * `kinds`), so revealing twice does not wrap twice.
 */
function showHiddenMarkdown(text: string, spans: HiddenSpan[]): { text: string; kinds: Removed[] } {
  type Edit = { at: number; end: number; text: string; order: number; inner: number };
  const edits: Edit[] = [];
  const found = new Set<Removed>();
  for (const span of spans) {
    if (isReplaced(span)) {
      const marker =
        span.kind === "hidden-attributes"
          ? `[hidden attribute ${span.name}: ${span.value}]`
          : `[hidden HTML declaration: ${text.slice(span.start + 1, span.end - 1)}]`;
      edits.push({ at: span.start, end: span.end, text: marker, order: 1, inner: 0 });
      found.add(span.kind);
      continue;
    }
    const prefix = wrapPrefix(span);
    const { start, end } = words(text, span.start, span.end);
    if (start >= end) continue;
    found.add(span.kind);
    if (isOneMarker(text.slice(start, end), prefix)) continue;
    // At one offset: ends close first (the inner one first), then replacements, then starts (the outer one first).
    edits.push({ at: start, end: start, text: prefix, order: 2, inner: -end });
    edits.push({ at: end, end, text: "]", order: 0, inner: -start });
  }
  edits.sort((a, b) => a.at - b.at || a.order - b.order || a.inner - b.inner);
  let out = "";
  let cursor = 0;
  for (const edit of edits) {
    out += text.slice(cursor, edit.at) + edit.text;
    cursor = Math.max(cursor, edit.end);
  }
  return { text: out + text.slice(cursor), kinds: REMOVED_KINDS.filter((kind) => found.has(kind)) };
}

/**
 * `text[start, end)` without the blank lines and block-quote markers at its
 * ends: the marker goes around the words, so the lines around it keep
 * their quote markers and a line the markdown reads as its own block stays one.
 */
function words(text: string, start: number, end: number): { start: number; end: number } {
  // A `>` counts as a quote marker only after a line break and nothing but space and markers.
  let lineStart = false;
  for (; start < end; start++) {
    const char = text.charAt(start);
    if (char === "\n") lineStart = true;
    else if (!/\s/.test(char) && !(char === ">" && lineStart)) break;
  }
  for (;;) {
    while (end > start && /\s/.test(text.charAt(end - 1))) end--;
    // Back over a last line of nothing but quote markers, never past `start`.
    let line = end - 1;
    while (line >= start && " \t>".includes(text.charAt(line))) line--;
    if (line >= start && text.charAt(line) === "\n") end = line;
    else break;
  }
  return { start, end };
}

function wrapPrefix(span: HiddenSpan): string {
  if (span.kind === "hidden-elements") return `[hidden ${span.element} element: `;
  return span.kind === "unused-footnotes" ? "[hidden footnote: " : "[hidden link definition: ";
}

/**
 * Whether `contents` is one `prefix…]` marker: its first bracket closes at
 * its end, or before nothing but closing brackets (an unclosed element runs
 * to its block's end, past the `]` of a marker around it).
 */
function isOneMarker(contents: string, prefix: string): boolean {
  if (!contents.startsWith(prefix)) return false;
  let depth = 0;
  for (let i = 0; i < contents.length; i++) {
    const char = contents.charAt(i);
    if (char === "\\") i++;
    else if (char === "[") depth++;
    else if (char === "]" && --depth === 0) return /^[\s\]]*$/.test(contents.slice(i + 1));
  }
  return false;
}
