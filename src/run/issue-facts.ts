/**
 * The issue as the `<agent-think-workspace>` block's `issue` field carries
 * it: its title, author, state, labels, body and latest comments, read by
 * src/run/prepare.ts before the model starts, so the model never has to
 * read them itself with an unsanitized tool call.
 *
 * Every text is what people wrote: each is revealed (src/run/reveal.ts:
 * hidden HTML comments, Unicode tag text and invisible characters made
 * visible, the envelope's tag neutralized) and the kinds found are listed in
 * `revealed`. Each is bounded, cut with a visible marker and flagged, so
 * the whole field stays under MAX_ISSUE_FACTS_CHARS of text.
 * It does not escape for the block: workspace-block.ts puts it inside the
 * JSON, where `<` is escaped and no text can close the block. Pure.
 */
import type { CommentRead, IssueRead } from "../github/repo-reader";
import { revealHidden } from "./reveal";
import { REMOVED_KINDS, type Removed } from "./sanitize";

/** The issue's body the model gets at most, the cut's marker included. */
export const MAX_ISSUE_BODY_CHARS = 12_000;
/** Each comment's body at most, the marker included. */
export const MAX_COMMENT_CHARS = 3_000;
/** The latest comments shown. */
export const MAX_COMMENTS_SHOWN = 10;
/** GitHub keeps a title to 256 characters; revealing can lengthen one (an invisible character becomes `[U+200B]`). */
export const MAX_TITLE_CHARS = 1_000;
/** GitHub keeps a label's name to 50 characters, and an issue to 100 labels. */
export const MAX_LABEL_CHARS = 50;
export const MAX_LABELS = 100;
/** Every text of the field together, with room for the metadata (numbers, logins, dates, keys). */
export const MAX_ISSUE_FACTS_CHARS =
  MAX_ISSUE_BODY_CHARS + MAX_COMMENTS_SHOWN * MAX_COMMENT_CHARS + MAX_TITLE_CHARS + MAX_LABELS * MAX_LABEL_CHARS + 5_000;

export type IssueComment = { author: string | null; createdAt: string; body: string; truncated: boolean };

/** The block's `issue` field. */
export type IssueFacts = {
  number: number;
  title: string;
  /** Logins as GitHub gives them (the App's bot is `<slug>[bot]`); null for a deleted account. */
  author: string | null;
  state: string;
  labels: string[];
  body: string;
  bodyTruncated: boolean;
  /** The latest comments, oldest first. */
  comments: IssueComment[];
  commentsShown: number;
  /** GitHub's count of the issue's comments: more than shown when older ones were left out, or their read failed. */
  commentsTotal: number;
  /** The kinds of hidden content made visible anywhere in the field, in sanitize.ts's order. */
  revealed: Removed[];
};

/** The field for `issue` and its latest `comments` (oldest first; only the last MAX_COMMENTS_SHOWN are kept). */
export function issueFacts(issue: IssueRead, comments: CommentRead[]): IssueFacts {
  const kinds = new Set<Removed>();
  const shown = (text: string, max: number) => {
    const chars = [...text];
    // Only what could be shown is revealed: a 65,536-character body costs no more than a short one.
    const revealed = revealHidden(chars.length > max ? chars.slice(0, max).join("") : text);
    for (const kind of revealed.kinds) kinds.add(kind);
    return cut(revealed.text, max, chars.length);
  };
  const body = shown(issue.body, MAX_ISSUE_BODY_CHARS);
  const latest = comments.slice(-MAX_COMMENTS_SHOWN).map((comment): IssueComment => {
    const text = shown(comment.body, MAX_COMMENT_CHARS);
    return { author: comment.author, createdAt: comment.createdAt, body: text.text, truncated: text.truncated };
  });
  const facts: Omit<IssueFacts, "revealed"> = {
    number: issue.number,
    title: shown(issue.title, MAX_TITLE_CHARS).text,
    author: issue.author,
    state: issue.state,
    labels: issue.labels.slice(0, MAX_LABELS).map((label) => shown(label, MAX_LABEL_CHARS).text),
    body: body.text,
    bodyTruncated: body.truncated,
    comments: latest,
    commentsShown: latest.length,
    commentsTotal: Math.max(issue.comments, comments.length)
  };
  return { ...facts, revealed: REMOVED_KINDS.filter((kind) => kinds.has(kind)) };
}

/**
 * `text` (revealed) at most `max` characters, counted in code points so no
 * pair is split; when cut, or when the text on GitHub ran to more than `max`
 * (`onGitHub` characters), it ends with a marker that says so.
 */
function cut(text: string, max: number, onGitHub: number): { text: string; truncated: boolean } {
  const chars = [...text];
  if (chars.length <= max && onGitHub <= max) return { text, truncated: false };
  const marker = `\n[… cut here: ${onGitHub} characters in all; the rest is on GitHub]`;
  return { text: chars.slice(0, Math.max(max - marker.length, 0)).join("") + marker, truncated: true };
}
