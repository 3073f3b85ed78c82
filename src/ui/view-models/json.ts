/**
 * A compact, bounded JSON rendering for tool inputs and outputs the
 * dashboard has no special view for: small objects and arrays stay on one
 * line, bigger ones indent, and the whole text is cut at a character bound
 * with a note saying how much was left out. Pure.
 */

/** An object or array whose one-line form fits this many characters stays on one line. */
export const INLINE_JSON_CHARS = 72;
/** The most characters of JSON (or any tool text) the transcript shows for one value. */
export const MAX_DISPLAY_CHARS = 20_000;

export type BoundedText = { text: string; truncated: boolean; omittedChars: number };

/** Cut to `max` characters; the caller shows `omittedChars` in a note. */
export function boundText(text: string, max: number = MAX_DISPLAY_CHARS): BoundedText {
  if (text.length <= max) return { text, truncated: false, omittedChars: 0 };
  return { text: text.slice(0, max), truncated: true, omittedChars: text.length - max };
}

function oneLine(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function render(value: unknown, indent: string, seen: Set<object>): string {
  if (value === undefined) return "undefined";
  if (value === null || typeof value !== "object") {
    if (typeof value === "bigint") return `${value.toString()}n`;
    if (typeof value === "function" || typeof value === "symbol") return JSON.stringify(String(value));
    return JSON.stringify(value) ?? String(value);
  }
  if (seen.has(value)) return '"[circular]"';
  const inline = oneLine(value);
  if (inline !== undefined && inline.length + indent.length <= INLINE_JSON_CHARS) return inline;
  seen.add(value);
  const inner = `${indent}  `;
  let out: string;
  if (Array.isArray(value)) {
    out = value.length === 0 ? "[]" : `[\n${value.map((item) => inner + render(item, inner, seen)).join(",\n")}\n${indent}]`;
  } else {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    out =
      entries.length === 0
        ? "{}"
        : `{\n${entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${render(item, inner, seen)}`).join(",\n")}\n${indent}}`;
  }
  seen.delete(value);
  return out;
}

/** JSON text, compact where it can be, bounded to `max` characters. */
export function compactJson(value: unknown, max: number = MAX_DISPLAY_CHARS): BoundedText {
  return boundText(render(value, "", new Set()), max);
}

/** A multi-line string field shown as text under its name, not as an escaped JSON string. */
export type TextBlock = { label: string; text: string; omittedChars: number };

export type ValueView = {
  /** Compact JSON of the value (without its text blocks), or the value itself when it is a string. */
  text: string;
  language: "json" | "text";
  truncated: boolean;
  omittedChars: number;
  blocks: TextBlock[];
};

/** A string field this long with a line break reads better as text: file contents, diffs, logs. */
export const TEXT_BLOCK_MIN_CHARS = 40;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A tool input or output for display: its multi-line text fields apart, the rest as compact JSON. */
export function valueView(value: unknown, max: number = MAX_DISPLAY_CHARS): ValueView {
  if (typeof value === "string") return { ...boundText(value, max), language: "text", blocks: [] };
  if (!isPlainObject(value)) return { ...compactJson(value, max), language: "json", blocks: [] };
  const rest: Record<string, unknown> = {};
  const blocks: TextBlock[] = [];
  for (const [key, field] of Object.entries(value)) {
    if (typeof field === "string" && field.length >= TEXT_BLOCK_MIN_CHARS && field.includes("\n")) {
      const bounded = boundText(field, max);
      blocks.push({ label: key, text: bounded.text, omittedChars: bounded.omittedChars });
    } else rest[key] = field;
  }
  if (blocks.length > 0 && Object.keys(rest).length === 0) return { text: "", language: "json", truncated: false, omittedChars: 0, blocks };
  return { ...compactJson(blocks.length > 0 ? rest : value, max), language: "json", blocks };
}
