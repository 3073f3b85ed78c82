/**
 * Model text made safe to post on an issue: it renders as the model wrote
 * it, except that nothing in it notifies or links outside our own pages and
 * the run's repository (mentions and other repositories' references become
 * code spans, other links text; code is kept). Sound without a markdown
 * parser because every `\`, `[`, `]`, `<`, `&` and stray backtick in prose
 * is escaped, so the only live markup is what this module wrote. Pure. Used
 * by closing-text.ts and message-parts.ts, after HTML comments are removed and before body-cap.ts.
 * Why code spans, and each rule: docs/reporting.md, "Posting like a good citizen".
 */
import { allowedLink, isRunRepo, type LinkPolicy } from "./link-policy";

export type NeutralizeOptions = {
  /** Block text (its own paragraphs; may hold fenced code) or inline text (inside a line, a list item). */
  mode: "block" | "inline";
};

/** `text` as markdown that notifies no one and links only where `policy` allows. */
export function neutralize(text: string, policy: LinkPolicy, options: NeutralizeOptions = { mode: "block" }): string {
  const out: string[] = [];
  for (const segment of segments(text, options.mode)) {
    push(out, segment.code ? segment.text : prose(segment.text, policy));
  }
  return out.join("");
}

/** `text` as one inline code span, whatever it holds: it renders literally and never links. */
export function codeSpan(text: string): string {
  const flat = text.replace(/\r?\n/g, " ");
  if (flat === "") return "";
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") || (flat.startsWith(" ") && flat.endsWith(" ") && flat.trim() !== "") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * `text` as one fenced code block (a patch, a command's output): it renders
 * literally, never links and never notifies. The fence is longer than any
 * run of backticks in the text, so the text cannot close it.
 */
export function codeBlock(text: string, language = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${language}\n${text.replace(/\n+$/, "")}\n${fence}`;
}

type Segment = { code: boolean; text: string };

const FENCE_OPEN = /^(`{3,}|~{3,})(.*)$/;

/** Code (fenced blocks at column 0, same-line code spans) apart from prose. */
function segments(text: string, mode: NeutralizeOptions["mode"]): Segment[] {
  const result: Segment[] = [];
  const lines = text.split("\n");
  let prose: string[] = [];
  const flushProse = () => {
    if (prose.length > 0) result.push(...inlineSegments(prose.join("\n")));
    prose = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const open = mode === "block" ? FENCE_OPEN.exec(line) : null;
    if (!open || (open[1]!.startsWith("`") && open[2]!.includes("`"))) {
      prose.push(line);
      continue;
    }
    const fence = open[1]!;
    const close = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \\t]*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end]!)) end++;
    if (prose.length > 0) prose.push("");
    flushProse();
    const body = lines.slice(i, Math.min(end + 1, lines.length));
    // A fence the text leaves open would swallow the rest of our message.
    if (end >= lines.length) body.push(fence);
    result.push({ code: true, text: body.join("\n") + (end + 1 < lines.length ? "\n" : "") });
    i = end;
  }
  flushProse();
  return result;
}

/** Code spans that open and close on one line, apart from the prose around them. */
function inlineSegments(text: string): Segment[] {
  const result: Segment[] = [];
  let prose = "";
  for (const [index, line] of text.split("\n").entries()) {
    if (index > 0) prose += "\n";
    let at = 0;
    for (;;) {
      const open = /`+/g;
      open.lastIndex = at;
      const opener = open.exec(line);
      if (!opener) break;
      const closer = findRun(line, opener.index + opener[0].length, opener[0].length);
      if (closer < 0) {
        // No closer on this line: the backticks are text (escaped by `prose`).
        prose += line.slice(at, opener.index + opener[0].length);
        at = opener.index + opener[0].length;
        continue;
      }
      prose += line.slice(at, opener.index);
      if (prose) result.push({ code: false, text: prose });
      prose = "";
      result.push({ code: true, text: line.slice(opener.index, closer + opener[0].length) });
      at = closer + opener[0].length;
    }
    prose += line.slice(at);
  }
  if (prose) result.push({ code: false, text: prose });
  return result;
}

/** Where the next backtick run of exactly `length` starts in `line` from `from`, or -1. */
function findRun(line: string, from: number, length: number): number {
  const run = /`+/g;
  run.lastIndex = from;
  for (let match = run.exec(line); match; match = run.exec(line)) {
    if (match[0].length === length) return match.index;
  }
  return -1;
}

const TOKEN = new RegExp(
  [
    // A markdown link or image: [text](dest "title"), dest in <…> or bare with balanced parentheses.
    String.raw`(?<link>(?<bang>!?)\[(?<text>[^\[\]\n]*)\]\(\s*(?:<(?<adest>[^<>\n]*)>|(?<dest>[^()\s]*(?:\([^()\s]*\)[^()\s]*)*))(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?\s*\))`,
    // A URL GitHub would link on its own (the GFM autolink extension), or one in <…>.
    String.raw`(?<aurl><(?:https?|ftp):\/\/[^\s<>]*>)`,
    String.raw`(?<url>(?:(?:https?|ftp):\/\/|www\.)[^\s<>\[\]()\x60'"]+)`,
    // owner/repo#12, owner/repo@sha: a reference GitHub puts on that repository's timeline.
    // No boundary is asked for before these: the text before may end up in a code span.
    String.raw`(?<xref>(?<xrepo>[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+)(?:#\d+|@[0-9a-fA-F]{7,40}(?![0-9a-zA-Z])))`,
    String.raw`(?<gh>GH-\d+)`,
    // me@example.com, which GitHub links as mailto:.
    String.raw`(?<email>[A-Za-z0-9._+-]+@[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+)`,
    // @someone, @org/team, whatever comes before: once rendered, what precedes it may be markup or code.
    String.raw`(?<mention>@[A-Za-z0-9][A-Za-z0-9-]*(?:\/[A-Za-z0-9][A-Za-z0-9_.-]*)?)`,
    // The redaction's mark stays as it reads: no "(", "[" or ":" after it, so it can be no link, and no definition can name it.
    String.raw`(?<redacted>\[redacted\](?![(\[:]))`,
    // Characters that could start markup we did not write.
    String.raw`(?<special>[\\\[\]<&\x60])`
  ].join("|"),
  "gi"
);

const ESCAPES: Record<string, string> = { "\\": "\\\\", "[": "\\[", "]": "\\]", "<": "&lt;", "&": "&amp;", "`": "\\`" };

/** Prose (no code in it) with every mention, reference, link and markup character made inert. */
function prose(text: string, policy: LinkPolicy): string {
  const out: string[] = [];
  let at = 0;
  for (const match of text.matchAll(TOKEN)) {
    push(out, text.slice(at, match.index));
    push(out, token(match, policy));
    at = match.index + match[0].length;
  }
  push(out, text.slice(at));
  return out.join("");
}

function token(match: RegExpExecArray | RegExpMatchArray, policy: LinkPolicy): string {
  const groups = match.groups!;
  if (groups.link !== undefined) return link(groups.bang === "!", groups.text ?? "", groups.adest ?? groups.dest ?? "", policy);
  if (groups.aurl !== undefined) return bareUrl(groups.aurl.slice(1, -1), policy);
  if (groups.url !== undefined) {
    // Trailing punctuation ends a sentence, not the URL (as GitHub's autolinker reads it).
    const url = /^(.*?)([.,:;!?*_~]*)$/s.exec(groups.url)!;
    return bareUrl(url[1]!, policy) + url[2]!;
  }
  if (groups.xref !== undefined) return isRunRepo(groups.xrepo!, policy) ? groups.xref : codeSpan(groups.xref);
  if (groups.redacted !== undefined) return groups.redacted;
  if (groups.gh !== undefined || groups.email !== undefined || groups.mention !== undefined) return codeSpan(match[0]);
  return ESCAPES[match[0]] ?? match[0];
}

function link(image: boolean, text: string, dest: string, policy: LinkPolicy): string {
  const label = prose(text, policy).trim();
  const allowed = allowedLink(dest, policy);
  if (allowed) return `${image ? "!" : ""}[${label || codeSpan(allowed.href)}](<${allowed.href}>)`;
  const address = codeSpan(dest.trim());
  if (!label || text.trim() === dest.trim()) return address;
  return address ? `${label} (${address})` : label;
}

function bareUrl(text: string, policy: LinkPolicy): string {
  if (text === "") return "";
  const allowed = allowedLink(/^www\./i.test(text) ? `https://${text}` : text, policy);
  return allowed && !/^www\./i.test(text) ? `<${allowed.href}>` : codeSpan(text);
}

/** Append `piece`, keeping two backtick runs from touching (they would read as one). */
function push(out: string[], piece: string): void {
  if (piece === "") return;
  const last = out.at(-1);
  if (last?.endsWith("`") && piece.startsWith("`")) out.push(" ");
  out.push(piece);
}
