/**
 * Finds the instruction in a comment: `@agent-think <instruction>`, where a
 * reader sees it addressed to the bot (at the start of a line, outside code,
 * quotes and HTML comments; the handle as a whole login). The instruction is
 * the rest of the line and every line after it, without quoted lines, which
 * are someone else's words. Linear in the comment's length: anyone can
 * comment on a public repository. Pure; never decides who may trigger a
 * run. The rules: docs/ingress.md, "The mention".
 */
export type MentionParse =
  /** No line addresses the handle. */
  | { kind: "none" }
  /** The handle on its own: nothing to do. */
  | { kind: "empty" }
  | { kind: "instruction"; instruction: string };

/** Characters that may follow the handle; anything else makes it another login. */
const AFTER_HANDLE = /^(?:$|[\s:,.;!?)])/;
/** Punctuation a maintainer puts between the handle and the instruction. */
const LEADING_SEPARATORS = /^[\s:,]+/;
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const QUOTE = /^ {0,3}>/;
/** In the instruction, any `>` that starts a line's text is taken for a quote: leaving out too much is the safe side. */
const INSTRUCTION_QUOTE = /^\s*>/;
const MAX_MENTION_INDENT = 3;

type Line = { text: string; fenced: boolean };

export function parseMention(body: string, handle: string): MentionParse {
  const wanted = normalizeHandle(handle);
  // Hidden HTML comments render as nothing on GitHub, so a mention inside
  // one is invisible to every reader: drop them before looking.
  const text = body.replace(/\r\n?/g, "\n").replace(HTML_COMMENT, "");
  const lines = markFences(text.split("\n"));
  const inCodeSpan = linesStartingInCodeSpans(lines);
  let quoted = false;
  for (const [index, line] of lines.entries()) {
    if (line.fenced || line.text.trim() === "") {
      quoted = false;
      continue;
    }
    // A line right after a quoted line continues the quote (a lazy
    // continuation in CommonMark) and renders inside it.
    quoted = QUOTE.test(line.text) || quoted;
    if (quoted || inCodeSpan.has(index)) continue;
    const rest = afterHandle(line.text, wanted);
    if (rest === null) continue;
    const following = withoutQuotes(lines.slice(index + 1));
    const instruction = [rest.replace(LEADING_SEPARATORS, ""), ...following].join("\n").trim();
    return instruction === "" ? { kind: "empty" } : { kind: "instruction", instruction };
  }
  return { kind: "none" };
}

/**
 * The instruction's lines below the mention without its quotes: a quoted
 * line, and every line after it up to a blank line or a fence (a lazy
 * continuation: rendered inside the quote). Fenced lines are code and kept.
 * A quote between two blank lines leaves one blank line, not two.
 */
function withoutQuotes(lines: Line[]): string[] {
  const kept: string[] = [];
  let quoted = false;
  let dropped = false;
  for (const line of lines) {
    const blank = !line.fenced && line.text.trim() === "";
    if (line.fenced || blank) {
      quoted = false;
      if (!(blank && dropped && kept.at(-1)?.trim() === "")) kept.push(line.text);
      dropped = false;
      continue;
    }
    quoted = INSTRUCTION_QUOTE.test(line.text) || quoted;
    if (quoted) dropped = true;
    else {
      kept.push(line.text);
      dropped = false;
    }
  }
  return kept;
}

/** `agent-think` and `@Agent-Think` both mean `@agent-think`. */
export function normalizeHandle(handle: string): string {
  const trimmed = handle.trim().toLowerCase();
  return trimmed.startsWith("@") ? trimmed : `@${trimmed}`;
}

/** The text after the handle when `line` starts with it, else null. */
function afterHandle(line: string, handle: string): string | null {
  const indent = line.length - line.trimStart().length;
  if (indent > MAX_MENTION_INDENT || line.slice(0, indent).includes("\t")) return null;
  const start = line.slice(indent);
  if (!start.toLowerCase().startsWith(handle)) return null;
  const rest = start.slice(handle.length);
  return AFTER_HANDLE.test(rest) ? rest : null;
}

/** Flags every line of a fenced code block, fences included (CommonMark: an unclosed fence runs to the end). */
function markFences(texts: string[]): Line[] {
  let fence: { char: string; length: number } | null = null;
  return texts.map((text) => {
    if (fence) {
      const closing = new RegExp(`^ {0,3}${fence.char}{${fence.length},}\\s*$`);
      if (closing.test(text)) fence = null;
      return { text, fenced: true };
    }
    const open = FENCE_OPEN.exec(text);
    // A backtick fence's info string may not contain backticks (then it is inline code).
    if (open && !(open[1]!.startsWith("`") && open[2]!.includes("`"))) {
      fence = { char: open[1]![0]!, length: open[1]!.length };
      return { text, fenced: true };
    }
    return { text, fenced: false };
  });
}

/**
 * Indexes of lines whose start lies inside an inline code span that opened
 * on an earlier line of the same paragraph (code spans may cross line
 * breaks). A run of n backticks opens a span only if a run of exactly n
 * closes it later in the paragraph; otherwise it is literal.
 */
function linesStartingInCodeSpans(lines: Line[]): Set<number> {
  const inside = new Set<number>();
  let paragraph: number[] = [];
  const flush = () => {
    if (paragraph.length > 1) markCodeSpanStarts(lines, paragraph, inside);
    paragraph = [];
  };
  for (const [index, line] of lines.entries()) {
    if (line.fenced || line.text.trim() === "") flush();
    else paragraph.push(index);
  }
  flush();
  return inside;
}

function markCodeSpanStarts(lines: Line[], paragraph: number[], inside: Set<number>): void {
  const starts: number[] = [];
  let text = "";
  for (const index of paragraph) {
    starts.push(text.length);
    text += `${lines[index]!.text}\n`;
  }
  const runs: { at: number; length: number }[] = [];
  for (const match of text.matchAll(/`+/g)) runs.push({ at: match.index, length: match[0].length });
  // Per run length, the positions (indexes into `runs`) of runs of that length,
  // and how far into that list the scan has moved: each run is passed once.
  const byLength = new Map<number, { runs: number[]; next: number }>();
  runs.forEach((run, index) => {
    const entry = byLength.get(run.length) ?? { runs: [], next: 0 };
    entry.runs.push(index);
    byLength.set(run.length, entry);
  });
  const spans: [number, number][] = [];
  for (let index = 0; index < runs.length; ) {
    const run = runs[index]!;
    const same = byLength.get(run.length)!;
    while (same.next < same.runs.length && same.runs[same.next]! <= index) same.next++;
    const closer = same.runs[same.next];
    if (closer === undefined) {
      index++;
      continue;
    }
    spans.push([run.at, runs[closer]!.at + run.length]);
    index = closer + 1;
  }
  let span = 0;
  starts.forEach((start, position) => {
    while (span < spans.length && spans[span]![1] <= start) span++;
    const current = spans[span];
    if (current && current[0] < start) inside.add(paragraph[position]!);
  });
}
