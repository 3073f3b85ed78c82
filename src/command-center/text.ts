/**
 * Text shaping for the command center: the one-line instruction summary and
 * cutting free text (titles, errors) to a length without splitting a UTF-16
 * surrogate pair. Pure. Identifiers (sessions, repos, submission ids) are
 * never cut: they are validated where they enter.
 *
 * Free text is broadcast to every dashboard, so anything shaped like a GitHub
 * token is redacted on the way in, as a second line of defence behind the
 * reporter's own redaction.
 */
import { redactSecrets } from "../run/redact";

export const INSTRUCTION_SUMMARY_MAX_CHARS = 140;
/** Longest error the registry stores; the broadcast cuts it further. */
export const STORED_ERROR_MAX_CHARS = 2_000;
/**
 * Longest issue-message error the registry stores. GitHub's message is cut
 * to 200 upstream already; every thread in the broadcast may carry three.
 */
export const ISSUE_MESSAGE_ERROR_MAX_CHARS = 200;
/** Longest issue title the registry stores (the dispatch contract's limit). */
export const STORED_TITLE_MAX_CHARS = 1_024;

const ELLIPSIS = "…";

/** `text` if it fits in `max` UTF-16 code units, else its head and "…" in exactly at most `max`. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return "";
  let end = max - ELLIPSIS.length;
  // Never end on the high half of a surrogate pair.
  if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return text.slice(0, Math.max(end, 0)) + ELLIPSIS;
}

/** The first non-blank line of the instruction, whitespace collapsed, at most 140 characters. */
export function summarizeInstruction(instruction: string): string {
  const line = instruction.split(/\r?\n|\r/).find((candidate) => candidate.trim() !== "") ?? "";
  return cutText(redactTokens(line.replace(/\s+/g, " ").trim()), INSTRUCTION_SUMMARY_MAX_CHARS);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** `text` with anything shaped like a GitHub token replaced by "[redacted]". */
export function redactTokens(text: string): string {
  return redactSecrets(text);
}

/** Free text as the registry stores it: tokens redacted, then cut. */
export function storedText(text: string, max: number): string {
  return cutText(redactTokens(text), max);
}
