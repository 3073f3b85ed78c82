/**
 * What the Worker makes of the plan script's files (api-commit-scripts.ts): the commits to make
 * through GitHub's `createCommitOnBranch`, each with its message (headline and body) and its
 * file changes (additions by blob, deletions by path; a rename is both), and the refusals for
 * what the API cannot make as the clone has it: a merge, a symlink, an executable or submodule
 * entry, a path that is not UTF-8, a file or commit over the bounds. Bounds: GitHub documents
 * none for this mutation, so they are ours (docs/verified-commits.md, "Sizes"). Pure.
 */
import { COMMIT_SCRIPT_EXIT } from "./api-commit-scripts";

/** The most local commits one `open_pull_request` makes: each is one GitHub request. */
export const MAX_API_COMMITS = 50;
/** One file's largest size (bytes, before base64): below GitHub's documented 50 MiB warning for a pushed file, and what its git-data API has been seen to take. */
export const MAX_API_FILE_BYTES = 20 * 1024 * 1024;
/** One commit's additions in all (bytes, before base64): one GraphQL request carries them, about 4/3 as much on the wire. */
export const MAX_API_COMMIT_BYTES = 32 * 1024 * 1024;
/** The plan, a raw commit or a commit's change list is read up to this much; longer is refused, not cut. */
export const MAX_PLAN_FILE_BYTES = 1024 * 1024;

export type PlannedCommit = { oid: string; parents: string[] };
export type Plan = { head: string; base: string; commits: PlannedCommit[] };

export type FileAdditionPlan = { path: string; blob: string; size: number };
export type FileChangesPlan = { additions: FileAdditionPlan[]; deletions: Array<{ path: string }> };
export type CommitMessageParts = { headline: string; body: string };

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const ZERO = /^0+$/;

/** `<x>/plan`: `head <oid>`, `base <oid>`, then `commit <oid> <parent>…` lines, oldest first. */
export function parsePlan(text: string): Plan | { error: string } {
  let head = "";
  let base = "";
  const commits: PlannedCommit[] = [];
  for (const line of text.split("\n")) {
    const words = line.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    const [kind, oid, ...parents] = words;
    if (!oid || !OID.test(oid) || !parents.every((parent) => OID.test(parent))) return { error: `the plan has a line that is not a commit: ${line.slice(0, 120)}` };
    if (kind === "head") head = oid;
    else if (kind === "base") base = oid;
    else if (kind === "commit") commits.push({ oid, parents });
    else return { error: `the plan has a line that is not a commit: ${line.slice(0, 120)}` };
  }
  if (!head || !base) return { error: "the plan names no HEAD or no base" };
  return { head, base, commits };
}

/** `<x>/sizes`: `<blob> <bytes>` per line. */
export function parseSizes(text: string): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) (\d{1,15})$/.exec(line.trim());
    if (match) sizes.set(match[1]!, Number(match[2]));
  }
  return sizes;
}

/**
 * One commit's changes from `git diff-tree -r -z --raw --no-renames` (`:<old mode> <new mode>
 * <old> <new> <status>` NUL `<path>` NUL): regular files added or changed become additions of
 * their new blob, deleted paths deletions; anything the API would write differently from the
 * clone is refused, naming the path. `sizes` are the plan's blob sizes.
 */
export function fileChanges(raw: Uint8Array, sizes: ReadonlyMap<string, number>): { ok: true; changes: FileChangesPlan; bytes: number } | { ok: false; why: string } {
  const fields = splitNul(raw);
  const additions: FileAdditionPlan[] = [];
  const deletions: Array<{ path: string }> = [];
  let bytes = 0;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = new TextDecoder().decode(fields[i]!);
    const match = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/.exec(meta);
    if (!match) return { ok: false, why: `a change the Worker cannot read: ${meta.slice(0, 120)}` };
    const [, , newMode, , blob, status] = match as unknown as [string, string, string, string, string, string];
    let path: string;
    try {
      path = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(fields[i + 1]!);
    } catch {
      return { ok: false, why: "a path that is not UTF-8 (GitHub's API names files in UTF-8): rename it" };
    }
    if (status === "D") {
      deletions.push({ path });
      continue;
    }
    if (status !== "A" && status !== "M" && status !== "T") return { ok: false, why: `${path}: a change of kind ${status} the API cannot make` };
    const refused = modeRefusal(path, newMode);
    if (refused) return { ok: false, why: refused };
    if (ZERO.test(blob)) return { ok: false, why: `${path}: no content was recorded for it` };
    const size = sizes.get(blob);
    if (size === undefined) return { ok: false, why: `${path}: its size was not recorded` };
    if (size > MAX_API_FILE_BYTES) return { ok: false, why: `${path} is ${mib(size)}, more than the ${mib(MAX_API_FILE_BYTES)} one file may have when it goes through GitHub's API` };
    bytes += size;
    additions.push({ path, blob, size });
  }
  if (bytes > MAX_API_COMMIT_BYTES) return { ok: false, why: `its files add up to ${mib(bytes)}, more than the ${mib(MAX_API_COMMIT_BYTES)} one commit may carry through GitHub's API: split it into smaller commits` };
  return { ok: true, changes: { additions, deletions }, bytes };
}

/** Why the API cannot make `path` with `mode` as the clone has it (it writes every file as a plain, non-executable one), or null. */
function modeRefusal(path: string, mode: string): string | null {
  if (mode === "100644") return null;
  if (mode === "100755") return `${path} is executable, and GitHub's API writes every file it adds as a non-executable one: leave its mode unchanged (or drop the file) in this repository, which requires signed commits`;
  if (mode === "120000") return `${path} is a symbolic link, which GitHub's API cannot make: commit the file it points to instead`;
  if (mode === "160000") return `${path} is a submodule, which GitHub's API cannot update`;
  return `${path} has mode ${mode}, which GitHub's API cannot make`;
}

/**
 * A raw commit object's message as GitHub's `CommitMessage`: the first paragraph, its lines
 * joined (git's own subject), as the headline; the rest as the body.
 */
export function commitMessage(raw: string): CommitMessageParts {
  const at = raw.indexOf("\n\n");
  const message = at < 0 ? "" : raw.slice(at + 2);
  const paragraphs = message.replace(/\r\n/g, "\n").replace(/^\s*\n/, "").split(/\n[ \t]*\n/);
  const headline = (paragraphs[0] ?? "").split("\n").map((line) => line.trim()).filter(Boolean).join(" ");
  const body = paragraphs.slice(1).join("\n\n").replace(/^\n+/, "").trimEnd();
  return { headline: headline || "(no commit message)", body };
}

/** What a plan script's exit code means, for the model; null for 0 and unknown codes. */
export function planExitMeaning(code: number, repoDir: string, branch: string): string | null {
  const E = COMMIT_SCRIPT_EXIT;
  const meanings: Record<number, string> = {
    [E.noClone]: `there is no clone with a commit at ${repoDir}`,
    [E.dirty]: `${repoDir} has uncommitted changes: commit them (they would not be in the pull request), then call open_pull_request again`,
    [E.notOwnGitDir]: `${repoDir}/.git is not a directory of the clone's own (a symlink or a gitdir file)`,
    [E.notRewritten]: `the git configuration of ${repoDir} could not be rewritten`,
    [E.remoteMissing]: `${branch} on GitHub has commits the clone does not: git fetch origin ${branch}, put your commits on top of it (git rebase FETCH_HEAD), then call open_pull_request again`,
    [E.diverged]: `${branch} on GitHub has commits that HEAD does not contain: git fetch origin ${branch}, rebase your commits onto FETCH_HEAD, then call open_pull_request again`,
    [E.noBase]: "HEAD shares no commit with the default branch as the clone has it",
    [E.tooMany]: `HEAD has more than ${MAX_API_COMMITS} commits that ${branch} lacks: squash them into fewer`,
    [E.write]: "the list of commits could not be written in the workspace"
  };
  return meanings[code] ?? null;
}

/** What a sync script's exit code means; null for 0 and unknown codes. */
export function syncExitMeaning(code: number, branch: string): string | null {
  const E = COMMIT_SCRIPT_EXIT;
  const meanings: Record<number, string> = {
    [E.fetch]: `${branch} could not be fetched from GitHub`,
    [E.moved]: `${branch} on GitHub is no longer at the last commit made`,
    [E.treeDiffers]: "the files of the last commit GitHub made differ from HEAD's",
    [E.headMoved]: "HEAD moved while the commits were being made",
    [E.update]: "the clone's branch could not be moved"
  };
  return meanings[code] ?? null;
}

function splitNul(raw: Uint8Array): Uint8Array[] {
  const fields: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === 0) {
      fields.push(raw.subarray(start, i));
      start = i + 1;
    }
  }
  if (start < raw.length) fields.push(raw.subarray(start));
  return fields;
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MiB`;
}
