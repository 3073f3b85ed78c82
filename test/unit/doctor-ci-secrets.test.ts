/**
 * `npm run doctor -- --remote`'s CI secrets and CI follow-ups lines
 * (scripts/lib/doctor/ci-secrets*.ts, ci-fix.ts) against GitHub played by
 * MSW: each case sets up a repository (its secrets, environments and their
 * deployment branch patterns, Actions, the GITHUB_TOKEN's defaults, the
 * App's installation, `.github/agent-think.yml`) and GitHub answers what it
 * holds. Every request the doctor sends is judged by GitHub's REST
 * description, every answer given is checked against the operation's
 * response schema, and a refused read is GitHub's 403.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ciFixCheck } from "../../scripts/lib/doctor/ci-fix";
import { judgeCiSecrets } from "../../scripts/lib/doctor/ci-secrets";
import { readCiFacts } from "../../scripts/lib/doctor/ci-secrets-read";
import type { DoctorReport } from "../../scripts/lib/doctor/report";
import { runDoctor } from "../../scripts/lib/doctor/run";
import { loadGitHubDescription, type GitHubDescription } from "../../scripts/lib/github-openapi";

const API = "https://api.github.com";
const REPO = "acme/widgets";
const TOKEN = "ghp_doctorCiSecretsCanary0123456789";
const APP_ID = 4242;
const STAMP = "2026-11-01T10:00:00Z";

type Environment = {
  name: string;
  secrets: string[];
  reviewers?: boolean;
  /** GitHub's deployment branches and tags: no restriction, protected branches only, or these patterns. */
  branches: "any" | "protected" | Array<{ name: string; type?: "branch" | "tag" }>;
};
type World = {
  ownerType: "Organization" | "User";
  actionsEnabled: boolean;
  token: { default_workflow_permissions: "read" | "write"; can_approve_pull_request_reviews: boolean };
  repoSecrets: string[];
  orgSecrets: string[];
  environments: Environment[];
  /** The App's installation on the organization: its Workflows permission, or none. */
  appWorkflows: "read" | "write" | null;
  /** `.github/agent-think.yml` on the default branch; null: no such file. */
  configFile: string | null;
  /** Operations GitHub refuses with 403, as it does a token without the permission. */
  refuse: string[];
};

const CLEAN: World = {
  ownerType: "Organization",
  actionsEnabled: true,
  token: { default_workflow_permissions: "read", can_approve_pull_request_reviews: false },
  repoSecrets: [],
  orgSecrets: [],
  environments: [],
  appWorkflows: null,
  configFile: null,
  refuse: []
};

let description: GitHubDescription;
let world: World = CLEAN;
let fullRepository: Record<string, unknown>;
let installationExample: Record<string, unknown>;
let reviewer: Record<string, unknown>;
const seen: Array<{ method: string; url: string; problems: string[]; auth: string | null }> = [];
const answerProblems: string[] = [];

function answer(operation: string, body: unknown) {
  answerProblems.push(...description.checkResponse(operation, 200, body).map((problem) => `${operation}: ${problem}`));
  return HttpResponse.json(body as never);
}

/** GitHub's basic-error, as the description gives it for the operations that declare their 403 and 404. */
function refused(status: 403 | 404, message: string) {
  const body = { message, documentation_url: "https://docs.github.com/rest", status: String(status) };
  answerProblems.push(...description.checkResponse("repos/get-content", status, body).map((problem) => `refusal: ${problem}`));
  return HttpResponse.json(body, { status });
}

const secretsBody = (names: string[]) => ({ total_count: names.length, secrets: names.map((name) => ({ name, created_at: STAMP, updated_at: STAMP })) });

function environmentBody(environment: Environment, index: number) {
  const policy =
    environment.branches === "any" ? null : environment.branches === "protected" ? { protected_branches: true, custom_branch_policies: false } : { protected_branches: false, custom_branch_policies: true };
  return {
    id: 1000 + index,
    node_id: `EN_${index}`,
    name: environment.name,
    url: `${API}/repos/${REPO}/environments/${encodeURIComponent(environment.name)}`,
    html_url: `https://github.com/${REPO}/deployments/activity_log?environments_filter=${encodeURIComponent(environment.name)}`,
    created_at: STAMP,
    updated_at: STAMP,
    protection_rules: [
      ...(environment.reviewers ? [{ id: 2000 + index, node_id: `GA_${index}`, prevent_self_review: true, type: "required_reviewers", reviewers: [{ type: "User", reviewer }] }] : []),
      ...(policy ? [{ id: 3000 + index, node_id: `GB_${index}`, type: "branch_policy" }] : [])
    ],
    deployment_branch_policy: policy
  };
}

const server = setupServer(
  http.all(`${API}/*`, async ({ request }) => {
    const url = new URL(request.url);
    const check = description.check({ method: request.method, url: `${url.pathname}${url.search}` });
    seen.push({ method: request.method, url: `${url.pathname}${url.search}`, problems: check.ok ? [] : [check.reason], auth: request.headers.get("authorization") });
    if (!check.ok) return HttpResponse.json({ message: check.message }, { status: check.status });
    const params = check.params as Record<string, string>;
    const operation = check.operation.operationId;
    if (operation === "orgs/list-app-installations" ? params.org !== "acme" : `${params.owner}/${params.repo}` !== REPO) return refused(404, "Not Found");
    if (world.refuse.includes(operation)) return refused(403, "Resource not accessible by personal access token");
    const environment = world.environments.find((candidate) => candidate.name === params.environment_name);
    switch (operation) {
      case "repos/get":
        return answer(operation, { ...fullRepository, owner: { ...(fullRepository.owner as object), login: "acme", type: world.ownerType } });
      case "repos/get-content": {
        if (world.configFile === null) return refused(404, "Not Found");
        const content = Buffer.from(world.configFile).toString("base64");
        const size = Buffer.byteLength(world.configFile);
        const self = `${API}/repos/${REPO}/contents/.github/agent-think.yml`;
        return answer(operation, {
          type: "file",
          encoding: "base64",
          size,
          name: "agent-think.yml",
          path: ".github/agent-think.yml",
          content,
          sha: "3d21ec53a331a6f037a91c368710b99387d012c1",
          url: self,
          git_url: `${API}/repos/${REPO}/git/blobs/3d21ec53a331a6f037a91c368710b99387d012c1`,
          html_url: `https://github.com/${REPO}/blob/main/.github/agent-think.yml`,
          download_url: `https://raw.githubusercontent.com/${REPO}/main/.github/agent-think.yml`,
          _links: { self, git: `${API}/repos/${REPO}/git/blobs/3d21ec53a331a6f037a91c368710b99387d012c1`, html: `https://github.com/${REPO}/blob/main/.github/agent-think.yml` }
        });
      }
      case "actions/get-github-actions-permissions-repository":
        return answer(operation, { enabled: world.actionsEnabled, ...(world.actionsEnabled ? { allowed_actions: "all" } : {}) });
      case "actions/get-github-actions-default-workflow-permissions-repository":
        return answer(operation, world.token);
      case "actions/list-repo-secrets":
        return answer(operation, secretsBody(world.repoSecrets));
      case "actions/list-repo-organization-secrets":
        return answer(operation, secretsBody(world.orgSecrets));
      case "repos/get-all-environments":
        return answer(operation, { total_count: world.environments.length, environments: world.environments.map(environmentBody) });
      case "actions/list-environment-secrets":
        return environment ? answer(operation, secretsBody(environment.secrets)) : refused(404, "Not Found");
      case "repos/list-deployment-branch-policies": {
        if (!environment || !Array.isArray(environment.branches)) return refused(404, "Not Found");
        const policies = environment.branches.map((policy, index) => ({ id: 5000 + index, node_id: `DBP_${index}`, name: policy.name, type: policy.type ?? "branch" }));
        return answer(operation, { total_count: policies.length, branch_policies: policies });
      }
      case "orgs/list-app-installations": {
        const installations = [
          { ...installationExample, id: 7, app_id: 77, app_slug: "other-app", permissions: { contents: "read", metadata: "read", workflows: "write" } },
          { ...installationExample, id: 9, app_id: APP_ID, app_slug: "agent-think", permissions: { contents: "write", issues: "write", metadata: "read", pull_requests: "write", ...(world.appWorkflows ? { workflows: world.appWorkflows } : {}) } }
        ];
        return answer(operation, { total_count: installations.length, installations });
      }
      case "repos/get-branch-rules":
        return answer(operation, []);
      case "repos/get-repo-rulesets":
        return answer(operation, []);
      default:
        return HttpResponse.json({ message: `not played here: ${operation}` }, { status: 501 });
    }
  })
);

beforeAll(async () => {
  description = await loadGitHubDescription();
  const file = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
  const document = JSON.parse(readFileSync(file, "utf8")) as { components: { examples: Record<string, { value: Record<string, unknown> }> } };
  const examples = document.components.examples;
  fullRepository = { ...examples["full-repository"]!.value, full_name: REPO, name: "widgets", default_branch: "main", has_discussions: false };
  installationExample = examples.installation!.value;
  reviewer = examples["full-repository"]!.value.owner as Record<string, unknown>;
  server.listen({ onUnhandledRequest: "error" });
});
afterEach(() => {
  server.resetHandlers();
  world = CLEAN;
  seen.length = 0;
  answerProblems.length = 0;
});
afterAll(() => server.close());

async function lines(setup: Partial<World>, ciFixRepos = "") {
  world = { ...CLEAN, ...setup };
  const { facts, configFile } = await readCiFacts(REPO, { apiUrl: API, token: TOKEN, appId: APP_ID });
  const secrets = judgeCiSecrets(facts);
  return { secrets: secrets.check, verdict: secrets.verdict, fix: ciFixCheck({ repo: REPO, defaultBranch: facts.defaultBranch, configFile, ciFixRepos, ci: secrets.verdict }) };
}

/** Every request was one GitHub takes, a GET with the operator's token; every answer fit GitHub's schema. */
function expectGitHubContract() {
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.filter((request) => request.problems.length > 0)).toEqual([]);
  expect(seen.every((request) => request.method === "GET" && request.auth === `token ${TOKEN}`)).toBe(true);
  expect(answerProblems).toEqual([]);
}

describe("doctor --remote: what a push to the App's branch reaches in CI", () => {
  it("is ok with no secret anywhere, asking GitHub for each thing it judges", async () => {
    const { secrets, verdict } = await lines({ environments: [{ name: "docs", secrets: [], branches: "any" }] });
    expect(secrets).toEqual({
      id: "ci-secrets",
      label: `CI secrets (${REPO})`,
      status: "ok",
      detail: "no secret reaches a push to agent-think/** or the App's pull request: no repository or organization secret; a read-only GITHUB_TOKEN by default; no Workflows permission for the App"
    });
    expect(verdict).toBe("safe");
    expectGitHubContract();
    expect(seen.map((request) => request.url)).toEqual([
      `/repos/${REPO}`,
      `/repos/${REPO}/contents/.github%2Fagent-think.yml`,
      `/repos/${REPO}/actions/permissions`,
      `/repos/${REPO}/actions/permissions/workflow`,
      `/repos/${REPO}/actions/secrets?per_page=100`,
      `/repos/${REPO}/actions/organization-secrets?per_page=100`,
      `/repos/${REPO}/environments?per_page=100`,
      `/repos/${REPO}/environments/docs/secrets?per_page=100`,
      "/orgs/acme/installations?per_page=100"
    ]);
  });

  it("marks unsafe, naming them, repository and organization secrets, which reach every run on any branch", async () => {
    const { secrets, verdict } = await lines({ repoSecrets: ["NPM_TOKEN", "DEPLOY_KEY"], orgSecrets: ["SLACK_WEBHOOK"] });
    expect(verdict).toBe("unsafe");
    expect(secrets).toMatchObject({ status: "warn", unsafe: true });
    expect(secrets.detail).toBe(
      "a push to agent-think/** or the App's pull request runs workflows that can reach the repository secrets NPM_TOKEN and DEPLOY_KEY and the organization secrets SLACK_WEBHOOK"
    );
    expect(secrets.fix).toMatch(/^move each secret into an environment whose deployment branches are main only .* or that needs a reviewer/);
    expect(secrets.fix).toMatch(/docs\/security\.md \(CI secrets\)\)$/);
    expectGitHubContract();
  });

  it("is ok when the only secrets are an environment's bound to the default branch, or held for a reviewer", async () => {
    const { secrets, verdict } = await lines({
      environments: [
        { name: "production", secrets: ["DEPLOY_KEY"], branches: [{ name: "main" }, { name: "v*", type: "tag" }] },
        { name: "release", secrets: ["SIGNING_KEY"], reviewers: true, branches: "any" }
      ]
    });
    expect(verdict).toBe("safe");
    expect(secrets).toMatchObject({ status: "ok" });
    expect(secrets.detail).toBe(
      'no secret reaches a push to agent-think/** or the App\'s pull request: no repository or organization secret; environment "production" (DEPLOY_KEY) takes only "main"; environment "release" needs a reviewer\'s approval; a read-only GITHUB_TOKEN by default; no Workflows permission for the App'
    );
    expectGitHubContract();
    expect(seen.map((request) => request.url)).toContain(`/repos/${REPO}/environments/production/deployment-branch-policies?per_page=100`);
  });

  it("marks unsafe an environment whose pattern lets in the App's branch or its pull request, and one that takes any branch", async () => {
    const { secrets, verdict } = await lines({
      environments: [
        { name: "preview", secrets: ["PREVIEW_TOKEN"], branches: [{ name: "main" }, { name: "agent-*/*" }] },
        { name: "pr checks", secrets: ["CODECOV_TOKEN"], branches: [{ name: "refs/pull/*/merge" }] },
        { name: "staging", secrets: ["STAGING_KEY"], branches: "any" }
      ]
    });
    expect(verdict).toBe("unsafe");
    expect(secrets).toMatchObject({ status: "warn", unsafe: true });
    expect(secrets.detail).toBe(
      'a push to agent-think/** or the App\'s pull request runs workflows that can reach environment "preview"\'s secrets PREVIEW_TOKEN, since it lets in agent-think/issue-1 (pattern "agent-*/*"), environment "pr checks"\'s secrets CODECOV_TOKEN, since it lets in refs/pull/1/merge (pattern "refs/pull/*/merge") and environment "staging"\'s secrets STAGING_KEY, since it takes any branch'
    );
    expect(secrets.fix).toContain('limit environment "preview" to main (Selected branches and tags) or give it required reviewers');
    expectGitHubContract();
    expect(seen.map((request) => request.url)).toContain(`/repos/${REPO}/environments/pr%20checks/deployment-branch-policies?per_page=100`);
  });

  it("cannot tell when GitHub refuses a read, and names the permission it wants", async () => {
    const { secrets, verdict } = await lines({ refuse: ["actions/list-repo-secrets", "orgs/list-app-installations"] });
    expect(verdict).toBe("unknown");
    expect(secrets).toMatchObject({ status: "warn" });
    expect(secrets.unsafe).toBeUndefined();
    expect(secrets.detail).toBe(
      'could not tell what a push to agent-think/** or the App\'s pull request can reach: the repository secrets (GitHub answered 403; needs "Secrets: read"); the App\'s Workflows permission was not read (listing acme\'s App installations: GitHub answered 403; needs an organization owner\'s token ("Administration: read" on the organization)): it must be "No access"'
    );
    expect(secrets.fix).toMatch(/^run again with a repository admin's token \(gh auth token\), or a fine-grained token with the permissions named/);
    expectGitHubContract();
  });

  it("is ok when Actions is off, and asks nothing more about CI", async () => {
    const { secrets, verdict } = await lines({ actionsEnabled: false, repoSecrets: ["NPM_TOKEN"] });
    expect(verdict).toBe("safe");
    expect(secrets).toMatchObject({ status: "ok", detail: "GitHub Actions is off: a push runs no workflow (CI outside GitHub Actions is not seen here)" });
    expect(seen.map((request) => request.url)).toEqual([`/repos/${REPO}`, `/repos/${REPO}/contents/.github%2Fagent-think.yml`, `/repos/${REPO}/actions/permissions`]);
    expectGitHubContract();
  });

  it("cannot tell for an environment on protected branches only, since GitHub does not list which names are protected", async () => {
    const { secrets, verdict } = await lines({ environments: [{ name: "production", secrets: ["DEPLOY_KEY"], branches: "protected" }] });
    expect(verdict).toBe("unknown");
    expect(secrets.detail).toMatch(/environment "production" \(DEPLOY_KEY\) takes protected branches, and GitHub's REST API does not say which names branch protection covers/);
    expect(secrets.fix).toMatch(/^limit environment "production" to main/);
  });

  it("marks unsafe a read-write or approving GITHUB_TOKEN, and the App's own Workflows permission", async () => {
    const { secrets } = await lines({ token: { default_workflow_permissions: "write", can_approve_pull_request_reviews: true }, appWorkflows: "write" });
    expect(secrets).toMatchObject({ status: "warn", unsafe: true });
    expect(secrets.detail).toBe(
      "a push to agent-think/** or the App's pull request runs workflows that can reach a GITHUB_TOKEN that may write to the repository (the default for workflows that set no `permissions:`), a GITHUB_TOKEN that may approve pull requests and the App's own Workflows permission (a run can change .github/workflows/)"
    );
    expect(secrets.fix).toMatch(/Workflow permissions to "Read repository contents and packages permissions"/);
    expect(secrets.fix).toMatch(/remove the App's Workflows permission/);
  });

  it("on a user's repository asks for no organization secret and says the App's permissions cannot be read there", async () => {
    const { secrets } = await lines({ ownerType: "User" });
    expect(secrets.detail).toBe(
      'no secret reaches a push to agent-think/** or the App\'s pull request: no repository secret; a read-only GITHUB_TOKEN by default; the App\'s Workflows permission was not read (on a user\'s repository GitHub shows an installation\'s permissions only to the App itself): it must be "No access"'
    );
    expect(seen.map((request) => request.url)).not.toContain(`/repos/${REPO}/actions/organization-secrets?per_page=100`);
    expectGitHubContract();
  });
});

describe("doctor --remote: CI follow-ups against CI_FIX_REPOS", () => {
  const ASKS = "version: 1\nci:\n  fix: 2\n";

  it("says follow-ups are off, and why, where the file asks for ci: { fix } and CI_FIX_REPOS does not list the repository", async () => {
    const { fix } = await lines({ configFile: ASKS }, "acme/gadgets");
    expect(fix).toEqual({
      id: "ci-fix",
      label: `CI follow-ups (${REPO})`,
      status: "warn",
      detail: `.github/agent-think.yml on main asks for ci: { fix: 2 }, but CI_FIX_REPOS does not list ${REPO}: CI follow-ups are off there, since each would push to the App's branch and run the repository's CI`,
      fix: `the CI secrets line is ok: add ${REPO} to CI_FIX_REPOS in wrangler.jsonc and ingress/wrangler.jsonc to turn them on`
    });
    expectGitHubContract();
  });

  it("marks unsafe a repository CI_FIX_REPOS accepts while its CI can reach secrets", async () => {
    const { fix } = await lines({ configFile: ASKS, repoSecrets: ["NPM_TOKEN"] }, "*");
    expect(fix).toMatchObject({ id: "ci-fix", status: "warn", unsafe: true });
    expect(fix.detail).toBe(
      "CI_FIX_REPOS accepts CI follow-ups here, and .github/agent-think.yml on main asks for ci: { fix: 2 }, while the repository's CI can reach secrets (the CI secrets line): each follow-up's push runs it"
    );
    expect(fix.fix).toMatch(new RegExp(`take ${REPO} out of CI_FIX_REPOS in both configs`));
  });

  it("is ok when accepted and no secret reaches the App's branches, and when the file asks for none", async () => {
    expect((await lines({ configFile: ASKS }, REPO)).fix).toMatchObject({ status: "ok", detail: "on (ci: { fix: 2 }, accepted by CI_FIX_REPOS); no secret reaches the App's branches" });
    expect((await lines({}, "")).fix).toMatchObject({ status: "ok", detail: "off: .github/agent-think.yml on main asks for none" });
  });

  it("warns when the file does not parse, since no follow-up starts then", async () => {
    const { fix } = await lines({ configFile: "version: 1\nci:\n  fix: 9\n" }, REPO);
    expect(fix).toMatchObject({ status: "warn", detail: expect.stringMatching(/^\.github\/agent-think\.yml on main does not parse \(ci\.fix: must be at most 3\): no CI follow-up starts$/) });
  });
});

describe("doctor --remote on the command line", () => {
  const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

  it("adds the CI lines after each repository's rulesets line, with CI_FIX_REPOS from the environment, and never prints the token", async () => {
    world = { ...CLEAN, repoSecrets: ["NPM_TOKEN"], configFile: "version: 1\nci:\n  fix: 1\n" };
    let stdout = "";
    await runDoctor(["--repo", REPO], {
      root: ROOT,
      env: { GITHUB_TOKEN: TOKEN, GITHUB_APP_ID: String(APP_ID), GITHUB_API_URL: API, CI_FIX_REPOS: REPO },
      out: (text) => (stdout += text),
      err: () => {}
    });
    expect(stdout).toContain("GitHub (--remote):");
    expect(stdout).toMatch(/! CI secrets \(acme\/widgets\): a push to agent-think\/\*\* or the App's pull request runs workflows that can reach the repository secrets NPM_TOKEN\n/);
    expect(stdout).toMatch(/! CI follow-ups \(acme\/widgets\): CI_FIX_REPOS accepts CI follow-ups here/);
    expect(stdout).not.toContain(TOKEN);
    expectGitHubContract();

    let json = "";
    await runDoctor(["--repo", REPO, "--json"], { root: ROOT, env: { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: API }, out: (text) => (json += text), err: () => {} });
    const report = JSON.parse(json) as DoctorReport;
    expect(report.github?.checks.map((check) => check.id)).toEqual(["rulesets", "ci-secrets", "ci-fix"]);
  });

  it("says GitHub could not be asked when the repository cannot be read", async () => {
    let json = "";
    await runDoctor(["--repo", "acme/missing", "--json"], { root: ROOT, env: { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: API }, out: (text) => (json += text), err: () => {} });
    const report = JSON.parse(json) as DoctorReport;
    expect(report.github?.checks.find((check) => check.id === "ci-secrets")).toMatchObject({
      status: "warn",
      detail: "GitHub answered 404: the repository does not exist or the token cannot read it"
    });
    expect(json).not.toContain(TOKEN);
  });
});
