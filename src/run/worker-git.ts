/**
 * The Worker's own git in the sandbox (the preparation's clone and checkout,
 * the fix's proof): every such script opens with an environment that turns
 * off system and global config, hooks, fsmonitor, external diff, pagers,
 * prompts, and every transport but the deployment's GitHub's. The
 * preparation clones afresh (`freshCloneScript`); the proof first makes the
 * model's clone inert (`inertGitScript`), keeping its HEAD and branches. So
 * git never runs what a repository, an earlier run or the model put under
 * /workspace. docs/security.md says why each setting is there. Pure.
 */
import { parseRepo } from "../shared/repo";
import { shellQuote } from "./command-report";

/** What the scripts need of the deployment's GitHub: its web origin, the host git clones from. */
export type WorkerGitHub = { web: string };
/** Where the clone is, the repository it is a clone of, and the GitHub that has it. */
export type WorkerGitTarget = { github: WorkerGitHub; repo: string; dir: string };

/** The one fetch refspec a clone the Worker rewrote has: every branch, as git clone sets it. */
export const ORIGIN_FETCH_REFSPEC = "+refs/heads/*:refs/remotes/origin/*";

/** Exit codes of `inertGitScript`, for the callers' messages. */
export const INERT_EXIT = { noClone: 3, notOwnGitDir: 6, notRewritten: 7 } as const;

/** The deployment's GitHub's web origin, checked: http(s), a host, nothing else. */
function webOrigin(github: WorkerGitHub): { origin: string; protocol: "https" | "http" } {
  let url: URL;
  try {
    url = new URL(github.web);
  } catch {
    throw new Error(`not a GitHub web origin: ${JSON.stringify(github.web)}`);
  }
  const protocol = url.protocol === "https:" ? "https" : url.protocol === "http:" ? "http" : null;
  if (!protocol || url.username || url.password || url.search || url.hash || url.pathname !== "/" || url.origin !== github.web.replace(/\/$/, "")) {
    throw new Error(`not a GitHub web origin: ${JSON.stringify(github.web)}`);
  }
  return { origin: url.origin, protocol };
}

/** The remote a Worker clone has: the repository on the deployment's GitHub, over its own protocol. */
export function canonicalRemote(github: WorkerGitHub, repo: string): string {
  const parsed = parseRepo(repo);
  if (!parsed.ok) throw new Error(`not a repository: ${parsed.reason}`);
  return `${webOrigin(github).origin}/${parsed.owner}/${parsed.name}.git`;
}

/** The transports git may use: https, and http only where the deployment's GitHub is served over it (the local stand-in). */
function allowedProtocols(github: WorkerGitHub): string[] {
  return webOrigin(github).protocol === "http" ? ["https", "http"] : ["https"];
}

/**
 * Config given through GIT_CONFIG_COUNT: the command scope, read after every
 * file, so each key wins over whatever .git/config, an include or
 * ~/.gitconfig says.
 */
export function workerGitConfig(github: WorkerGitHub): Array<[string, string]> {
  return [
    ["core.hooksPath", "/dev/null"],
    ["core.fsmonitor", "false"],
    ["core.alternateRefsCommand", ""],
    ["core.pager", "cat"],
    ["diff.external", ""],
    ["credential.helper", ""],
    ["protocol.allow", "never"],
    ["protocol.ext.allow", "never"],
    ...allowedProtocols(github).map((protocol): [string, string] => [`protocol.${protocol}.allow`, "always"]),
    ["submodule.recurse", "false"],
    ["fetch.recurseSubmodules", "false"],
    ["gc.auto", "0"],
    ["maintenance.auto", "false"]
  ];
}

/** Variables that would point git at other files or programs; the container's commands start without them, and so do the Worker's. */
const UNSET = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_CONFIG",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_SYSTEM",
  "GIT_EXEC_PATH",
  "GIT_TEMPLATE_DIR",
  "GIT_EXTERNAL_DIFF",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_PROXY_COMMAND",
  "GIT_NAMESPACE"
];

/**
 * The environment of the Worker's git (and of gh's): no system or global
 * config, no system attributes, no replace refs, no prompt, and the config
 * above. `dir` is the clone: git looks for a repository no higher than it.
 */
export function workerGitEnv(github: WorkerGitHub, dir: string): Record<string, string> {
  const config = workerGitConfig(github);
  return {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "false",
    SSH_ASKPASS: "false",
    GIT_PAGER: "cat",
    GIT_ALLOW_PROTOCOL: allowedProtocols(github).join(":"),
    GIT_CEILING_DIRECTORIES: parentOf(dir),
    GIT_CONFIG_COUNT: String(config.length),
    ...Object.fromEntries(config.flatMap(([key, value], index) => [[`GIT_CONFIG_KEY_${index}`, key], [`GIT_CONFIG_VALUE_${index}`, value]]))
  };
}

/** The environment as the first lines of a bash script: exported, so gh's git gets it too. */
export function workerGitPrelude(github: WorkerGitHub, dir: string): string {
  const assignments = Object.entries(workerGitEnv(github, dir)).map(([name, value]) => `${name}=${shellQuote(value)}`);
  const config = assignments.findIndex((assignment) => assignment.startsWith("GIT_CONFIG_COUNT="));
  return [`unset ${UNSET.join(" ")}`, `export ${assignments.slice(0, config).join(" ")}`, `export ${assignments.slice(config).join(" ")}`].join("\n");
}

/**
 * The preparation's clone: whatever is at `dir` (an earlier run's clone, a
 * symlink, a file) is removed, and the repository is cloned afresh from the
 * deployment's GitHub: the default branch at the remote's head, no hooks,
 * nothing of the old `.git` read.
 */
export function freshCloneScript({ github, repo, dir }: WorkerGitTarget): string {
  const remote = canonicalRemote(github, repo);
  return [
    workerGitPrelude(github, dir),
    `rm -rf -- ${shellQuote(dir)} || exit 1`,
    `git clone --quiet --template= --no-recurse-submodules -- ${shellQuote(remote)} ${shellQuote(dir)}`
  ].join("\n");
}

/** The preparation's checkout of a pull request's head, by gh (it knows forks), under the same environment. */
export function pullRequestCheckoutScript({ github, repo, dir }: WorkerGitTarget, number: number): string {
  if (!Number.isSafeInteger(number) || number <= 0) throw new Error(`not a pull request number: ${number}`);
  canonicalRemote(github, repo);
  return [workerGitPrelude(github, dir), `cd -- ${shellQuote(dir)} && gh pr checkout ${number} --repo ${shellQuote(repo)}`].join("\n");
}

/**
 * Makes the clone at `dir` inert for the Worker's git, keeping the model's
 * work (HEAD, branches, index, objects, working tree): refuses a `.git`
 * that is a symlink or a `gitdir:` file (exit 6) and a missing clone
 * (exit 3); removes hooks, the config (its includes, filters, remotes and
 * programs with it), attribute and graft files, alternates and linked
 * worktrees' admin files; writes a config of the Worker's (git's own probe
 * of the file system, the canonical origin, and each local branch tracking
 * its namesake on origin when there is one). Leaves the shell in `dir`.
 * Runs after `workerGitPrelude`.
 */
export function inertGitScript({ github, repo, dir }: WorkerGitTarget): string {
  const remote = canonicalRemote(github, repo);
  const { noClone, notOwnGitDir, notRewritten } = INERT_EXIT;
  return [
    `[ ! -L ${shellQuote(dir)} ] && cd -- ${shellQuote(dir)} 2>/dev/null || exit ${noClone}`,
    `{ [ -e .git ] || [ -L .git ]; } || exit ${noClone}`,
    `{ [ -d .git ] && [ ! -L .git ] && [ ! -L .git/objects ] && [ ! -L .git/refs ]; } || exit ${notOwnGitDir}`,
    "for part in .git/info .git/objects/info; do if [ -L \"$part\" ]; then rm -f \"$part\"; fi; done",
    "rm -rf .git/config .git/config.worktree .git/commondir .git/hooks .git/worktrees .git/info/attributes .git/info/grafts .git/objects/info/alternates .git/objects/info/http-alternates" +
      ` || exit ${notRewritten}`,
    `git init --quiet --template= . > /dev/null || exit ${notRewritten}`,
    `{ git config remote.origin.url ${shellQuote(remote)} && git config remote.origin.fetch ${shellQuote(ORIGIN_FETCH_REFSPEC)}; } || exit ${notRewritten}`,
    "git for-each-ref --format='%(refname:lstrip=2)' refs/heads | while IFS= read -r branch; do",
    '  if git show-ref --verify --quiet "refs/remotes/origin/$branch"; then git config "branch.$branch.remote" origin && git config "branch.$branch.merge" "refs/heads/$branch"; fi',
    "done"
  ].join("\n");
}

/** `/workspace` for `/workspace/repo`; `/` for a top-level directory. */
function parentOf(dir: string): string {
  if (!dir.startsWith("/") || dir.split("/").some((part) => part === "..")) throw new Error(`not an absolute clone directory: ${dir}`);
  const trimmed = dir.replace(/\/+$/, "");
  const parent = trimmed.slice(0, trimmed.lastIndexOf("/"));
  return parent === "" ? "/" : parent;
}
