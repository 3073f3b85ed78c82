/**
 * Where a run may write on GitHub, and the guard that holds the model's
 * commands to it.
 *
 * The policy comes from facts the Worker knows, never from the model:
 * - a run on an issue pushes only to `agent-think/issue-<n>`, and opens a
 *   pull request only when the App has no open one for that branch yet
 *   (then it updates that one);
 * - a run on the App's own pull request, whose head is a branch of the
 *   same repository, pushes only to that head branch and opens nothing;
 * - a run on anyone else's pull request, or on a fork's, pushes nothing and
 *   opens nothing: it answers with a patch.
 *
 * `refusal` reads a command line the way a shell would split it closely
 * enough to find `git push` and `gh pr create|merge` in it, also inside
 * `bash -c "…"`, and says why it may not run. It is a guard against a
 * model's mistakes and an instruction smuggled into an issue, not a sandbox:
 * an alias or a script file gets past it, and the installation token's
 * permissions remain the boundary (docs/security.md). Pure.
 */

export type WritePolicy = {
  /** The one branch of the run's repository this run may push to; null: no push at all. */
  pushBranch: string | null;
  /** Whether `gh pr create` may run. */
  mayOpenPullRequest: boolean;
  /** Why pushing or opening is refused, for the model (present when either is). */
  why?: string;
};

/** Which token the run's container holds: one that writes only when the run may write somewhere (src/run/read-token.ts). */
export type ContainerAccess = "write" | "read";

export const containerAccess = (policy: WritePolicy): ContainerAccess => (policy.pushBranch === null && !policy.mayOpenPullRequest ? "read" : "write");

/** The branch open-pr works on for an issue; the App's open PR for the issue is the one with this head. */
export const issueBranch = (issueNumber: number) => `agent-think/issue-${issueNumber}`;

export type WritePolicyFacts = {
  repo: string;
  issueNumber: number;
  /** The pull request the run is on, when it is on one. */
  pullRequest?: { headRepo?: string; headRef?: string; baseRef?: string; fork?: boolean; author?: string };
  /** The App's bot login, as `agent-think[bot]`. */
  botLogin: string | undefined;
  /** The App's open pull request for this issue's branch, when there is one. */
  openPullRequest?: { number: number };
};

export function writePolicyFor(facts: WritePolicyFacts): WritePolicy {
  const pull = facts.pullRequest;
  if (!pull) {
    if (!facts.openPullRequest) return { pushBranch: issueBranch(facts.issueNumber), mayOpenPullRequest: true };
    return {
      pushBranch: issueBranch(facts.issueNumber),
      mayOpenPullRequest: false,
      why: `the App already has pull request #${facts.openPullRequest.number} open for this issue: push to ${issueBranch(facts.issueNumber)} to update it`
    };
  }
  const ours =
    facts.botLogin !== undefined &&
    pull.author !== undefined &&
    pull.author.toLowerCase() === facts.botLogin.toLowerCase();
  const sameRepo = pull.fork === false && pull.headRepo !== undefined && pull.headRepo.toLowerCase() === facts.repo.toLowerCase();
  if (ours && sameRepo && pull.headRef && pull.headRef !== pull.baseRef) {
    return { pushBranch: pull.headRef, mayOpenPullRequest: false, why: "this run is on a pull request: it updates that pull request's branch and never opens another" };
  }
  const whose = pull.fork !== false ? "its head is in a fork" : "the App did not open it";
  return { pushBranch: null, mayOpenPullRequest: false, why: `this pull request is not the App's to change (${whose}): answer with a patch instead` };
}

/** Why `command` may not run under `policy`, or null when the guard finds nothing against it. */
export function refusal(command: string, policy: WritePolicy): string | null {
  for (const words of simpleCommands(command)) {
    const git = gitSubcommand(words);
    if (git?.name === "push") {
      const why = pushRefusal(git.args, policy);
      if (why) return `refused: \`git push\` ${why}`;
    }
    const gh = ghPullRequestVerb(words);
    if (gh === "create" && !policy.mayOpenPullRequest) return `refused: \`gh pr create\` may not run here: ${policy.why ?? "this run opens no pull request"}.`;
    if (gh === "merge") return "refused: agent-think never merges a pull request; a maintainer does.";
  }
  return null;
}

/** Options of `git push` that change nothing about where it writes. */
const HARMLESS_PUSH_OPTIONS = new Set(["-u", "--set-upstream", "-q", "--quiet", "-v", "--verbose", "--no-verify", "--progress", "--porcelain", "--dry-run", "-n"]);

function pushRefusal(args: string[], policy: WritePolicy): string | null {
  if (policy.pushBranch === null) return `may not run here: ${policy.why ?? "this run pushes nothing"}.`;
  const branch = policy.pushBranch;
  const positional: string[] = [];
  for (const arg of args) {
    if (arg.startsWith("-")) {
      if (!HARMLESS_PUSH_OPTIONS.has(arg)) return `with ${arg} is not allowed: push plain commits to ${branch}.`;
    } else positional.push(arg);
  }
  const [remote, ...refspecs] = positional;
  if (remote !== undefined && remote !== "origin") return `may only push to origin (the run's repository), not ${remote}.`;
  if (refspecs.length === 0) return `must name the branch: \`git push origin HEAD:${branch}\`.`;
  for (const refspec of refspecs) {
    if (refspec.startsWith("+")) return `may not force-push (${refspec}).`;
    const colon = refspec.indexOf(":");
    const source = colon < 0 ? refspec : refspec.slice(0, colon);
    const target = (colon < 0 ? refspec : refspec.slice(colon + 1)).replace(/^refs\/heads\//, "");
    if (colon >= 0 && source === "") return `may not delete a branch (${refspec}).`;
    if (target === "HEAD") return `must name the branch: \`git push origin HEAD:${branch}\`.`;
    if (target !== branch) return `may only push to ${branch}, not ${target}.`;
  }
  return null;
}

/** The subcommand of a `git` invocation and its arguments, skipping git's own options; null when `words` is not git. */
function gitSubcommand(words: string[]): { name: string; args: string[] } | null {
  const at = words.findIndex((word) => word === "git" || word.endsWith("/git"));
  if (at < 0) return null;
  let i = at + 1;
  while (i < words.length && words[i]!.startsWith("-")) {
    // These take their value as the next word.
    if (["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"].includes(words[i]!)) i++;
    i++;
  }
  return i < words.length ? { name: words[i]!, args: words.slice(i + 1) } : null;
}

/** `create`, `merge`… for a `gh pr <verb>` invocation, else null. */
function ghPullRequestVerb(words: string[]): string | null {
  const at = words.findIndex((word) => word === "gh" || word.endsWith("/gh"));
  if (at < 0) return null;
  const rest = words.slice(at + 1).filter((word) => !word.startsWith("-"));
  const pr = rest.indexOf("pr");
  return pr >= 0 && rest[pr + 1] ? rest[pr + 1]! : null;
}

/**
 * The words of each simple command in `line`: split at `;`, `&`, `|`,
 * newlines, parentheses, backticks and `$(`, with quotes removed so that
 * `bash -c "git push …"` is read as the command it runs.
 */
function simpleCommands(line: string): string[][] {
  return line
    .replace(/\\\n/g, " ")
    .replace(/["']/g, " ")
    .split(/[;&|\n()`]|\$\(/)
    .map((part) => part.trim().split(/\s+/).filter(Boolean))
    .filter((words) => words.length > 0);
}
