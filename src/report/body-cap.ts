/**
 * Comment bodies that fit GitHub's limit (a longer one is a final 422):
 * `fitMessage` renders a notice to fit, cutting its longest free-text parts
 * first and saying so; `capBody` is the last guard before a body is queued.
 * Pure. Used by closing-text.ts, notices.ts, progress.ts and reporter.ts; what the parts say is theirs.
 * docs/reporting.md, "Posting like a good citizen".
 */

/** GitHub's limit on a comment body. */
export const GITHUB_COMMENT_MAX_CHARS = 65_536;
/**
 * The most we post. Below GitHub's limit: a JavaScript length counts UTF-16
 * units, at least as many as the characters GitHub counts, and the margin
 * covers what is added after rendering.
 */
export const MAX_COMMENT_BODY_CHARS = 65_000;
/** A notice's text, without its hidden marker line (which stays under 1,000). */
export const MAX_NOTICE_TEXT_CHARS = 64_000;

/** A cut part ends near a word break when one is this close. */
const WORD_BREAK_WINDOW_CHARS = 80;
/** Rounds of cutting before every part is cut to nothing (rendering can grow a text, so one round may not do). */
const FIT_ROUNDS = 12;

/** A free-text part of a message that may be cut. */
export type CutPart = {
  /** Characters of raw text it has. */
  size: number;
  /** The part rendered from at most `limit` of its raw characters: the whole when `limit >= size`, else cut, with its own "…". */
  render(limit: number): string;
};

/**
 * The message `compose` makes from its parts, at most `max` characters: the
 * whole when it fits, else with the longest parts cut first and `cut` true
 * (compose then says it was cut). `compose` must lay out the same sections
 * whatever the parts render to.
 */
export function fitMessage(compose: (rendered: string[], cut: boolean) => string, parts: CutPart[], max: number): string {
  const whole = compose(
    parts.map((part) => part.render(part.size)),
    false
  );
  if (whole.length <= max) return whole;
  const fixed = compose(
    parts.map(() => ""),
    true
  ).length;
  const limits = fitParts(parts, max - fixed);
  return capBody(
    compose(
      parts.map((part, i) => part.render(limits[i]!)),
      true
    ),
    max
  );
}

/** How many raw characters each part keeps so their renderings fit in `room` together, the longest cut first. */
export function fitParts(parts: CutPart[], room: number): number[] {
  let limits = parts.map((part) => part.size);
  for (let round = 0; round < FIT_ROUNDS; round++) {
    const lengths = parts.map((part, i) => part.render(limits[i]!).length);
    if (lengths.reduce((sum, length) => sum + length, 0) <= room) return limits;
    const level = waterLevel(lengths, Math.max(0, room));
    limits = limits.map((limit, i) => {
      const length = lengths[i]!;
      return length <= level ? limit : Math.max(0, Math.min(limit - 1, Math.floor((limit * level) / length)));
    });
  }
  return parts.map(() => 0);
}

/** The largest level L with the sum of min(length, L) at most `room`: the parts over it are the ones to cut. */
function waterLevel(lengths: number[], room: number): number {
  const sorted = [...lengths].sort((a, b) => a - b);
  let remaining = room;
  for (let i = 0; i < sorted.length; i++) {
    const share = Math.floor(remaining / (sorted.length - i));
    if (sorted[i]! > share) return share;
    remaining -= sorted[i]!;
  }
  return sorted.at(-1) ?? 0;
}

/** `text` cut to at most `limit` characters: never inside a surrogate pair, at a word break when one is near. */
export function cutText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = Math.max(0, limit);
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end--;
  const space = Math.max(text.lastIndexOf(" ", end), text.lastIndexOf("\n", end));
  if (space > 0 && space < end && end - space <= WORD_BREAK_WINDOW_CHARS) end = space;
  return text.slice(0, end).trimEnd();
}

const CAP_NOTE = "\n\n✂️ _This comment was cut to fit GitHub's size limit._";

/**
 * `body` at most `max` characters. One that is longer is cut at a line break
 * (every code span we render opens and closes on one line, so none is left
 * open to expose what it held) and says so.
 */
export function capBody(body: string, max = MAX_COMMENT_BODY_CHARS): string {
  if (body.length <= max) return body;
  const lineBreak = body.lastIndexOf("\n", Math.max(0, max - CAP_NOTE.length));
  return `${body.slice(0, Math.max(0, lineBreak))}${CAP_NOTE}`.slice(0, max);
}
