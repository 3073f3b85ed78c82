/**
 * The Worker's git scripts for commits made through GitHub's API (docs/verified-commits.md):
 * `planScript` lists the clone's commits that the push branch on GitHub lacks and leaves, under
 * an exchange directory outside the clone (synced to the Durable Object with /workspace), each
 * commit's raw object, its changes (`git diff-tree --raw -z`) and the blobs it adds; the Worker
 * reads them as files, since a command's output is bounded. `syncScript` moves the clone onto
 * the commits GitHub made once their trees match. Each opens with the Worker's git environment
 * and makes the clone inert first (worker-git.ts): no hook, filter, textconv or config of the
 * repository's runs. Pure.
 */
import { shellQuote } from "./command-report";
import { INERT_EXIT, inertGitScript, workerGitPrelude, type WorkerGitHub } from "./worker-git";

/** Where the clone is, and the workspace the exchange directory goes in. */
export type ApiCommitDirs = { workspace: string; repo: string };
export const API_COMMIT_DIRS: ApiCommitDirs = { workspace: "/workspace", repo: "/workspace/repo" };

/** The exchange directory: outside the clone, so the model's `git status` never sees it; removed after each use. */
export const exchangeDir = (dirs: ApiCommitDirs) => `${dirs.workspace.replace(/\/+$/, "")}/.agent-think-commits`;

/** Exit codes of the scripts, for the Worker's messages (api-commit-plan.ts words them). */
export const COMMIT_SCRIPT_EXIT = {
  ...INERT_EXIT,
  dirty: 4,
  remoteMissing: 10,
  diverged: 11,
  noBase: 12,
  tooMany: 13,
  write: 14,
  fetch: 20,
  moved: 21,
  treeDiffers: 22,
  headMoved: 23,
  update: 24
} as const;

export type PlanTarget = {
  github: WorkerGitHub;
  repo: string;
  /** The default branch: a new push branch starts at HEAD's merge base with it. */
  defaultBranch: string;
  /** The push branch's head on GitHub; null when it has none yet. */
  remoteHead: string | null;
  maxCommits: number;
  /** Blobs larger than this are listed with their size and not written out. */
  maxFileBytes: number;
};

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const BRANCH = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,250}$/;

function checked(target: { remoteHead?: string | null; defaultBranch?: string; branch?: string }): void {
  if (target.remoteHead != null && !OID.test(target.remoteHead)) throw new Error(`not a commit id: ${JSON.stringify(target.remoteHead)}`);
  for (const name of [target.defaultBranch, target.branch]) if (name !== undefined && !BRANCH.test(name)) throw new Error(`not a branch name: ${JSON.stringify(name)}`);
}

/** The Worker's git environment, the clone made inert, then `body` in the clone; the first line names the step in the sandbox's log. */
function gitScript(step: string, github: WorkerGitHub, repo: string, dirs: ApiCommitDirs, body: string[]): string {
  return [`# agent-think commits: ${step}`, workerGitPrelude(github, dirs.repo), inertGitScript({ github, repo, dir: dirs.repo }), ...body].join("\n");
}

/**
 * The plan: `<x>/plan` names HEAD, the base (the branch's head on GitHub, or the merge base with
 * the default branch) and each commit from the base to HEAD, oldest first, with its parents;
 * `<x>/commits/<oid>` its raw object, `<x>/changes/<oid>` its changes against its first parent,
 * `<x>/sizes` each regular file's new blob and its size, `<x>/blobs/<oid>` those blobs up to
 * `maxFileBytes`. Refuses a dirty clone, a branch head the clone lacks or HEAD does not contain.
 */
export function planScript(target: PlanTarget, dirs: ApiCommitDirs = API_COMMIT_DIRS): string {
  checked(target);
  const x = shellQuote(exchangeDir(dirs));
  const E = COMMIT_SCRIPT_EXIT;
  const base = target.remoteHead
    ? [
        `git cat-file -e ${target.remoteHead}^{commit} 2>/dev/null || exit ${E.remoteMissing}`,
        `git merge-base --is-ancestor ${target.remoteHead} "$head" || exit ${E.diverged}`,
        `base=${target.remoteHead}`
      ]
    : [`base=$(git merge-base "$head" ${shellQuote(`refs/remotes/origin/${target.defaultBranch}`)}) || exit ${E.noBase}`];
  return gitScript("plan", target.github, target.repo, dirs, [
    "set -f",
    `rm -rf -- ${x} && mkdir -p -- ${x}/commits ${x}/changes ${x}/blobs && : > ${x}/sizes || exit ${E.write}`,
    `git rev-parse --git-dir > /dev/null 2>&1 || exit ${E.noClone}`,
    `[ -z "$(git status --porcelain --untracked-files=no)" ] || exit ${E.dirty}`,
    `head=$(git rev-parse --verify -q 'HEAD^{commit}') || exit ${E.noClone}`,
    ...base,
    `count=$(git rev-list --count "$base..$head") || exit ${E.noBase}`,
    `if [ "$count" -gt ${target.maxCommits} ]; then echo "commits=$count"; exit ${E.tooMany}; fi`,
    `{ echo "head $head"; echo "base $base"; git rev-list --reverse --topo-order --parents "$base..$head" | sed 's/^/commit /'; } > ${x}/plan || exit ${E.write}`,
    `for c in $(git rev-list --reverse --topo-order "$base..$head"); do`,
    `  git cat-file commit "$c" > ${x}/commits/"$c" || exit ${E.write}`,
    // Against the first parent, with no rename detection: a rename is a deletion and an addition, as the API takes it.
    `  git diff-tree -r -z --raw --no-renames --full-index "$c^" "$c" > ${x}/changes/"$c" || exit ${E.write}`,
    `  while IFS= read -r -d '' meta && IFS= read -r -d '' path; do`,
    "    set -- $meta",
    '    case "$5" in A|M|T) ;; *) continue ;; esac',
    '    [ "$2" = 100644 ] || continue',
    `    grep -q "^$4 " ${x}/sizes && continue`,
    `    size=$(git cat-file -s "$4") || exit ${E.write}`,
    `    echo "$4 $size" >> ${x}/sizes`,
    `    if [ "$size" -le ${target.maxFileBytes} ]; then git cat-file blob "$4" > ${x}/blobs/"$4" || exit ${E.write}; fi`,
    `  done < ${x}/changes/"$c" || exit ${E.write}`,
    "done",
    `echo "commits=$count"`
  ]);
}

export type SyncTarget = { github: WorkerGitHub; repo: string; branch: string; localHead: string; remoteHead: string };

/**
 * After the API commits: fetches the push branch, and moves the clone's HEAD (its branch, or a
 * detached HEAD) from `localHead` onto `remoteHead` when that is what GitHub has and its tree is
 * HEAD's, so the index and files stay as they are. Removes the exchange directory first.
 */
export function syncScript(target: SyncTarget, dirs: ApiCommitDirs = API_COMMIT_DIRS): string {
  checked({ branch: target.branch, remoteHead: target.remoteHead });
  checked({ remoteHead: target.localHead });
  const E = COMMIT_SCRIPT_EXIT;
  const tracking = shellQuote(`refs/remotes/origin/${target.branch}`);
  return gitScript("sync", target.github, target.repo, dirs, [
    `rm -rf -- ${shellQuote(exchangeDir(dirs))}`,
    `git fetch --quiet origin ${shellQuote(`+refs/heads/${target.branch}:refs/remotes/origin/${target.branch}`)} || exit ${E.fetch}`,
    `[ "$(git rev-parse --verify -q ${tracking})" = ${target.remoteHead} ] || exit ${E.moved}`,
    `[ "$(git rev-parse ${target.remoteHead}^{tree})" = "$(git rev-parse ${target.localHead}^{tree})" ] || exit ${E.treeDiffers}`,
    `[ "$(git rev-parse HEAD)" = ${target.localHead} ] || exit ${E.headMoved}`,
    "if ref=$(git symbolic-ref -q HEAD); then",
    `  git update-ref -m 'agent-think: onto the commits GitHub made' "$ref" ${target.remoteHead} ${target.localHead} || exit ${E.update}`,
    "else",
    `  git update-ref --no-deref HEAD ${target.remoteHead} ${target.localHead} || exit ${E.update}`,
    "fi"
  ]);
}

/** Removes the exchange directory (after a refusal; the sync does it itself). */
export function cleanupScript(dirs: ApiCommitDirs = API_COMMIT_DIRS): string {
  return `# agent-think commits: cleanup\nrm -rf -- ${shellQuote(exchangeDir(dirs))}`;
}
