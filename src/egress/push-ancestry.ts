/**
 * Whether a push to the run's branch is a fast-forward, for the gateway:
 * for each command that moves an existing ref, `old` must be an ancestor of
 * `new`. The walk goes from `new` through the commits at the start of the
 * pack (pack-commits.ts); where it leaves the pack at commits GitHub already
 * has, GitHub's compare API is asked (`compareAsker`, at most
 * MAX_COMPARE_CALLS a push). What cannot be decided is refused, saying so.
 * It does not check that the pack is whole or that GitHub will take it.
 * Pure apart from the `ask` it is given.
 */
import { readUpTo, type BodyReader } from "./body-reader";
import { PACK_COMMIT_LIMITS, readPackCommits, type PackLimits } from "./pack-commits";
import { isZeroId, packStart, type RefUpdate } from "./receive-pack";

export type Ancestry = "yes" | "no" | "unknown";

/** Whether GitHub says `old` is `commit` or one of its ancestors. */
export type AskGitHub = (old: string, commit: string) => Promise<Ancestry>;

/** GitHub is asked about at most this many commits a push. */
export const MAX_COMPARE_CALLS = 4;

/** A compare answer lists files and patches; past this it is not read, and the answer is unknown. */
export const MAX_COMPARE_ANSWER_BYTES = 8 * 1024 * 1024;

/** A push's commands, read by readCommands, and the body to read its pack from. */
export type ReadPush = { commands: readonly RefUpdate[]; capabilities: readonly string[]; source: BodyReader; end: number };

export const notFastForward = (branch: string) =>
  `push refused: not a fast-forward of ${branch} (the gateway refuses force pushes; fetch, merge or rebase onto what GitHub has, and push again)`;

export const unverified = (branch: string, why: string) =>
  `push refused: could not verify that this push is a fast-forward of ${branch} (${why}); the gateway refuses what it cannot verify`;

/** Why this push may not move `branch` (it is not a fast-forward, or that could not be told), or null. */
export async function fastForwardRefusal(push: ReadPush, branch: string, ask: AskGitHub, limits: PackLimits = PACK_COMMIT_LIMITS): Promise<string | null> {
  const updates = push.commands.filter((command) => !isZeroId(command.old) && !isZeroId(command.new));
  if (updates.length === 0) return null;
  const lengths = new Set(push.commands.flatMap((command) => [command.old.length, command.new.length]));
  if (lengths.size !== 1) return unverified(branch, "its object ids are of two lengths");
  const start = await packStart(push.source, push.end, push.capabilities);
  if (start === "ended") return unverified(branch, "the push ended before its pack did");
  if (start === "malformed") return unverified(branch, "its push options are not pkt-lines");
  const pack = await readPackCommits(push.source, start, lengths.has(64) ? "sha256" : "sha1", limits);
  if (!pack.ok) return unverified(branch, pack.reason);
  const budget = { calls: MAX_COMPARE_CALLS };
  for (const update of updates) {
    const walked = await isAncestor(update.old, update.new, pack.commits, ask, budget);
    if (walked.answer === "no") return notFastForward(branch);
    if (walked.answer === "unknown") return unverified(branch, walked.why);
  }
  return null;
}

export type Walked = { answer: "yes" | "no" } | { answer: "unknown"; why: string };

/**
 * Whether `old` is an ancestor of `next` (or is it): found among `commits`
 * (id → parents), or else asked of GitHub for each commit where the walk
 * leaves them, while `budget` lasts.
 */
export async function isAncestor(old: string, next: string, commits: ReadonlyMap<string, readonly string[]>, ask: AskGitHub, budget: { calls: number }): Promise<Walked> {
  const seen = new Set([next]);
  const stack = [next];
  const boundary: string[] = [];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === old) return { answer: "yes" };
    const parents = commits.get(id);
    if (!parents) {
      boundary.push(id);
      continue;
    }
    for (const parent of parents) {
      if (seen.has(parent)) continue;
      seen.add(parent);
      stack.push(parent);
    }
  }
  // Every path ended at a root in the pack without meeting `old`.
  if (boundary.length === 0) return { answer: "no" };
  if (boundary.length > budget.calls) return { answer: "unknown", why: `its history leaves the pack at ${boundary.length} commits, more than the gateway asks GitHub about` };
  let unknown = false;
  for (const commit of boundary) {
    budget.calls--;
    const answer = await ask(old, commit);
    if (answer === "yes") return { answer: "yes" };
    if (answer === "unknown") unknown = true;
  }
  return unknown ? { answer: "unknown", why: "GitHub's compare API gave no answer" } : { answer: "no" };
}

export type CompareDeps = {
  /** The REST API's base, where the gateway sends API requests (`endpoints.upstream.api`). */
  api: string;
  /** `owner/name`. */
  repo: string;
  /** The run's write token: this is the Worker's request, never the sandbox's. */
  token: string;
  upstream: (request: Request) => Promise<Response>;
};

/**
 * Ask GitHub's compare API (`GET /repos/{repo}/compare/{old}...{commit}`):
 * "ahead" or "identical" is yes, "behind" or "diverged" no, anything else
 * (an error, a 404 for a commit GitHub does not have) unknown.
 */
export function compareAsker(deps: CompareDeps): AskGitHub {
  return async (old, commit) => {
    const url = `${deps.api.replace(/\/+$/, "")}/repos/${deps.repo}/compare/${old}...${commit}?per_page=1`;
    const headers = { accept: "application/vnd.github+json", authorization: `token ${deps.token}`, "user-agent": "agent-think", "x-github-api-version": "2022-11-28" };
    let response: Response;
    try {
      response = await deps.upstream(new Request(url, { headers, redirect: "manual" }));
    } catch {
      return "unknown";
    }
    if (response.status !== 200 || response.body === null) {
      await response.body?.cancel().catch(() => {});
      return "unknown";
    }
    const text = await boundedText(response.body, MAX_COMPARE_ANSWER_BYTES);
    if (text === null) return "unknown";
    let status: unknown;
    try {
      status = (JSON.parse(text) as { status?: unknown }).status;
    } catch {
      return "unknown";
    }
    if (status === "ahead" || status === "identical") return "yes";
    if (status === "behind" || status === "diverged") return "no";
    return "unknown";
  };
}

/** The body as text when it is at most `limit` bytes; past it, cancelled and null. */
async function boundedText(body: ReadableStream<Uint8Array>, limit: number): Promise<string | null> {
  const read = await readUpTo(body, limit);
  if (read.rest) {
    await read.rest.cancel().catch(() => {});
    return null;
  }
  return new TextDecoder().decode(read.bytes);
}
