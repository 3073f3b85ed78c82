/**
 * Prompt-injection hygiene for text a commenter controls (the instruction, the issue title, a
 * branch name, a diff hunk), applied as it enters the run envelope (run-message.ts). Removed:
 * HTML comments, the Unicode tag block, invisible formatting characters and, in markdown GitHub
 * renders (`markdown: true`), what its page never shows (hidden-markdown.ts, found first).
 * Neutralized: any spelling of the envelope's `<agent-think-run>` tag, ASCII or look-alike. Each
 * kind applied is listed in `removed`. It does not normalize other text (fullwidth characters
 * stay as written); the text reaches the model only as data. docs/security.md. Pure.
 */
import { findHiddenMarkdown } from "./hidden-markdown";

/** Every kind, in the order the passes run; `runEnvelopeSchema` accepts exactly these. */
export const REMOVED_KINDS = [
  "link-definitions",
  "unused-footnotes",
  "html-declarations",
  "hidden-elements",
  "hidden-attributes",
  "html-comments",
  "unicode-tags",
  "invisible-characters",
  "lookalike-tags"
] as const;
export type Removed = (typeof REMOVED_KINDS)[number];

export type Sanitized = { text: string; removed: Removed[] };

/** `markdown`: the text is markdown GitHub renders, so what its page never shows is removed too. */
export type SanitizeOptions = { markdown?: boolean };

/** What replaces each bracket of a neutralized tag: visible, and no bracket to any reader. */
export const TAG_BRACKET_REPLACEMENT = "\uFFFD";

export const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
// U+E0000–U+E007F: tag characters mirror ASCII but render as nothing, so a
// commenter can write instructions only a model reads ("ASCII smuggling").
// Astral, hence the `u` flag: without it the class would match surrogates.
export const UNICODE_TAGS = /[\u{E0000}-\u{E007F}]/gu;
// Soft hyphen, combining grapheme joiner, Arabic letter mark, Mongolian vowel
// separator, zero-width space/non-joiner/joiner, LRM/RLM, the bidi
// embedding, override and isolate controls, word joiner and the invisible
// math operators, BOM, and all variation selectors. The supplementary
// selectors (U+E0100–U+E01EF) go too: with U+FE00–U+FE0F they are the 256
// values "emoji smuggling" hides bytes in. Dropping U+FE0F costs nothing
// visible: an emoji still renders from its base code point.
export const INVISIBLE =
  /[\u00AD\u034F\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFE00-\uFE0F\uFEFF\u{E0100}-\u{E01EF}]/gu;

export function sanitizeUserText(text: string, options: SanitizeOptions = {}): Sanitized {
  const removed: Removed[] = [];
  let out = options.markdown ? withoutHiddenMarkdown(text, removed) : text;
  // Removal runs before the tag pass, so a comment or an invisible character
  // inside a tag's name cannot hide the tag from it.
  for (const [kind, pattern] of [
    ["html-comments", HTML_COMMENT],
    ["unicode-tags", UNICODE_TAGS],
    ["invisible-characters", INVISIBLE]
  ] as const) {
    const next = out.replace(pattern, "");
    if (next !== out) removed.push(kind);
    out = next;
  }
  const neutralized = neutralizeEnvelopeTags(out);
  if (neutralized !== out) removed.push("lookalike-tags");
  return { text: neutralized, removed };
}

/** `text` without the spans its rendered page never shows; their kinds are added to `removed`. */
function withoutHiddenMarkdown(text: string, removed: Removed[]): string {
  // An element holding only space hides nothing (reveal.ts does not flag it either).
  const spans = findHiddenMarkdown(text).filter((span) => text.slice(span.start, span.end).trim() !== "");
  if (spans.length === 0) return text;
  const kinds = new Set<Removed>(spans.map((span) => span.kind));
  removed.push(...REMOVED_KINDS.filter((kind) => kinds.has(kind)));
  let out = "";
  let cursor = 0;
  for (const span of spans) {
    out += text.slice(cursor, Math.max(cursor, span.start));
    cursor = Math.max(cursor, span.end);
  }
  return out + text.slice(cursor);
}

// Characters a reader takes for the tag's punctuation though NFKC keeps them
// apart (NFKC already folds fullwidth ＜ ／ － and small-form ﹤ ﹥ to ASCII).
const OPEN_BRACKETS = "\u2039\u2329\u3008\u27E8\u27EA\u1438\u02C2\u276C\u276E\u2770\u29FC\u2991\u00AB\u300A";
const CLOSE_BRACKETS = "\u203A\u232A\u3009\u27E9\u27EB\u1433\u02C3\u276D\u276F\u2771\u29FD\u2992\u00BB\u300B";
const SLASHES = "\u2044\u2215\u29F8";
const DASH = /[\p{Pd}\u2212]/u;
// Skipped while reading a tag, as a reader's eye skips them.
const SKIPPED = /[\s\p{Default_Ignorable_Code_Point}]/u;
const TAG = /<\/?agent-think-run>/g;

/**
 * Replaces both brackets of every substring that reads as `<agent-think-run>`
 * or `</agent-think-run>` once each character is NFKC-folded, lower-cased
 * and look-alike punctuation is read as ASCII, with whitespace skipped.
 * Folding is per code point and only to find the tags: the text between the
 * brackets stays as written. Open and close brackets are disjoint sets and a
 * replacement is no bracket, so one pass leaves no tag behind.
 */
export function neutralizeEnvelopeTags(text: string): string {
  const chars = [...text];
  let folded = "";
  // origin[i]: the index in `chars` of the code point that UTF-16 unit
  // folded[i] came from (match indices count units, not code points).
  const origin: number[] = [];
  // Text repeats few distinct characters; normalizing each once keeps a long
  // issue body cheap.
  const folds = new Map<string, string>();
  chars.forEach((char, index) => {
    let piece = folds.get(char);
    if (piece === undefined) folds.set(char, (piece = foldForTag(char)));
    folded += piece;
    for (let unit = 0; unit < piece.length; unit++) origin.push(index);
  });
  const replaced = new Set<number>();
  for (const match of folded.matchAll(TAG)) {
    replaced.add(origin[match.index]!);
    replaced.add(origin[match.index + match[0].length - 1]!);
  }
  if (replaced.size === 0) return text;
  return chars.map((char, index) => (replaced.has(index) ? TAG_BRACKET_REPLACEMENT : char)).join("");
}

function foldForTag(char: string): string {
  // NFKC can turn a character into a space (U+2002) or into several.
  return [...char.normalize("NFKC").toLowerCase()]
    .filter((c) => !SKIPPED.test(c))
    .map((c) => {
      if (OPEN_BRACKETS.includes(c)) return "<";
      if (CLOSE_BRACKETS.includes(c)) return ">";
      if (SLASHES.includes(c)) return "/";
      return DASH.test(c) ? "-" : c;
    })
    .join("");
}
