/**
 * The command line of `npm run dispatch`: `owner/repo#123 ["instruction"]`
 * plus a few options, turned into a checked request. Pure: the environment
 * comes in as a parameter and a bad argument is a tagged result, so
 * `scripts/dispatch.ts` decides how to print it and which exit code to use.
 * Every dispatch names a triggering comment, as a GitHub mention does: a
 * fresh id (`newCommentId`, from the clock) unless `--comment-id` sets one,
 * so the run gets its 🚀 reaction and a repeat of the same id is the same run.
 * The server validates the request again; this only catches what a typo
 * produces before anything is sent.
 */
import { parseRepo } from "../../src/shared/repo";
import { MAX_INSTRUCTION_CHARS, MAX_TITLE_CHARS } from "../../src/shared/dispatch";

export const DEFAULT_INSTRUCTION = "reproduce this issue";
export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";
export const DEFAULT_TIMEOUT_SECONDS = 300;

export const USAGE = `usage: npm run dispatch -- <owner/repo#issue> ["instruction"] [options]

Submits a turn to the local agent-think (\`npm start\`) and follows it until it ends.

  <owner/repo#issue>    the issue, e.g. acme/widgets#7
  "instruction"         what to do (default: "${DEFAULT_INSTRUCTION}")

options:
  --url <base>          server base URL (default: $AGENT_THINK_URL or ${DEFAULT_BASE_URL})
  --comment-id <n>      triggering comment id (default: a new one each time);
                        the same id twice is the same run
  --title <text>        the issue title to put in the run envelope
  --timeout <seconds>   how long to follow the run (default: ${DEFAULT_TIMEOUT_SECONDS})
  -h, --help            show this help

exit codes: 0 the run completed, 1 it did not (or timed out, or the server is
unreachable), 2 a bad argument.`;

export type DispatchRequest = {
  repo: string;
  issueNumber: number;
  instruction: string;
  commentId: number;
  issueTitle?: string;
};

export type DispatchArgs = {
  request: DispatchRequest;
  baseUrl: string;
  timeoutSeconds: number;
};

export type DispatchArgsParse =
  | { ok: true; kind: "run"; args: DispatchArgs }
  | { ok: true; kind: "help" }
  | { ok: false; error: string };

const TARGET = /^([^#\s]+)#(\d+)$/;
const OPTIONS_WITH_VALUES = new Set(["--url", "--comment-id", "--timeout", "--title"]);

/** A comment id no earlier dispatch used: the time in milliseconds, as `npm run send:delivery` does. */
export const clockCommentId = (): number => Date.now();

export function parseDispatchArgs(
  argv: readonly string[],
  env: { AGENT_THINK_URL?: string } = {},
  newCommentId: () => number = clockCommentId
): DispatchArgsParse {
  const positionals: string[] = [];
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h" || arg === "--help") return { ok: true, kind: "help" };
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf("=");
    const name = equals < 0 ? arg : arg.slice(0, equals);
    if (!OPTIONS_WITH_VALUES.has(name)) return fail(`unknown option ${name}`);
    const value = equals < 0 ? argv[++i] : arg.slice(equals + 1);
    if (value === undefined) return fail(`${name} needs a value`);
    values.set(name, value);
  }

  const [target, ...words] = positionals;
  if (target === undefined) return fail("missing the issue, e.g. acme/widgets#7");
  const issue = parseTarget(target);
  if (!issue.ok) return issue;

  // An unquoted instruction arrives as several words; take them as one.
  const instruction = words.length === 0 ? DEFAULT_INSTRUCTION : words.join(" ");
  if (instruction.trim() === "") return fail("the instruction must not be empty");
  if (instruction.length > MAX_INSTRUCTION_CHARS) {
    return fail(`the instruction must be at most ${MAX_INSTRUCTION_CHARS} characters`);
  }

  const commentIdText = values.get("--comment-id");
  let commentId: number;
  if (commentIdText !== undefined) {
    const parsed = parsePositiveInteger(commentIdText);
    if (parsed === null) return fail(`--comment-id must be a positive integer, got "${commentIdText}"`);
    commentId = parsed;
  } else {
    commentId = newCommentId();
  }

  const request: DispatchRequest = { repo: issue.repo, issueNumber: issue.issueNumber, instruction, commentId };

  const title = values.get("--title");
  if (title !== undefined) {
    if (title.trim() === "") return fail("--title must not be empty");
    if (title.length > MAX_TITLE_CHARS) return fail(`--title must be at most ${MAX_TITLE_CHARS} characters`);
    request.issueTitle = title;
  }

  const baseUrl = parseBaseUrl(values.get("--url") ?? nonEmpty(env.AGENT_THINK_URL) ?? DEFAULT_BASE_URL);
  if (baseUrl === null) {
    const source = values.has("--url") ? "--url" : "AGENT_THINK_URL";
    return fail(`${source} must be an http(s) URL such as ${DEFAULT_BASE_URL}`);
  }

  const timeout = values.get("--timeout");
  let timeoutSeconds = DEFAULT_TIMEOUT_SECONDS;
  if (timeout !== undefined) {
    timeoutSeconds = Number(timeout);
    if (timeout.trim() === "" || !Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
      return fail(`--timeout must be a positive number of seconds, got "${timeout}"`);
    }
  }

  return { ok: true, kind: "run", args: { request, baseUrl, timeoutSeconds } };
}

type TargetParse = { ok: true; repo: string; issueNumber: number } | { ok: false; error: string };

/** `owner/repo#123` → the repository and the issue number. */
export function parseTarget(target: string): TargetParse {
  const match = TARGET.exec(target);
  if (!match) return fail(`"${target}" is not an issue; write it as owner/repo#123`);
  const repo = parseRepo(match[1]!);
  if (!repo.ok) return fail(`"${match[1]}" is not a repository: ${repo.reason}`);
  const issueNumber = parsePositiveInteger(match[2]!);
  if (issueNumber === null) return fail(`"${match[2]}" is not an issue number`);
  return { ok: true, repo: `${repo.owner}/${repo.name}`, issueNumber };
}

function parsePositiveInteger(text: string): number | null {
  if (!/^[1-9][0-9]*$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** The base URL without a trailing slash, or null when it is not http(s). */
function parseBaseUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return url.href.replace(/\/+$/, "");
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
