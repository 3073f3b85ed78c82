/**
 * Where markdown a person writes on GitHub holds text the rendered page never shows: link
 * reference definitions, unreferenced footnotes, HTML declarations and instructions, `<video>`
 * and `<rp>` contents, attribute values (html-tags.ts). reveal.ts flags these spans and
 * sanitize.ts removes them. The GFM parser (micromark) decides what is HTML and what is code
 * when a cheap scan finds a candidate and the text fits the parse budget; otherwise the scan's
 * candidates are flagged, code included: it may flag too much, never stay silent.
 * Sources and the budget: docs/security.md. Pure.
 */
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { HIDDEN_ELEMENTS, hiddenAttribute, scanLoose, scanTags, type HtmlTag } from "./html-tags";

export type HiddenSpan =
  | { kind: "link-definitions" | "unused-footnotes" | "html-declarations"; start: number; end: number }
  /** `start`/`end`: the element's contents. */
  | { kind: "hidden-elements"; element: string; start: number; end: number }
  /** `start`/`end`: the attribute as written, name and value. */
  | { kind: "hidden-attributes"; name: string; value: string; start: number; end: number };

/**
 * The longest text the parser reads: GitHub keeps a body or comment to
 * 65,536 characters. Its time grows faster than the length with the number
 * of blocks (a line each at most), hence the cap on lines.
 */
export const MAX_PARSED_CHARS = 65_536;
export const MAX_PARSED_LINES = 1_024;
/** What one API answer (or one call) may have parsed in all; past it, the scan flags instead. */
export const MAX_PARSED_CHARS_PER_ANSWER = 65_536;
export const MAX_PARSED_LINES_PER_ANSWER = 2_048;

/** What is left to parse; shared by the texts of one answer. */
export type ParseBudget = { chars: number; lines: number };
export const parseBudget = (chars = MAX_PARSED_CHARS_PER_ANSWER, lines = MAX_PARSED_LINES_PER_ANSWER): ParseBudget => ({ chars, lines });

// Only block structure, code and raw HTML decide what renders: the inline
// constructs that cost the parser most (emphasis, links, footnote calls,
// literal autolinks) are turned off, and footnote calls are found in text.
const SLOW_INLINE = ["attention", "labelStartLink", "labelStartImage", "labelEnd", "strikethrough", "gfmFootnoteCall", "gfmPotentialFootnoteCall"];
const SYNTAX = [gfm(), { disable: { null: [...SLOW_INLINE, "wwwAutolink", "protocolAutolink", "emailAutolink"] } }];
const TREE = gfmFromMarkdown().map(({ transforms: _transforms, ...extension }) => extension);

// Other inputs the parser reads slowly (deep nesting, thousands of tags) go to the scan.
const DEEP_NESTING = /^(?:[ \t]*(?:>|[*+-](?=[ \t])|\d{1,9}[.)](?=[ \t])|\[\^[^\]\s]*\]:)){17}|^[ \t]{65}/m;
const MAX_ANGLE_BRACKETS = 4_096;

const FOOTNOTE_CALL = /(?<!\\)\[\^([^\]\s[]+)\]/g;
// A line that reads as a definition after any quote or list markers; its label may not hold brackets.
const DEFINITION_LINE = /^(?:[ \t]*(?:>|[*+-](?=[ \t])|\d{1,9}[.)](?=[ \t])))*[ \t]*\[(\^?)((?:[^[\]\\\n]|\\.)+)\]:.*$/gm;

/** The hidden spans of `text`, outermost first where they nest, in order of `start`. */
export function findHiddenMarkdown(text: string, budget: ParseBudget = parseBudget()): HiddenSpan[] {
  const loose = looseHtml(text);
  if (!text.includes("]:") && loose.spans.length === 0 && !loose.unclosed) return [];
  const lines = count(text, "\n") + 1;
  if (parseFits(text, lines, budget)) {
    budget.chars -= text.length;
    budget.lines -= lines;
    try {
      return joined(text, outermost(fromParse(text)));
    } catch {
      // A parser failure (a stack overflow on some input) falls back to the scan.
    }
  }
  return joined(text, outermost([...fromLines(text), ...loose.spans]));
}

function parseFits(text: string, lines: number, budget: ParseBudget): boolean {
  if (text.length > Math.min(MAX_PARSED_CHARS, budget.chars) || lines > Math.min(MAX_PARSED_LINES, budget.lines)) return false;
  return !DEEP_NESTING.test(text) && count(text, "<") <= MAX_ANGLE_BRACKETS;
}

function count(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

type Node = {
  type: string;
  identifier?: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
  children?: Node[];
};
type Placed = { tag: HtmlTag; parent: Node; parentEnd: number };

function fromParse(text: string): HiddenSpan[] {
  const root = fromMarkdown(text, { extensions: SYNTAX, mdastExtensions: TREE }) as Node;
  const spans: HiddenSpan[] = [];
  const footnotes: Array<{ id: string; start: number; end: number }> = [];
  const texts: Array<[number, number]> = [];
  const placed: Placed[] = [];
  // An explicit stack: a deep tree must not overflow the call stack.
  const stack: Array<{ node: Node; parent: Node }> = [{ node: root, parent: root }];
  while (stack.length > 0) {
    const { node, parent } = stack.pop()!;
    const start = node.position?.start.offset ?? 0;
    const end = node.position?.end.offset ?? text.length;
    if (node.type === "definition") spans.push({ kind: "link-definitions", start, end });
    else if (node.type === "footnoteDefinition") footnotes.push({ id: node.identifier ?? "", start, end });
    else if (node.type === "text") texts.push([start, end]);
    else if (node.type === "html") {
      const { tags, declarations } = scanTags(text, start, end);
      for (const declaration of declarations) spans.push({ kind: "html-declarations", ...declaration });
      const parentEnd = parent === root ? text.length : (parent.position?.end.offset ?? text.length);
      for (const tag of tags) placed.push({ tag, parent, parentEnd });
    }
    const children = node.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, parent: node });
  }
  const calls = new Set<string>();
  // Footnote calls are looked for only when there are footnotes to call.
  if (footnotes.length > 0) for (const [start, end] of texts) for (const call of text.slice(start, end).matchAll(FOOTNOTE_CALL)) calls.add(footnoteId(call[1]!));
  const seen = new Set<string>();
  for (const footnote of footnotes.sort((a, b) => a.start - b.start)) {
    // GitHub lists a footnote only when something calls it, and only its first definition.
    if (seen.has(footnote.id) || !calls.has(footnote.id)) spans.push({ kind: "unused-footnotes", start: footnote.start, end: footnote.end });
    seen.add(footnote.id);
  }
  placed.sort((a, b) => a.tag.start - b.tag.start);
  return [...spans, ...tagSpans(placed)];
}

/** A label as mdast's `identifier` spells it: GitHub matches footnote labels regardless of case. */
function footnoteId(label: string): string {
  return label.replace(/[\t\n\r ]+/g, " ").trim().toLowerCase().toUpperCase().toLowerCase();
}

/**
 * Hidden attributes, and the contents of each hidden element: to its end
 * tag in the same markdown block, else to that block's end, where the
 * page's HTML parser closes it too (an end tag inside another block, such
 * as a paragraph, does not close it).
 */
function tagSpans(placed: Placed[]): HiddenSpan[] {
  const spans: HiddenSpan[] = [];
  const open = new Map<Node, Map<string, Placed[]>>();
  for (const entry of placed) {
    const { tag } = entry;
    for (const attribute of tag.attributes) {
      if (hiddenAttribute(tag.name, attribute)) spans.push({ kind: "hidden-attributes", ...attribute });
    }
    if (!HIDDEN_ELEMENTS.has(tag.name)) continue;
    const byName = open.get(entry.parent) ?? new Map<string, Placed[]>();
    open.set(entry.parent, byName);
    const opened = byName.get(tag.name) ?? [];
    byName.set(tag.name, opened);
    if (!tag.closing) opened.push(entry);
    else {
      const from = opened.pop();
      if (from) spans.push({ kind: "hidden-elements", element: tag.name, start: from.tag.end, end: tag.start });
    }
  }
  for (const byName of open.values()) {
    for (const opened of byName.values()) {
      for (const from of opened) spans.push({ kind: "hidden-elements", element: from.tag.name, start: from.tag.end, end: from.parentEnd });
    }
  }
  return spans;
}

/** The scan: every line that reads as a definition, and footnotes no text calls. */
function fromLines(text: string): HiddenSpan[] {
  const spans: HiddenSpan[] = [];
  if (!text.includes("]:")) return spans;
  let calls: Map<string, number> | undefined;
  const callsOf = (label: string) => {
    if (!calls) {
      calls = new Map<string, number>();
      for (const call of text.matchAll(FOOTNOTE_CALL)) calls.set(footnoteId(call[1]!), (calls.get(footnoteId(call[1]!)) ?? 0) + 1);
    }
    return calls.get(footnoteId(label)) ?? 0;
  };
  for (const line of text.matchAll(DEFINITION_LINE)) {
    const start = line.index + line[0].indexOf("[");
    const end = line.index + line[0].length;
    // A footnote definition's own label reads as a call; any other call means it may be shown.
    if (line[1] !== "^") spans.push({ kind: "link-definitions", start, end });
    else if (callsOf(line[2]!) <= 1) spans.push({ kind: "unused-footnotes", start, end });
  }
  return spans;
}

/** Every `<` read on its own (html-tags.ts): the candidates, and the scan's HTML spans, with the whole text as the block. */
function looseHtml(text: string): { spans: HiddenSpan[]; unclosed: boolean } {
  if (!text.includes("<")) return { spans: [], unclosed: false };
  const { tags, declarations, unclosed } = scanLoose(text);
  const whole: Node = { type: "root" };
  const placed = tags.map((tag): Placed => ({ tag, parent: whole, parentEnd: text.length }));
  const spans: HiddenSpan[] = declarations.map((declaration) => ({ kind: "html-declarations", ...declaration }));
  return { spans: [...spans, ...tagSpans(placed)], unclosed };
}

/** Definitions (or footnotes) on consecutive lines as one span: a block of a thousand is one marker, not a thousand. */
function joined(text: string, spans: HiddenSpan[]): HiddenSpan[] {
  const out: HiddenSpan[] = [];
  for (const span of spans) {
    const last = out.at(-1);
    const joinable = span.kind === "link-definitions" || span.kind === "unused-footnotes";
    if (joinable && last?.kind === span.kind && /^[ \t]*\n[ \t]*$/.test(text.slice(last.end, span.start))) last.end = span.end;
    else out.push({ ...span });
  }
  return out;
}

/** Whether reveal.ts replaces the span (an attribute, a declaration) rather than wrapping it. */
export const isReplaced = (span: HiddenSpan): boolean => span.kind === "hidden-attributes" || span.kind === "html-declarations";

/**
 * `spans` in order of start, the longer first, so that they nest: a span
 * inside a wrapped one (a definition, a footnote, an element's contents) is
 * dropped, being hidden already; a wrapped span that starts inside another
 * starts where that one ends; a replaced span that overlaps one kept
 * before it is dropped.
 */
function outermost(spans: HiddenSpan[]): HiddenSpan[] {
  const kept: HiddenSpan[] = [];
  let wrappedTo = -1;
  let replacedTo = -1;
  for (const span of spans.sort((a, b) => a.start - b.start || b.end - a.end)) {
    if (isReplaced(span)) {
      if (span.start < wrappedTo || span.start < replacedTo) continue;
      kept.push(span);
      replacedTo = span.end;
      continue;
    }
    const start = Math.max(span.start, wrappedTo, replacedTo);
    if (start >= span.end) continue;
    kept.push({ ...span, start });
    wrappedTo = span.end;
  }
  return kept;
}
