/**
 * `npm run doctor -- --remote`: whether GitHub itself holds the App to its
 * own branches. For each repository it asks GitHub which active rules apply
 * to three branch names (the default branch, a new name outside
 * `agent-think/**`, and the bot's `agent-think/issue-1`), reads the rulesets
 * those rules come from for their bypass lists, and reads the tag rulesets.
 * GitHub matches the names against the rulesets' patterns; nothing here
 * re-implements that. `judgeRulesets` is pure; `readRulesets` asks through
 * Octokit with the token it is given. Why: docs/security.md (Rulesets).
 */
import { Octokit } from "@octokit/rest";
import { issueBranch } from "../../../src/run/write-policy";
import { line, type DoctorCheck } from "./types";

/** A new branch name outside the bot's own: it shares their prefix, so an exclusion written `agent-think*` shows. */
export const OUTSIDE_PROBE = "agent-think-elsewhere";
export const OWN_PROBE = issueBranch(1);
const DOCS = "docs/security.md (Rulesets)";

export type RuleItem = { type: string; ruleset_id: number; ruleset_source?: string; parameters?: unknown };
export type BypassActor = { actor_id?: number | null; actor_type: string; bypass_mode?: string };
export type Ruleset = {
  id: number;
  name: string;
  target?: string;
  enforcement: string;
  /** Absent when the token may not see it (GitHub shows it only to who may edit the ruleset). */
  bypass_actors?: BypassActor[];
  conditions?: { ref_name?: { include?: string[]; exclude?: string[] } } | null;
  rules?: Array<{ type: string }>;
};

export type RepoRulesets = {
  repo: string;
  defaultBranch: string;
  /** The active rules on each probed branch: the default branch, OUTSIDE_PROBE and OWN_PROBE. */
  branchRules: Record<string, RuleItem[]>;
  /** Every ruleset a probed rule comes from, and every tag ruleset, by id, as GET …/rulesets/{id} answers. */
  rulesets: Record<number, Ruleset>;
  tagRulesetIds: number[];
};

/** What the judge needs of the App: its id (GITHUB_APP_ID), when known. */
export type AppFacts = { appId?: number };

const restricts = (rule: string) => rule === "creation" || rule === "update" || rule === "deletion";

/**
 * One line for the repository: ok when the App can push to no branch but
 * its own and create no tag, warn (marked unsafe) when GitHub would let it,
 * warn when the token cannot see enough to tell, warn when the rules would
 * stop the bot's own pushes.
 */
export function judgeRulesets(facts: RepoRulesets, app: AppFacts): DoctorCheck {
  const label = `Rulesets (${facts.repo})`;
  const unknown: string[] = [];
  /** Does a rule on `branch` that `stops` stop the App? Unknowns (and why) go to `unknown` and count as no. */
  const holds = (branch: string, stops: (rule: RuleItem) => boolean): boolean => {
    const ids = [...new Set((facts.branchRules[branch] ?? []).filter(stops).map((rule) => rule.ruleset_id))];
    return ids.some((id) => appBound(facts.rulesets[id], app, unknown));
  };
  const type = (name: string) => (rule: RuleItem) => rule.type === name;
  const own = (facts.branchRules[OWN_PROBE] ?? []).filter((rule) => rule.type === "creation" || rule.type === "update");
  const gaps: string[] = [];
  if (!holds(facts.defaultBranch, (rule) => rule.type === "update" || reviewedPullRequest(rule))) gaps.push(`push to ${facts.defaultBranch}`);
  if (!holds(facts.defaultBranch, type("deletion"))) gaps.push(`delete ${facts.defaultBranch}`);
  if (!holds(OUTSIDE_PROBE, type("creation"))) gaps.push("create a branch outside agent-think/**");
  const tags = facts.tagRulesetIds.map((id) => facts.rulesets[id]).filter((ruleset): ruleset is Ruleset => ruleset !== undefined);
  if (!tags.some((ruleset) => coversAllTags(ruleset) && (ruleset.rules ?? []).some((rule) => rule.type === "creation") && appBound(ruleset, app, unknown))) {
    gaps.push("create a tag");
  }
  const fix = `add the two rulesets ${DOCS} describes, without the App on their bypass lists`;
  if (own.length > 0) {
    return line("rulesets", label, "warn", `a ruleset stops pushes to ${OWN_PROBE} (${[...new Set(own.map((rule) => rule.type))].join(", ")}): the bot's runs could not push their branch`, `exclude refs/heads/agent-think/** from that ruleset (${DOCS})`);
  }
  if (gaps.length === 0) return line("rulesets", label, "ok", "the App may push only to agent-think/** and may create no tag");
  if (unknown.length > 0) {
    return line("rulesets", label, "warn", `could not tell whether the App may ${gaps.join(", ")}: ${[...new Set(unknown)].join("; ")}`, `run with a token of a repository admin, and GITHUB_APP_ID set (${DOCS})`);
  }
  return { ...line("rulesets", label, "warn", `GitHub lets the App ${gaps.join(", ")}: only the egress gateway stands between a run and them`, fix), unsafe: true };
}

/**
 * A pull request rule that wants an approval: a push to the branch is
 * refused, and the App cannot approve its own pull request to merge it.
 */
function reviewedPullRequest(rule: RuleItem): boolean {
  const count = (rule.parameters as { required_approving_review_count?: number } | undefined)?.required_approving_review_count ?? 0;
  return rule.type === "pull_request" && count >= 1;
}

/** Does `ruleset` (active) bind the App, i.e. is the App not on its bypass list? Unknowns are pushed to `unknown` and count as no. */
function appBound(ruleset: Ruleset | undefined, app: AppFacts, unknown: string[]): boolean {
  if (!ruleset || ruleset.enforcement !== "active") return false;
  if (ruleset.bypass_actors === undefined) {
    unknown.push(`the token cannot see who may bypass ruleset "${ruleset.name}"`);
    return false;
  }
  const apps = ruleset.bypass_actors.filter((actor) => actor.actor_type === "Integration");
  if (app.appId !== undefined) return !apps.some((actor) => actor.actor_id === app.appId);
  if (apps.length === 0) return true;
  unknown.push(`ruleset "${ruleset.name}" lets an App bypass it, and GITHUB_APP_ID is not set to say whether it is this one`);
  return false;
}

/** Does the tag ruleset's condition take in every tag? */
function coversAllTags(ruleset: Ruleset): boolean {
  const names = ruleset.conditions?.ref_name;
  const include = names?.include ?? [];
  return (names?.exclude ?? []).length === 0 && include.some((pattern) => pattern === "~ALL" || pattern === "refs/tags/**" || pattern === "refs/tags/**/*");
}

/**
 * Ask GitHub for what judgeRulesets needs. `token` needs Metadata read for
 * the rules, and an admin's reach to see bypass lists. Throws Octokit's
 * error when GitHub refuses (the caller turns it into a line).
 */
export async function readRulesets(repo: string, options: { apiUrl: string; token: string; fetch?: typeof fetch }): Promise<RepoRulesets> {
  const [owner, name] = repo.split("/") as [string, string];
  const octokit = new Octokit({ auth: options.token, baseUrl: options.apiUrl.replace(/\/+$/, ""), request: options.fetch ? { fetch: options.fetch } : {} });
  const { data: repository } = await octokit.rest.repos.get({ owner, repo: name });
  const defaultBranch = repository.default_branch;
  const branchRules: Record<string, RuleItem[]> = {};
  for (const branch of [defaultBranch, OUTSIDE_PROBE, OWN_PROBE]) {
    branchRules[branch] = (await octokit.paginate(octokit.rest.repos.getBranchRules, { owner, repo: name, branch, per_page: 100 })) as RuleItem[];
  }
  const tagList = await octokit.paginate(octokit.rest.repos.getRepoRulesets, { owner, repo: name, includes_parents: true, targets: "tag", per_page: 100 });
  const tagRulesetIds = tagList.filter((ruleset) => ruleset.enforcement === "active").map((ruleset) => ruleset.id);
  const wanted = new Set([...Object.values(branchRules).flat().filter((rule) => restricts(rule.type)).map((rule) => rule.ruleset_id), ...tagRulesetIds]);
  const rulesets: Record<number, Ruleset> = {};
  for (const id of wanted) {
    const { data } = await octokit.rest.repos.getRepoRuleset({ owner, repo: name, ruleset_id: id, includes_parents: true });
    rulesets[id] = data as Ruleset;
  }
  return { repo, defaultBranch, branchRules, rulesets, tagRulesetIds };
}

/** The line for one repository: judged, or why GitHub could not be asked (the token never appears). */
export async function rulesetsCheck(repo: string, options: { apiUrl: string; token: string; app: AppFacts; fetch?: typeof fetch }): Promise<DoctorCheck> {
  try {
    return judgeRulesets(await readRulesets(repo, options), options.app);
  } catch (error) {
    const status = (error as { status?: number }).status;
    const said = error instanceof Error ? error.message : String(error);
    const detail = status === 404 ? "GitHub answered 404: the repository does not exist or the token cannot read it" : `GitHub could not be asked: ${status ? `${status} ` : ""}${said}`;
    return line("rulesets", `Rulesets (${repo})`, "warn", detail.replaceAll(options.token, "[redacted]"), "set GITHUB_TOKEN to a token that can read the repository (a repository admin's, to see bypass lists)");
  }
}
