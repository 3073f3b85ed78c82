/**
 * Where a run may write on GitHub, and the guard that holds the model's commands to it. The policy
 * comes from facts the Worker knows, never from the model: an issue's run pushes only to
 * `agent-think/issue-<n>` (opening a pull request, or updating the App's open one); a run on the
 * App's own same-repository pull request only to its head; anyone else's pull request, a fork's,
 * and every reporter-tier run push and open nothing. Where commits must be signed (`commitsVia:
 * "api"`, signed-commits.ts) nothing is pushed: open_pull_request makes them. The control is the
 * gateway; `refusal` answers `git push` and the writing `gh` verbs (also in `bash -c`) earlier
 * and more clearly; an alias or a script gets past it, and that is fine (docs/security.md). Pure.
 */
import type { RunTier } from "../shared/dispatch";
import { apiPushRefusal } from "./signed-commits";

export type WritePolicy = {
  /** The one branch of the run's repository this run may push to; null: no push at all. */
  pushBranch: string | null;
  /** Whether the run may open a pull request (the open_pull_request tool). */
  mayOpenPullRequest: boolean;
  /** Why pushing or opening is refused, for the model (present when either is). */
  why?: string;
  /** "api": the run's commits to `pushBranch` are made through GitHub's API by open_pull_request, never pushed (docs/verified-commits.md). */
  commitsVia?: "api";
};

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
  /** Who the run answers to: `reporter`, the issue's author without write access; absent, a maintainer. */
  tier?: RunTier;
};

export function writePolicyFor(facts: WritePolicyFacts): WritePolicy {
  if (facts.tier === "reporter") {
    return { pushBranch: null, mayOpenPullRequest: false, why: "this is a reporter-tier run (the issue's author asked for a reproduction): it is read-only, so report what you found instead" };
  }
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
      if (policy.commitsVia === "api" && policy.pushBranch !== null) return apiPushRefusal(policy.pushBranch);
      const why = pushRefusal(git.args, policy);
      if (why) return `refused: \`git push\` ${why}`;
    }
    const gh = ghWrite(words);
    if (gh) return gh;
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

/** gh verbs that write to GitHub, which the sandbox cannot do (the gateway refuses them): what to do instead. */
const GH_WRITES: Record<string, Record<string, string>> = {
  pr: {
    create: "open the pull request with the open_pull_request tool",
    edit: "update the pull request's title and body with the open_pull_request tool",
    merge: "agent-think never merges a pull request; a maintainer does",
    close: "leave the pull request to a maintainer",
    reopen: "leave the pull request to a maintainer",
    comment: "say what you have to say in report_result",
    review: "say what you have to say in report_result",
    ready: "leave the pull request to a maintainer"
  },
  issue: {
    comment: "say what the issue should hear in report_result: the Worker posts it",
    create: "say it in report_result",
    edit: "say it in report_result",
    close: "leave the issue to a maintainer",
    reopen: "leave the issue to a maintainer"
  },
  release: { create: "agent-think publishes no release" }
};

/** Why a `gh <noun> <verb>` that writes to GitHub cannot run from the sandbox, else null. */
function ghWrite(words: string[]): string | null {
  const at = words.findIndex((word) => word === "gh" || word.endsWith("/gh"));
  if (at < 0) return null;
  // Flags and their values may come first (`gh --repo o/r pr create`): the noun is the first word gh has writes for.
  const rest = words.slice(at + 1).filter((word) => !word.startsWith("-"));
  const index = rest.findIndex((word) => Object.hasOwn(GH_WRITES, word));
  const [noun, verb] = index < 0 ? [] : [rest[index]!, rest[index + 1]];
  const instead = noun && verb && Object.hasOwn(GH_WRITES[noun]!, verb) ? GH_WRITES[noun]![verb] : undefined;
  return instead ? `refused: \`gh ${noun} ${verb}\` cannot write to GitHub from the sandbox: ${instead}.` : null;
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
