/**
 * `npm run doctor -- --remote`'s CI secrets line: what a workflow run for
 * the App's branch (`agent-think/**`, a push made with the App's token) or
 * for its pull request (`refs/pull/<n>/merge`) can reach in a repository,
 * judged from what GitHub answered (ci-secrets-read.ts): repository and
 * organization secrets reach every run; an environment's reach every run it
 * lets in (its deployment branch patterns, read by ref-patterns.ts) unless
 * it needs a reviewer; and the default GITHUB_TOKEN. Every read GitHub
 * refused is named with the permission it wants. Pure. Why: docs/security.md.
 */
import { APP_BRANCH_PREFIX, patternReachesApp } from "./ref-patterns";
import { line, listNames, type DoctorCheck } from "./types";

export const CI_DOCS = "docs/security.md (CI secrets)";

/** What GitHub answered to one read: its value, or its status (null: no HTTP answer). */
export type Read<T> = { ok: true; value: T } | { ok: false; status: number | null };

export type BranchPolicy = { name: string; type: "branch" | "tag" };

export type EnvironmentFacts = {
  name: string;
  secrets: Read<string[]>;
  /** A required reviewers rule: no job gets the secrets before a reviewer approves it. */
  reviewers: boolean;
  /** GitHub's deployment branches and tags: none (any branch), protected branches only, or the listed patterns. */
  branches: { kind: "any" } | { kind: "protected" } | { kind: "custom"; policies: Read<BranchPolicy[]> };
};

/** The App's Workflows permission on the installation, or why the operator's token cannot read it. */
export type AppWorkflows = { kind: "read"; access: string | null } | { kind: "unreadable"; why: string };

export type CiFacts = {
  repo: string;
  defaultBranch: string;
  actions: Read<{ enabled: boolean }>;
  /** The rest is asked only when Actions is not known to be off. */
  token?: Read<{ permissions: string; canApprove: boolean }>;
  repoSecrets?: Read<string[]>;
  /** null: a user's repository, which has no organization secrets. */
  orgSecrets?: Read<string[]> | null;
  environments?: Read<EnvironmentFacts[]>;
  app?: AppWorkflows;
};

export type CiVerdict = "safe" | "unsafe" | "unknown";

/** The permission each read wants, as a fine-grained token names it; a repository admin's classic token has them all. */
export const NEEDS = {
  actions: '"Administration: read"',
  token: '"Administration: read"',
  secrets: '"Secrets: read"',
  environments: '"Actions: read"',
  environmentSecrets: '"Secrets: read" and "Environments: read"',
  installations: 'an organization owner\'s token ("Administration: read" on the organization)',
  contents: '"Contents: read"'
} as const;

const APP_REACH = `a push to ${APP_BRANCH_PREFIX}** or the App's pull request`;
const TOKEN_FIX = "run again with a repository admin's token (gh auth token), or a fine-grained token with the permissions named";

export function refusal(read: { ok: false; status: number | null }, needs: string): string {
  return `${read.status === null ? "no answer" : `GitHub answered ${read.status}`}; needs ${needs}`;
}

/** One line for the repository, and the verdict the CI follow-ups line builds on. */
export function judgeCiSecrets(facts: CiFacts): { check: DoctorCheck; verdict: CiVerdict } {
  const label = `CI secrets (${facts.repo})`;
  if (facts.actions.ok && !facts.actions.value.enabled) {
    return { check: line("ci-secrets", label, "ok", "GitHub Actions is off: a push runs no workflow (CI outside GitHub Actions is not seen here)"), verdict: "safe" };
  }
  const reach: string[] = [];
  const unknown: string[] = [];
  const held: string[] = [];
  const fixes = new Set<string>();
  const confine = `move each secret into an environment whose deployment branches are ${facts.defaultBranch} only (Settings → Environments → Deployment branches and tags → Selected branches and tags) or that needs a reviewer, and name it with \`environment:\` in the jobs that use it`;

  const secretsRead = (read: Read<string[]> | undefined | null, what: string) => {
    if (read === undefined || read === null) return;
    if (!read.ok) {
      unknown.push(`${what} (${refusal(read, NEEDS.secrets)})`);
      fixes.add(TOKEN_FIX);
    } else if (read.value.length > 0) {
      reach.push(`${what} ${listNames(read.value)}`);
      fixes.add(confine);
    }
  };
  secretsRead(facts.repoSecrets, "the repository secrets");
  secretsRead(facts.orgSecrets, "the organization secrets");
  if (facts.repoSecrets?.ok && facts.repoSecrets.value.length === 0 && (facts.orgSecrets === null || (facts.orgSecrets?.ok && facts.orgSecrets.value.length === 0))) {
    held.push(facts.orgSecrets === null ? "no repository secret" : "no repository or organization secret");
  }

  if (facts.environments && !facts.environments.ok) {
    unknown.push(`the environments (${refusal(facts.environments, NEEDS.environments)})`);
    fixes.add(TOKEN_FIX);
  }
  for (const environment of facts.environments?.ok ? facts.environments.value : []) {
    judgeEnvironment(environment, facts.defaultBranch, { reach, unknown, held, fixes });
  }

  if (facts.token && !facts.token.ok) {
    unknown.push(`the GITHUB_TOKEN's default permissions (${refusal(facts.token, NEEDS.token)})`);
    fixes.add(TOKEN_FIX);
  }
  if (facts.token?.ok) {
    const token = facts.token.value;
    if (token.permissions === "write") reach.push("a GITHUB_TOKEN that may write to the repository (the default for workflows that set no `permissions:`)");
    if (token.canApprove) reach.push("a GITHUB_TOKEN that may approve pull requests");
    if (token.permissions === "write" || token.canApprove) {
      fixes.add("set Settings → Actions → General → Workflow permissions to \"Read repository contents and packages permissions\" and untick \"Allow GitHub Actions to create and approve pull requests\"");
    } else held.push("a read-only GITHUB_TOKEN by default");
  }

  let appNote = "";
  if (facts.app?.kind === "read" && facts.app.access === "write") {
    reach.push("the App's own Workflows permission (a run can change .github/workflows/)");
    fixes.add("remove the App's Workflows permission (GitHub App settings → Permissions → Workflows: No access)");
  } else if (facts.app?.kind === "unreadable") appNote = `; the App's Workflows permission was not read (${facts.app.why}): it must be "No access"`;
  else if (facts.app?.kind === "read") held.push(facts.app.access === null ? "no Workflows permission for the App" : `the App's Workflows permission is ${facts.app.access}, not write`);

  if (reach.length > 0) {
    const also = unknown.length > 0 ? `; also could not tell: ${unknown.join("; ")}` : "";
    const check = line("ci-secrets", label, "warn", `${APP_REACH} runs workflows that can reach ${listNames(reach)}${also}${appNote}`, `${[...fixes].join("; ")} (${CI_DOCS})`);
    return { check: { ...check, unsafe: true }, verdict: "unsafe" };
  }
  if (unknown.length > 0) {
    return {
      check: line("ci-secrets", label, "warn", `could not tell what ${APP_REACH} can reach: ${unknown.join("; ")}${appNote}`, `${[...fixes].join("; ")} (${CI_DOCS})`),
      verdict: "unknown"
    };
  }
  return { check: line("ci-secrets", label, "ok", `no secret reaches ${APP_REACH}: ${held.join("; ")}${appNote}`), verdict: "safe" };
}

type Tally = { reach: string[]; unknown: string[]; held: string[]; fixes: Set<string> };

/** An environment's secrets reach the App's runs unless a reviewer holds them or its branches leave the App's out. */
function judgeEnvironment(environment: EnvironmentFacts, defaultBranch: string, tally: Tally): void {
  const name = `environment "${environment.name}"`;
  const limit = `limit ${name} to ${defaultBranch} (Selected branches and tags) or give it required reviewers`;
  const secrets = environment.secrets;
  if (secrets.ok && secrets.value.length === 0) return;
  if (environment.reviewers) {
    tally.held.push(`${name} needs a reviewer's approval`);
    return;
  }
  const held = secrets.ok ? `${name} (${listNames(secrets.value)})` : name;
  /** Its secrets reach the App's runs because `why`: named when readable, "cannot tell" when not. */
  const reaches = (why: string) => {
    if (secrets.ok) {
      tally.reach.push(`${name}'s secrets ${listNames(secrets.value)}, since it ${why}`);
      tally.fixes.add(limit);
    } else {
      tally.unknown.push(`${name} ${why}, and its secrets could not be listed (${refusal(secrets, NEEDS.environmentSecrets)})`);
      tally.fixes.add(TOKEN_FIX);
    }
  };
  if (environment.branches.kind === "any") return reaches("takes any branch");
  if (environment.branches.kind === "protected") {
    tally.unknown.push(`${held} takes protected branches, and GitHub's REST API does not say which names branch protection covers (with no rule at all, every branch deploys)`);
    tally.fixes.add(limit);
    return;
  }
  const policies = environment.branches.policies;
  if (!policies.ok) {
    tally.unknown.push(`${name}'s deployment branch patterns (${refusal(policies, NEEDS.environments)})`);
    tally.fixes.add(TOKEN_FIX);
    return;
  }
  const branchPatterns = policies.value.filter((policy) => policy.type === "branch").map((policy) => policy.name);
  for (const pattern of branchPatterns) {
    const verdict = patternReachesApp(pattern);
    if (verdict.kind === "matches") return reaches(`lets in ${verdict.name} (pattern "${pattern}")`);
    if (verdict.kind === "unknown") {
      tally.unknown.push(`whether ${held}'s pattern "${pattern}" lets in the App's branches: ${verdict.why}`);
      tally.fixes.add(limit);
      return;
    }
  }
  tally.held.push(`${held} ${branchPatterns.length > 0 ? `takes only ${listNames(branchPatterns.map((pattern) => `"${pattern}"`))}` : "takes no branch"}`);
}
