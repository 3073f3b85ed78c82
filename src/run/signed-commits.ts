/**
 * Whether a run's commits reach GitHub by `git push` or are made by the Worker through GitHub's
 * API, which signs them (docs/verified-commits.md): the API where `.github/agent-think.yml` asks
 * (`commits: { signed: true }`), where a ruleset on the push branch or the default branch
 * requires signed commits, and where GitHub could not be asked (a refused push costs the run
 * more than a commit made through the API). What the model is told about it, in the workspace
 * block and when it pushes anyway. Pure: the reads are turn-workspace.ts's.
 */

/** What GitHub answered about the rules of one branch, or why it could not be asked. */
export type BranchRulesRead = { branch: string; requiresSignatures: boolean } | { branch: string; unread: string };

/** How the run's commits reach GitHub. */
export type CommitsVia = "git" | "api";

/** The decision, with its reasons: the workspace block's `commits` when it is "api". */
export type CommitsFact = {
  via: CommitsVia;
  why: string;
  /** What could not be read (a rule, the config), when that is part of why. */
  unread?: string[];
  /** What the model does in this mode (only with "api"). */
  how?: string;
};

/** What the model does when its commits go through the API: said in the block and in the skills. */
export const API_COMMITS_HOW =
  "Do not git push: commit locally in /workspace/repo as usual, then call open_pull_request. It makes each local commit that the push branch lacks on GitHub through GitHub's API (signed by GitHub, shown as Verified), with its message, and moves your clone onto those commits; call it again after later commits.";

/** The gateway's answer to a push in this mode, as git shows it: nothing lands, and why. */
export const API_PUSH_GATEWAY_REFUSAL =
  "push refused: this run's commits must be signed, so none is pushed from the sandbox; commit locally, then call open_pull_request, which makes them on GitHub through its API";

/** The command guard's answer to a `git push` in this mode (the gateway refuses the push itself). */
export function apiPushRefusal(branch: string): string {
  return `refused: \`git push\` cannot land unsigned commits here: this run's commits must be signed, so agent-think makes them on ${branch} through GitHub's API. Commit locally, then call open_pull_request: it makes each of your commits on GitHub and moves your clone onto them.`;
}

/**
 * The decision for a run that may push: the API when the config asks for signatures, a rule
 * requires them, or any read failed (said in `unread`); git only when every read said no.
 */
export function commitsFor(input: { configAsks: boolean; configUnread?: string; rules: readonly BranchRulesRead[] }): CommitsFact {
  const reasons: string[] = [];
  if (input.configAsks) reasons.push(".github/agent-think.yml asks for signed commits (commits: { signed: true })");
  for (const read of input.rules) {
    if ("requiresSignatures" in read && read.requiresSignatures) reasons.push(`a ruleset requires signed commits on ${read.branch}`);
  }
  const unread = [
    ...(input.configUnread ? [`.github/agent-think.yml: ${input.configUnread}`] : []),
    ...input.rules.flatMap((read) => ("unread" in read ? [`the rules of ${read.branch}: ${read.unread}`] : []))
  ];
  if (reasons.length > 0) return { via: "api", why: reasons.join("; "), ...(unread.length ? { unread } : {}), how: API_COMMITS_HOW };
  if (unread.length > 0) {
    return {
      via: "api",
      why: "GitHub could not be asked whether this repository requires signed commits, so the commits are made through its API, which signs them: a rule that requires signatures cannot refuse those",
      unread,
      how: API_COMMITS_HOW
    };
  }
  const branches = input.rules.map((read) => read.branch).join(" and ");
  return { via: "git", why: `no ruleset requires signed commits on ${branches || "the run's branches"}, and .github/agent-think.yml does not ask for them` };
}

/** Whether GitHub's rules for a branch (`GET /repos/{o}/{r}/rules/branches/{branch}`) include `required_signatures`. */
export function requiresSignatures(rules: unknown): boolean {
  return Array.isArray(rules) && rules.some((rule) => typeof rule === "object" && rule !== null && (rule as { type?: unknown }).type === "required_signatures");
}
