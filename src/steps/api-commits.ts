/**
 * Commits made through GitHub's API (docs/verified-commits.md): the clone's commits that the
 * push branch on GitHub lacks, listed and read by the Worker's own git in the sandbox
 * (api-commit-scripts.ts), each made again on the branch with `createCommitOnBranch` (the
 * branch created first at the base when GitHub has none), in order, with its message; then the
 * clone moved onto what GitHub made. Every commit is checked before the first is made, so a
 * file the API cannot take refuses the whole call; what GitHub refuses is said in its words.
 * Pure apart from the sandbox's exec, the workspace's files and the client it is given.
 */
import type { CommitClient } from "../github/commits";
import { commitMessage, fileChanges, MAX_API_COMMITS, MAX_API_FILE_BYTES, MAX_PLAN_FILE_BYTES, parsePlan, parseSizes, planExitMeaning, syncExitMeaning, type CommitMessageParts, type FileChangesPlan } from "../run/api-commit-plan";
import { API_COMMIT_DIRS, cleanupScript, exchangeDir, planScript, syncScript, type ApiCommitDirs } from "../run/api-commit-scripts";
import { CONTAINER_UNAVAILABLE, type BashResult } from "../run/bash-command";
import { short } from "../run/fix-proof";
import { readUpTo } from "../egress/body-reader";
import type { WorkerGitHub } from "../run/worker-git";

/** One command of the Worker's own in the sandbox's container. */
export type CommitExec = (command: string, timeoutMs: number) => Promise<BashResult>;
/** The workspace's files as the Durable Object has them after a command's sync. */
export type CommitFiles = { readFile(path: string): Promise<ReadableStream<Uint8Array>> };

export type ApiCommitsTarget = { repo: string; branch: string; github: WorkerGitHub; dirs?: ApiCommitDirs };
export type ApiCommitsDeps = { exec: CommitExec; files: CommitFiles; client: CommitClient };

/** One local commit and the commit GitHub made of it. */
export type MadeCommit = { local: string; oid: string; headline: string };
export type ApiCommitsResult =
  | {
      ok: true;
      /** The commits made, oldest first (none when the branch already had HEAD's commits). */
      made: MadeCommit[];
      /** The branch's head on GitHub now. */
      head: string;
      /** The branch was created (at `base`) for these commits. */
      created?: { base: string };
      /** True when the clone now stands on `head`; otherwise why it does not. */
      synced: true | string;
    }
  | { ok: false; error: string; made?: MadeCommit[] };

const PLAN_TIMEOUT_MS = 5 * 60_000;
const SYNC_TIMEOUT_MS = 2 * 60_000;

type Prepared = { local: string; message: CommitMessageParts; changes: FileChangesPlan };

export async function makeApiCommits(target: ApiCommitsTarget, deps: ApiCommitsDeps): Promise<ApiCommitsResult> {
  const dirs = target.dirs ?? API_COMMIT_DIRS;
  const x = exchangeDir(dirs);
  let heads;
  try {
    heads = await deps.client.heads(target.repo, target.branch);
  } catch (error) {
    return { ok: false, error: `the branches could not be read from GitHub: ${messageOf(error)}` };
  }
  const remoteHead = heads.branch?.oid ?? null;
  const planned = await deps.exec(
    planScript({ github: target.github, repo: target.repo, defaultBranch: heads.defaultBranch.name, remoteHead, maxCommits: MAX_API_COMMITS, maxFileBytes: MAX_API_FILE_BYTES }, dirs),
    PLAN_TIMEOUT_MS
  );
  const cleanup = () => deps.exec(cleanupScript(dirs), SYNC_TIMEOUT_MS).catch(() => undefined);
  if ("error" in planned) return { ok: false, error: planned.error === CONTAINER_UNAVAILABLE ? "this deployment has no container to read the clone's commits in" : `the clone's commits could not be read: ${planned.error}` };
  if (planned.exitCode !== 0) {
    await cleanup();
    const meaning = planExitMeaning(planned.exitCode, dirs.repo, target.branch);
    return { ok: false, error: meaning ?? `the clone's commits could not be listed (exit ${planned.exitCode}): ${tail(planned)}` };
  }
  const read = await readAll(deps.files, x);
  if ("error" in read) {
    await cleanup();
    return { ok: false, error: read.error };
  }
  const { plan, prepared } = read;
  if (prepared.length === 0) {
    await cleanup();
    if (remoteHead) return { ok: true, made: [], head: remoteHead, synced: true };
    return { ok: false, error: `HEAD (${short(plan.head)}) has no commit the default branch lacks: commit your change, then call open_pull_request again` };
  }
  let head = remoteHead ?? plan.base;
  let created: { base: string } | undefined;
  if (!remoteHead) {
    try {
      await deps.client.createBranch(target.repo, target.branch, plan.base);
      created = { base: plan.base };
    } catch (error) {
      await cleanup();
      return { ok: false, error: `GitHub refused to create ${target.branch} at ${short(plan.base)}: ${messageOf(error)}` };
    }
  }
  const made: MadeCommit[] = [];
  for (const [index, commit] of prepared.entries()) {
    try {
      const { oid } = await deps.client.commitOnBranch({
        repo: target.repo,
        branch: target.branch,
        expectedHeadOid: head,
        message: commit.message,
        deletions: commit.changes.deletions,
        additions: commit.changes.additions.map((addition) => ({ path: addition.path, size: addition.size, read: () => deps.files.readFile(`${x}/blobs/${addition.blob}`) }))
      });
      made.push({ local: commit.local, oid, headline: commit.message.headline });
      head = oid;
    } catch (error) {
      await cleanup();
      const which = `commit ${index + 1} of ${prepared.length} (${short(commit.local)} "${commit.message.headline.slice(0, 80)}")`;
      const before = made.length ? `; the ${made.length} before it ${made.length === 1 ? "was" : "were"} made (${target.branch} is at ${short(head)})` : "";
      return { ok: false, error: `GitHub refused ${which}: ${messageOf(error)}${before}`, ...(made.length ? { made } : {}) };
    }
  }
  const synced = await sync(target, dirs, plan.head, head, deps.exec);
  return { ok: true, made, head, ...(created ? { created } : {}), synced };
}

/** The plan and every commit's message and changes, each checked: the first problem refuses them all. */
async function readAll(files: CommitFiles, x: string): Promise<{ plan: { head: string; base: string }; prepared: Prepared[] } | { error: string }> {
  const text = async (path: string) => new TextDecoder().decode(await readBounded(files, path));
  try {
    const plan = parsePlan(await text(`${x}/plan`));
    if ("error" in plan) return plan;
    const sizes = parseSizes(await text(`${x}/sizes`));
    const prepared: Prepared[] = [];
    let previous = plan.base;
    for (const commit of plan.commits) {
      const what = `commit ${short(commit.oid)}`;
      if (commit.parents.length !== 1 || commit.parents[0] !== previous) {
        return { error: `${what} is a merge (or not on a line of commits from ${short(plan.base)}), and GitHub's API makes commits with one parent: rebase instead of merging (git rebase), then call open_pull_request again` };
      }
      previous = commit.oid;
      const message = commitMessage(await text(`${x}/commits/${commit.oid}`));
      const changes = fileChanges(await readBounded(files, `${x}/changes/${commit.oid}`), sizes);
      if (!changes.ok) return { error: `${what} ("${message.headline.slice(0, 80)}") cannot be made through GitHub's API: ${changes.why}` };
      prepared.push({ local: commit.oid, message, changes: changes.changes });
    }
    return { plan, prepared };
  } catch (error) {
    return { error: `the clone's commits could not be read from the workspace: ${messageOf(error)}` };
  }
}

/** The clone moved onto `head` (what GitHub made), or why it stays on its own commits. */
async function sync(target: ApiCommitsTarget, dirs: ApiCommitDirs, localHead: string, head: string, exec: CommitExec): Promise<true | string> {
  const result = await exec(syncScript({ github: target.github, repo: target.repo, branch: target.branch, localHead, remoteHead: head }, dirs), SYNC_TIMEOUT_MS);
  if ("error" in result) return `the clone could not be moved onto them: ${result.error}`;
  if (result.exitCode === 0) return true;
  return `the clone stays on its own commits (${syncExitMeaning(result.exitCode, target.branch) ?? `exit ${result.exitCode}: ${tail(result)}`}): git fetch origin ${target.branch} and git reset --soft FETCH_HEAD before committing more`;
}

/** A workspace file's bytes, refused past MAX_PLAN_FILE_BYTES (a cut list would be a different list). */
async function readBounded(files: CommitFiles, path: string): Promise<Uint8Array> {
  const read = await readUpTo(await files.readFile(path), MAX_PLAN_FILE_BYTES);
  if (read.rest === undefined) return read.bytes;
  await read.rest.cancel();
  throw new Error(`${path} is larger than ${MAX_PLAN_FILE_BYTES} bytes`);
}

function tail(result: Extract<BashResult, { exitCode: number }>): string {
  const text = [result.stdout.text, result.stderr.text].map((part) => part.trim()).filter(Boolean).join("\n");
  return text.length > 300 ? `…${text.slice(-300)}` : text || "no output";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
