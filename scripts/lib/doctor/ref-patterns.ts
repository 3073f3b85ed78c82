/**
 * Whether an environment's deployment branch pattern lets in a workflow run
 * for the App's own branches (`agent-think/<anything>`, a push) or for a
 * pull request (`refs/pull/<n>/merge`, GITHUB_REF of `pull_request`), read
 * as GitHub documents the patterns: Ruby's File.fnmatch, wildcards never
 * matching `/`. Where GitHub's documentation leaves a reading open (braces,
 * a `**` not followed by `/`) every reading is tried, and readings that
 * disagree are "cannot tell". Answers with a name the pattern lets in. Pure;
 * used by ci-secrets.ts.
 */

export const APP_BRANCH_PREFIX = "agent-think/";
const PULL_PREFIX = "refs/pull/";
const PULL_SUFFIX = "/merge";

export type PatternVerdict =
  | { kind: "none" }
  /** `name`: one name GitHub would let deploy that the App's push or pull request has. */
  | { kind: "matches"; name: string }
  | { kind: "unknown"; why: string };

type Token = { kind: "char"; test: (char: string) => boolean } | { kind: "star" } | { kind: "globstar" } | { kind: "anything" };
type Reading = { braces: boolean; doubleStarCrossesSlash: boolean };

/** The bot's own first branch: tried first, so a line names it when the pattern lets it in. */
const FIRST_APP_BRANCH = `${APP_BRANCH_PREFIX}issue-1`;
/** Printable ASCII a branch name may hold (git check-ref-format), letters first so a found name reads well; the pattern's other characters are added per pattern. */
const REF_CHARS = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i))
  .filter((char) => !"~^:?*[\\".includes(char))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
const DIGITS = "0123456789".split("");

function rank(char: string): number {
  if (/[a-z]/.test(char)) return 0;
  if (/[0-9]/.test(char)) return 1;
  return char === "-" ? 2 : 3;
}

export function patternReachesApp(pattern: string): PatternVerdict {
  // The first reading is the documented one: braces literal (fnmatch without FNM_EXTGLOB), `**` as `*`.
  const readings: Reading[] = [];
  for (const braces of pattern.includes("{") ? [false, true] : [false]) {
    for (const doubleStarCrossesSlash of pattern.includes("**") ? [false, true] : [false]) readings.push({ braces, doubleStarCrossesSlash });
  }
  const verdicts = readings.map((reading) => ({ reading, verdict: judgeReading(pattern, reading) }));
  const unknown = verdicts.find(({ verdict }) => verdict.kind === "unknown");
  if (unknown) return unknown.verdict;
  const documented = verdicts[0]!.verdict;
  const other = verdicts.find(({ verdict }) => verdict.kind !== documented.kind);
  if (!other) return documented;
  const matching = (documented.kind === "matches" ? documented : other.verdict) as Extract<PatternVerdict, { kind: "matches" }>;
  const why = other.reading.doubleStarCrossesSlash
    ? "GitHub documents that wildcards never match /, and does not say whether ** is an exception"
    : "GitHub does not document whether {a,b} is a choice or literal text";
  return { kind: "unknown", why: `${why}; read the other way, it lets in ${matching.name}` };
}

function judgeReading(pattern: string, reading: Reading): PatternVerdict {
  const alternatives = reading.braces ? expandBraces(pattern) : [pattern];
  if (alternatives === null) return { kind: "unknown", why: "its braces nest" };
  for (const alternative of alternatives) {
    const tokens = tokenize(alternative, reading);
    if (typeof tokens === "string") return { kind: "unknown", why: tokens };
    const alphabet = [...new Set([...REF_CHARS, ...[...alternative].filter((char) => char > "\x7f")])];
    const name = appBranchWitness(tokens, alphabet) ?? pullWitness(tokens);
    if (name !== null) return { kind: "matches", name };
  }
  return { kind: "none" };
}

/** fnmatch's pattern as tokens: `?`, `[...]`, `*`, `**` + `/`, `\` escapes; a problem as a string. */
function tokenize(pattern: string, reading: Reading): Token[] | string {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "\\") {
      const next = pattern[++i];
      if (next === undefined) return "it ends in a lone backslash";
      tokens.push({ kind: "char", test: (c) => c === next });
    } else if (char === "?") tokens.push({ kind: "char", test: (c) => c !== "/" });
    else if (char === "*") {
      let end = i;
      while (pattern[end + 1] === "*") end++;
      const double = end > i;
      // `**/` is a run of directories only as a whole segment; elsewhere `**` is `*`.
      if (double && pattern[end + 1] === "/" && (i === 0 || pattern[i - 1] === "/")) {
        tokens.push({ kind: "globstar" });
        i = end + 1;
      } else {
        tokens.push({ kind: double && reading.doubleStarCrossesSlash ? "anything" : "star" });
        i = end;
      }
    } else if (char === "[") {
      const parsed = bracket(pattern, i);
      if (parsed === null) return "it has a [ that is not closed";
      tokens.push({ kind: "char", test: parsed.test });
      i = parsed.end;
    } else tokens.push({ kind: "char", test: (c) => c === char });
  }
  return tokens;
}

/** `[abc]`, `[a-z]`, `[!x]` or `[^x]` from `start`: its test (never `/`) and where it ends. */
function bracket(pattern: string, start: number): { test: (char: string) => boolean; end: number } | null {
  let i = start + 1;
  const negated = pattern[i] === "!" || pattern[i] === "^";
  if (negated) i++;
  const ranges: Array<[string, string]> = [];
  let first = true;
  for (; i < pattern.length; i++) {
    let char = pattern[i]!;
    if (char === "]" && !first) {
      return { test: (c) => c !== "/" && ranges.some(([low, high]) => c >= low && c <= high) !== negated, end: i };
    }
    first = false;
    if (char === "\\" && i + 1 < pattern.length) char = pattern[++i]!;
    let high = char;
    if (pattern[i + 1] === "-" && pattern[i + 2] !== undefined && pattern[i + 2] !== "]") {
      high = pattern[i + 2] === "\\" && pattern[i + 3] !== undefined ? pattern[i + 3]! : pattern[i + 2]!;
      i += pattern[i + 2] === "\\" ? 3 : 2;
    }
    ranges.push([char, high]);
  }
  return null;
}

/** `{a,b}x{c,d}` as its four names; a brace without its pair is text; null when braces nest. */
function expandBraces(pattern: string): string[] | null {
  let results = [""];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "\\" && i + 1 < pattern.length) {
      results = results.map((result) => result + char + pattern[i + 1]);
      i++;
    } else if (char === "{") {
      const close = pattern.indexOf("}", i);
      if (close === -1) {
        results = results.map((result) => result + pattern.slice(i));
        break;
      }
      if (pattern.slice(i + 1, close).includes("{")) return null;
      const choices = pattern.slice(i + 1, close).split(",");
      results = results.flatMap((result) => choices.map((choice) => result + choice));
      i = close;
    } else results = results.map((result) => result + char);
  }
  return results;
}

/** The NFA over token positions: `${i}`, and `${i}d` inside a directory of a globstar at i. */
class Automaton {
  constructor(readonly tokens: Token[]) {}
  get accept(): string {
    return String(this.tokens.length);
  }
  closure(states: Iterable<string>): Set<string> {
    const out = new Set(states);
    const queue = [...out];
    while (queue.length > 0) {
      const state = queue.pop()!;
      if (state.endsWith("d")) continue;
      const token = this.tokens[Number(state)];
      if (token && token.kind !== "char" && !out.has(String(Number(state) + 1))) {
        out.add(String(Number(state) + 1));
        queue.push(String(Number(state) + 1));
      }
    }
    return out;
  }
  step(states: Iterable<string>, char: string): Set<string> {
    const next: string[] = [];
    for (const state of states) {
      const at = Number.parseInt(state, 10);
      const token = this.tokens[at];
      if (state.endsWith("d")) {
        next.push(char === "/" ? String(at) : state);
        continue;
      }
      if (!token) continue;
      if (token.kind === "char" && token.test(char)) next.push(String(at + 1));
      if (token.kind === "star" && char !== "/") next.push(state);
      if (token.kind === "anything") next.push(state);
      if (token.kind === "globstar" && char !== "/") next.push(`${at}d`);
    }
    return this.closure(next);
  }
  feed(states: Set<string>, text: string): Set<string> {
    let current = states;
    for (const char of text) current = this.step(current, char);
    return current;
  }
}

/** A branch under agent-think/ the pattern matches (no empty segment, none starting with `.`, no trailing `/`), or null. */
function appBranchWitness(tokens: Token[], alphabet: string[]): string | null {
  const automaton = new Automaton(tokens);
  if (automaton.feed(automaton.closure(["0"]), FIRST_APP_BRANCH).has(automaton.accept)) return FIRST_APP_BRANCH;
  const start = automaton.feed(automaton.closure(["0"]), APP_BRANCH_PREFIX);
  type Node = { states: Set<string>; segmentStart: boolean; name: string };
  const seen = new Set<string>();
  const queue: Node[] = [{ states: start, segmentStart: true, name: "" }];
  while (queue.length > 0) {
    const node = queue.shift()!;
    if (node.name !== "" && !node.segmentStart && node.states.has(automaton.accept)) return APP_BRANCH_PREFIX + node.name;
    for (const char of alphabet) {
      if (node.segmentStart && (char === "/" || char === ".")) continue;
      const states = automaton.step(node.states, char);
      if (states.size === 0) continue;
      const key = `${char === "/"}|${[...states].sort().join(",")}`;
      if (seen.has(key)) continue;
      seen.add(key);
      queue.push({ states, segmentStart: char === "/", name: node.name + char });
    }
  }
  return null;
}

/** A `refs/pull/<n>/merge` the pattern matches, or null. */
function pullWitness(tokens: Token[]): string | null {
  const automaton = new Automaton(tokens);
  const start = automaton.feed(automaton.closure(["0"]), PULL_PREFIX);
  const seen = new Set<string>();
  const queue: Array<{ states: Set<string>; digits: string }> = [{ states: start, digits: "" }];
  while (queue.length > 0) {
    const { states, digits } = queue.shift()!;
    if (digits !== "" && automaton.feed(states, PULL_SUFFIX).has(automaton.accept)) return `${PULL_PREFIX}${digits}${PULL_SUFFIX}`;
    for (const digit of digits === "" ? DIGITS.slice(1) : DIGITS) {
      const next = automaton.step(states, digit);
      const key = [...next].sort().join(",");
      if (next.size === 0 || seen.has(key)) continue;
      seen.add(key);
      queue.push({ states: next, digits: digits + digit });
    }
  }
  return null;
}
