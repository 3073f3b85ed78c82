/**
 * What `--remote`'s CI lines need from GitHub, asked through Octokit with the
 * operator's token as GitHub's REST API documents each read: the repository;
 * whether Actions is on; the GITHUB_TOKEN's defaults; repository and
 * organization secrets (names only); each environment, its secrets and its
 * deployment branch patterns; an organization's App installations (an
 * owner's read) for the App's Workflows permission; `.github/agent-think.yml`.
 * A refused read is kept as its status for the judges to name; only the
 * repository itself must answer (else Octokit's error is thrown).
 */
import type { components } from "@octokit/openapi-types";
import { Octokit } from "@octokit/rest";
import { MAX_REPO_CONFIG_BYTES, REPO_CONFIG_PATH, type RepoFile } from "../../../ingress/src/repo-triggers";
import type { AppWorkflows, BranchPolicy, CiFacts, EnvironmentFacts, Read } from "./ci-secrets";
import { NEEDS, refusal } from "./ci-secrets";

export type CiReadOptions = { apiUrl: string; token: string; appId?: number; fetch?: typeof fetch };

export type CiRead = { facts: CiFacts; configFile: Read<RepoFile> };

const QUIET = { debug() {}, info() {}, warn() {}, error() {} };

/** GitHub's answer, or its HTTP status; anything that is no HTTP answer is thrown. */
async function attempt<T>(read: () => Promise<T>): Promise<Read<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number") return { ok: false, status };
    throw error;
  }
}

export async function readCiFacts(repo: string, options: CiReadOptions): Promise<CiRead> {
  const [owner, name] = repo.split("/") as [string, string];
  // Quiet: a refused read is an answer here (the lines name it), not a log line on stderr.
  const octokit = new Octokit({ auth: options.token, baseUrl: options.apiUrl.replace(/\/+$/, ""), request: options.fetch ? { fetch: options.fetch } : {}, log: QUIET });
  const where = { owner, repo: name };
  const { data: repository } = await octokit.rest.repos.get(where);
  const organization = repository.owner.type === "Organization";
  const configFile = await attempt(() => readConfigFile(octokit, where));
  const facts: CiFacts = {
    repo,
    defaultBranch: repository.default_branch,
    actions: await attempt(async () => ({ enabled: (await octokit.rest.actions.getGithubActionsPermissionsRepository(where)).data.enabled }))
  };
  if (facts.actions.ok && !facts.actions.value.enabled) return { facts, configFile };

  facts.token = await attempt(async () => {
    const { data } = await octokit.rest.actions.getGithubActionsDefaultWorkflowPermissionsRepository(where);
    return { permissions: data.default_workflow_permissions, canApprove: data.can_approve_pull_request_reviews };
  });
  facts.repoSecrets = await attempt(async () => (await octokit.paginate(octokit.rest.actions.listRepoSecrets, { ...where, per_page: 100 })).map((secret) => secret.name));
  facts.orgSecrets = organization
    ? await attempt(async () => (await octokit.paginate(octokit.rest.actions.listRepoOrganizationSecrets, { ...where, per_page: 100 })).map((secret) => secret.name))
    : null;
  // Octokit's types miss that paginate unwraps `{ total_count, environments }` here too.
  const environments = await attempt(async () => (await octokit.paginate(octokit.rest.repos.getAllEnvironments, { ...where, per_page: 100 })) as unknown as Array<components["schemas"]["environment"]>);
  if (!environments.ok) facts.environments = environments;
  else {
    const read: EnvironmentFacts[] = [];
    for (const environment of environments.value) {
      const environment_name = environment.name;
      const policy = environment.deployment_branch_policy ?? null;
      read.push({
        name: environment_name,
        secrets: await attempt(async () => (await octokit.paginate(octokit.rest.actions.listEnvironmentSecrets, { ...where, environment_name, per_page: 100 })).map((secret) => secret.name)),
        reviewers: (environment.protection_rules ?? []).some((rule) => rule.type === "required_reviewers" && ((rule as { reviewers?: unknown[] }).reviewers ?? []).length > 0),
        branches:
          policy === null
            ? { kind: "any" }
            : policy.protected_branches
              ? { kind: "protected" }
              : {
                  kind: "custom",
                  policies: await attempt(async () =>
                    (await octokit.paginate(octokit.rest.repos.listDeploymentBranchPolicies, { ...where, environment_name, per_page: 100 })).map(
                      (entry): BranchPolicy => ({ name: entry.name ?? "", type: entry.type === "tag" ? "tag" : "branch" })
                    )
                  )
                }
      });
    }
    facts.environments = { ok: true, value: read };
  }
  facts.app = await appWorkflows(octokit, organization ? owner : null, options.appId);
  return { facts, configFile };
}

/**
 * The App's Workflows permission. GitHub answers an installation's
 * permissions to the App itself (a JWT the doctor does not hold) and, on an
 * organization, to its owners (`GET /orgs/{org}/installations`); on a
 * user's repository nothing the operator's token can read says it.
 */
async function appWorkflows(octokit: Octokit, org: string | null, appId: number | undefined): Promise<AppWorkflows> {
  if (appId === undefined) return { kind: "unreadable", why: "GITHUB_APP_ID is not set, so the App cannot be told from others" };
  if (org === null) return { kind: "unreadable", why: "on a user's repository GitHub shows an installation's permissions only to the App itself" };
  const installations = await attempt(() => octokit.paginate(octokit.rest.orgs.listAppInstallations, { org, per_page: 100 }));
  if (!installations.ok) return { kind: "unreadable", why: `listing ${org}'s App installations: ${refusal(installations, NEEDS.installations)}` };
  const installation = installations.value.find((candidate) => candidate.app_id === appId);
  if (!installation) return { kind: "unreadable", why: `GitHub lists no installation of App ${appId} on ${org}` };
  return { kind: "read", access: (installation.permissions as Record<string, string | undefined>).workflows ?? null };
}

/** `.github/agent-think.yml` on the default branch, as the webhook app reads it (ingress/src/github/app-client.ts). */
async function readConfigFile(octokit: Octokit, where: { owner: string; repo: string }): Promise<RepoFile> {
  let data: unknown;
  try {
    ({ data } = await octokit.rest.repos.getContent({ ...where, path: REPO_CONFIG_PATH }));
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return { found: false };
    throw error;
  }
  const file = data as { type?: unknown; size?: unknown; encoding?: unknown; content?: unknown };
  if (Array.isArray(data) || file.type !== "file") return { found: false };
  if (typeof file.size === "number" && file.size > MAX_REPO_CONFIG_BYTES) return { found: true, tooLargeBytes: file.size };
  if (file.encoding !== "base64" || typeof file.content !== "string") throw new Error(`GitHub's answer for ${REPO_CONFIG_PATH} has no base64 content`);
  const bytes = Buffer.from(file.content.replace(/\s/g, ""), "base64");
  if (bytes.length > MAX_REPO_CONFIG_BYTES) return { found: true, tooLargeBytes: bytes.length };
  return { found: true, text: new TextDecoder().decode(bytes) };
}
