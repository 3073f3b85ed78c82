/**
 * The proof a fix carries: the reproduction's check, run twice by the
 * Worker in the sandbox, on the base without the change and on the pull
 * request's head, and judged: a fix is proven only when the check fails
 * before and passes after (docs/skills.md, "Fixes carry their proof").
 * The model chooses nothing here but the check's command: the commits, the
 * order and the verdict are the Worker's, and each of its git scripts first
 * makes the clone inert (worker-git.ts). Pure apart from `exec`.
 */
import { CONTAINER_UNAVAILABLE, type BashResult } from "./bash-command";
import { shellQuote } from "./command-report";
import type { RecordingTier } from "../shared/dispatch";
import { INERT_EXIT, inertGitScript, workerGitPrelude, type WorkerGitHub } from "./worker-git";

/** Where the run's clone is, and where the check runs from. */
export type ProofDirs = { workspace: string; repo: string };
export const PROOF_DIRS: ProofDirs = { workspace: "/workspace", repo: "/workspace/repo" };
/** How long each run of the check may take. */
export const PROOF_CHECK_TIMEOUT_MS = 10 * 60_000;
const GIT_TIMEOUT_MS = 120_000;
/** How much of a side's output the pull request and the closing comment show (its tail). */
export const PROOF_EXCERPT_CHARS = 800;
/** Exit codes that say the check did not run rather than that it failed: the template's "could not run", not executable, not found. */
const DID_NOT_RUN = new Set([2, 126, 127]);

export type ProofSide = {
  /** The commit the check ran on. */
  sha: string;
  /** Absent when the command could not be started (then `error`). */
  exitCode?: number;
  timedOut?: boolean;
  error?: string;
  /** The tail of what it printed, stdout then stderr. */
  excerpt: string;
};

/**
 * Whose check it is: given with `open_pull_request` by the run itself, or
 * the thread's reproduction's, recorded by an earlier run of `tier` (absent:
 * a record that kept none; thread-reproduction.ts). Absent on a proof kept
 * before it was said.
 */
export type ProofSource = { kind: "given" } | { kind: "recorded"; tier?: RecordingTier; submissionId: string; at: number };

/** A check that ran on both sides, and whether it proves the fix; `why` says which side did not hold. */
export type FixProof = { ran: true; command: string; base: ProofSide; head: ProofSide; held: boolean; why?: string; source?: ProofSource };
/** No check ran: none was given for a thread that has a reproduction, the recorded one is not trusted, or the clone was not ready for one. */
export type ProofNotRun = { ran: false; why: string; command?: string; source?: ProofSource };
export type ProofRecord = FixProof | ProofNotRun;

/** What the proof works on: the default branch as GitHub has it now, the run's push branch, and the repository on the deployment's GitHub. */
export type ProofTarget = { base: string; branch: string; repo: string; github: WorkerGitHub };

export type ProofExec = (command: string, timeoutMs: number) => Promise<BashResult>;

/**
 * Runs `command` on the merge base of HEAD with `base` (the default branch
 * as GitHub has it now), then on HEAD, which must be what `branch` has on
 * GitHub, and leaves the clone where it was.
 */
export async function proveFix(command: string, target: ProofTarget, exec: ProofExec, dirs: ProofDirs = PROOF_DIRS): Promise<ProofRecord> {
  let git: GitScript;
  try {
    git = gitScript(target, dirs);
  } catch (error) {
    return { ran: false, why: `the clone's remote could not be named: ${error instanceof Error ? error.message : String(error)}`, command };
  }
  const located = await locate(target, exec, dirs, git);
  if (!located.ok) return { ran: false, why: located.why, command };
  const { head, base, restore } = located;
  const checkout = await exec(git(`checkout ${base}`, `git checkout --quiet --detach ${base}`), GIT_TIMEOUT_MS);
  let baseSide: ProofSide | undefined;
  let back: BashResult;
  try {
    if (!failed(checkout)) baseSide = await runCheck(command, base, exec, dirs);
  } finally {
    // Back to where the run left the clone, whatever the base's check wrote into tracked files; then it must be the head again.
    back = await exec(git(`restore ${restore}`, `git checkout --quiet --force ${shellQuote(restore)} && [ "$(git rev-parse HEAD)" = ${head} ]`), GIT_TIMEOUT_MS);
  }
  if (!baseSide) return { ran: false, why: `the base ${short(base)} could not be checked out: ${resultText(checkout)}`, command };
  if (failed(back)) return { ran: false, why: `the clone could not be put back on the head ${short(head)} after the base's check: ${resultText(back)}`, command };
  const headSide = await runCheck(command, head, exec, dirs);
  return { ran: true, command, base: baseSide, head: headSide, ...verdict(baseSide, headSide) };
}

/** Whether the two sides prove the fix, and if not, which did not hold. */
export function verdict(base: ProofSide, head: ProofSide): { held: boolean; why?: string } {
  const problems: string[] = [];
  if (base.exitCode === undefined || base.timedOut) problems.push(`on the base (${short(base.sha)}) the check did not finish${base.error ? `: ${base.error}` : ""}`);
  else if (base.exitCode === 0) problems.push(`the check passes on the base (${short(base.sha)}) too, so it does not show the bug`);
  else if (DID_NOT_RUN.has(base.exitCode)) problems.push(`the check could not run on the base (${short(base.sha)}, exit ${base.exitCode})`);
  if (head.exitCode === undefined || head.timedOut) problems.push(`on the head (${short(head.sha)}) the check did not finish${head.error ? `: ${head.error}` : ""}`);
  else if (head.exitCode !== 0) problems.push(`the check still fails on the head (${short(head.sha)}, exit ${head.exitCode})`);
  return problems.length === 0 ? { held: true } : { held: false, why: problems.join("; ") };
}

/** Why a deployment without a container engine (local dev) proves nothing. */
export const NO_CONTAINER = "this deployment has no container to re-run the check in";

type Located = { ok: true; head: string; base: string; restore: string } | { ok: false; why: string };

/** One of the Worker's git scripts: its marker line, the Worker's git environment, the clone made inert, then `body` in the clone. */
type GitScript = (what: string, body: string) => string;

function gitScript(target: ProofTarget, dirs: ProofDirs): GitScript {
  const inert = { github: target.github, repo: target.repo, dir: dirs.repo };
  const prelude = `${workerGitPrelude(target.github, dirs.repo)}\n${inertGitScript(inert)}`;
  return (what, body) => `# agent-think proof: ${what}\n${prelude}\n${body}`;
}

const locateCodes = (repo: string): Record<number, string> => ({
  [INERT_EXIT.noClone]: `there is no clone at ${repo}`,
  4: `${repo} has uncommitted changes: commit the fix, push it, then open the pull request`,
  5: "the base branch could not be fetched from GitHub",
  [INERT_EXIT.notOwnGitDir]: `${repo}/.git is not a directory of the clone's own (a symlink or a gitdir file): the proof does not follow it`,
  [INERT_EXIT.notRewritten]: `the git configuration of ${repo} could not be rewritten`
});

/** Where the clone is: its HEAD (and the branch to come back to), the merge base with `base`, and what `branch` has on GitHub. */
async function locate(target: ProofTarget, exec: ProofExec, dirs: ProofDirs, git: GitScript): Promise<Located> {
  const script = git(
    "locate",
    [
      `git rev-parse --git-dir > /dev/null 2>&1 || exit ${INERT_EXIT.noClone}`,
      `[ -z "$(git status --porcelain --untracked-files=no)" ] || exit 4`,
      `git fetch --quiet origin ${shellQuote(`refs/heads/${target.base}`)} || exit 5`,
      `echo "head=$(git rev-parse HEAD)"`,
      `echo "base=$(git merge-base HEAD FETCH_HEAD)"`,
      `echo "branch=$(git symbolic-ref --short -q HEAD)"`,
      `echo "pushed=$(git ls-remote origin ${shellQuote(`refs/heads/${target.branch}`)} | cut -f1)"`
    ].join("\n")
  );
  const result = await exec(script, GIT_TIMEOUT_MS);
  if ("error" in result) return { ok: false, why: result.error === CONTAINER_UNAVAILABLE ? NO_CONTAINER : `the clone could not be read: ${result.error}` };
  if (result.exitCode !== 0) return { ok: false, why: locateCodes(dirs.repo)[result.exitCode] ?? `the clone could not be read (exit ${result.exitCode}): ${resultText(result)}` };
  const fields = new Map<string, string>();
  for (const line of result.stdout.text.split("\n")) {
    const match = /^(\w+)=(.*)$/.exec(line.trim());
    if (match) fields.set(match[1]!, match[2]!);
  }
  const [head, base, branch, pushed] = ["head", "base", "branch", "pushed"].map((key) => fields.get(key) ?? "");
  const sha = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
  if (!sha.test(head!) || !sha.test(base!)) return { ok: false, why: "the clone's HEAD or its merge base with the base branch could not be found" };
  if (pushed !== head) {
    return { ok: false, why: `HEAD (${short(head!)}) is not what ${target.branch} has on GitHub (${pushed ? short(pushed) : "nothing"}): push the fix first` };
  }
  if (head === base) return { ok: false, why: `HEAD (${short(head!)}) has no commit that the base branch does not: there is no change to prove` };
  return { ok: true, head: head!, base: base!, restore: branch || head! };
}

async function runCheck(command: string, sha: string, exec: ProofExec, dirs: ProofDirs): Promise<ProofSide> {
  // The marker line names the side in the sandbox's own log of the command.
  const result = await exec(`# agent-think proof: check on ${sha}\ncd ${shellQuote(dirs.workspace)} && ( ${command}\n)`, PROOF_CHECK_TIMEOUT_MS);
  if ("error" in result) return { sha, error: result.error, excerpt: "" };
  return { sha, exitCode: result.exitCode, ...(result.timedOut ? { timedOut: true } : {}), excerpt: tail(outputOf(result), PROOF_EXCERPT_CHARS) };
}

function failed(result: BashResult): boolean {
  return "error" in result || result.exitCode !== 0;
}

function outputOf(result: Extract<BashResult, { exitCode: number }>): string {
  return [result.stdout.text, result.stderr.text].map((text) => text.trimEnd()).filter(Boolean).join("\n");
}

function resultText(result: BashResult): string {
  return "error" in result ? result.error : tail(outputOf(result), 300) || `exit ${result.exitCode}`;
}

function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}

export function short(sha: string): string {
  return sha.slice(0, 7);
}
