/**
 * `npm run doctor -- --remote`'s rulesets line (scripts/lib/doctor/rulesets.ts)
 * against GitHub played by MSW: every request the doctor sends is judged by
 * GitHub's REST description, and every answer given is checked against the
 * operation's response schema. Which rules apply to which branch name is
 * GitHub's to decide, so each case says it, as GitHub would answer for the
 * rulesets it sets up.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadGitHubDescription, type GitHubDescription } from "../../scripts/lib/github-openapi";
import type { DoctorReport } from "../../scripts/lib/doctor/report";
import { OUTSIDE_PROBE, OWN_PROBE, rulesetsCheck, type BypassActor } from "../../scripts/lib/doctor/rulesets";
import { runDoctor } from "../../scripts/lib/doctor/run";

const API = "https://api.github.com";
const REPO = "acme/widgets";
const TOKEN = "ghp_doctorRulesetsCanary0123456789";
const APP_ID = 4242;

type Rule = { type: string; parameters?: Record<string, unknown> };
type Setup = {
  id: number;
  name: string;
  target: "branch" | "tag";
  enforcement?: "active" | "evaluate" | "disabled";
  include: string[];
  exclude?: string[];
  rules: Rule[];
  /** Absent: the token may not see the bypass list, and GitHub leaves it out. */
  bypass?: BypassActor[];
  /** The branch names (of the three the doctor asks about) GitHub would apply this ruleset to. */
  appliesTo?: string[];
};

const ROLES: BypassActor[] = [
  { actor_id: 5, actor_type: "RepositoryRole", bypass_mode: "always" },
  { actor_id: 2, actor_type: "RepositoryRole", bypass_mode: "always" },
  { actor_id: 4, actor_type: "RepositoryRole", bypass_mode: "always" }
];
const THE_APP: BypassActor = { actor_id: APP_ID, actor_type: "Integration", bypass_mode: "always" };
const RESTRICT: Rule[] = [{ type: "creation" }, { type: "update", parameters: { update_allows_fetch_and_merge: false } }, { type: "deletion" }, { type: "non_fast_forward" }];

/** The ruleset docs/security.md asks for on branches: everything but agent-think/**, people bypassing by role. */
const branchesRuleset = (overrides: Partial<Setup> = {}): Setup => ({
  id: 11,
  name: "agent-think stays on its branches",
  target: "branch",
  include: ["~ALL"],
  exclude: ["refs/heads/agent-think/**"],
  rules: RESTRICT,
  bypass: ROLES,
  appliesTo: ["main", OUTSIDE_PROBE],
  ...overrides
});
/** And on tags: every tag. */
const tagsRuleset = (overrides: Partial<Setup> = {}): Setup => ({
  id: 12,
  name: "no tags from apps",
  target: "tag",
  include: ["~ALL"],
  rules: [{ type: "creation" }, { type: "update" }, { type: "deletion" }],
  bypass: ROLES,
  ...overrides
});

let description: GitHubDescription;
let setups: Setup[] = [];
/** Every request: method, path and query, and the problems GitHub's description finds with it. */
const seen: Array<{ method: string; url: string; problems: string[]; auth: string | null }> = [];
/** Problems with the answers given, by GitHub's response schemas. */
const answerProblems: string[] = [];

function answer(operation: string, body: unknown) {
  answerProblems.push(...description.checkResponse(operation, 200, body).map((problem) => `${operation}: ${problem}`));
  return HttpResponse.json(body as never);
}

function rulesetBody(setup: Setup, full: boolean) {
  return {
    id: setup.id,
    name: setup.name,
    target: setup.target,
    source_type: "Repository",
    source: REPO,
    enforcement: setup.enforcement ?? "active",
    node_id: `RRS_${setup.id}`,
    _links: { self: { href: `${API}/repos/${REPO}/rulesets/${setup.id}` }, html: { href: `https://github.com/${REPO}/rules/${setup.id}` } },
    created_at: "2026-11-01T10:00:00Z",
    updated_at: "2026-11-02T10:00:00Z",
    ...(full
      ? { conditions: { ref_name: { include: setup.include, exclude: setup.exclude ?? [] } }, rules: setup.rules, ...(setup.bypass ? { bypass_actors: setup.bypass } : {}) }
      : {})
  };
}

const server = setupServer(
  http.all(`${API}/*`, async ({ request }) => {
    const url = new URL(request.url);
    const check = description.check({ method: request.method, url: `${url.pathname}${url.search}` });
    seen.push({ method: request.method, url: `${url.pathname}${url.search}`, problems: check.ok ? [] : [check.reason], auth: request.headers.get("authorization") });
    if (!check.ok) return HttpResponse.json({ message: check.message }, { status: check.status });
    const params = check.params as Record<string, string>;
    if (`${params.owner}/${params.repo}` !== REPO) return HttpResponse.json({ message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" }, { status: 404 });
    switch (check.operation.operationId) {
      case "repos/get":
        return answer("repos/get", fullRepository);
      case "repos/get-branch-rules": {
        const branch = decodeURIComponent(params.branch!);
        const rules = setups
          .filter((setup) => setup.target === "branch" && (setup.enforcement ?? "active") === "active" && (setup.appliesTo ?? []).includes(branch))
          .flatMap((setup) => setup.rules.map((rule) => ({ ...rule, ruleset_source_type: "Repository", ruleset_source: REPO, ruleset_id: setup.id })));
        return answer("repos/get-branch-rules", rules);
      }
      case "repos/get-repo-rulesets": {
        const targets = url.searchParams.get("targets")?.split(",");
        return answer("repos/get-repo-rulesets", setups.filter((setup) => !targets || targets.includes(setup.target)).map((setup) => rulesetBody(setup, false)));
      }
      case "repos/get-repo-ruleset": {
        const setup = setups.find((candidate) => candidate.id === Number(params.ruleset_id));
        return setup ? answer("repos/get-repo-ruleset", rulesetBody(setup, true)) : HttpResponse.json({ message: "Not Found" }, { status: 404 });
      }
      default:
        return HttpResponse.json({ message: `not played here: ${check.operation.operationId}` }, { status: 501 });
    }
  })
);

/** GitHub's full-repository for acme/widgets: the description's own example, renamed, with the field its schema requires and the example lacks. */
let fullRepository: Record<string, unknown>;

beforeAll(async () => {
  description = await loadGitHubDescription();
  const file = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
  const document = JSON.parse(readFileSync(file, "utf8")) as { components: { examples: Record<string, { value: Record<string, unknown> }> } };
  fullRepository = { ...document.components.examples["full-repository"]!.value, full_name: REPO, name: "widgets", default_branch: "main", has_discussions: false };
  server.listen({ onUnhandledRequest: "error" });
});
afterEach(() => {
  server.resetHandlers();
  setups = [];
  seen.length = 0;
  answerProblems.length = 0;
});
afterAll(() => server.close());

const check = (app: { appId?: number } = { appId: APP_ID }) => rulesetsCheck(REPO, { apiUrl: API, token: TOKEN, app });

/** Every request was one GitHub takes, with the token; every answer fit GitHub's schema. */
function expectGitHubContract() {
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.filter((request) => request.problems.length > 0)).toEqual([]);
  expect(seen.every((request) => request.method === "GET" && request.auth === `token ${TOKEN}`)).toBe(true);
  expect(answerProblems).toEqual([]);
}

describe("doctor --remote: the App's rulesets", () => {
  it("is ok with the two rulesets docs/security.md asks for, asking GitHub about the three branch names and reading the rulesets they come from", async () => {
    setups = [branchesRuleset(), tagsRuleset()];
    expect(await check()).toEqual({ id: "rulesets", label: `Rulesets (${REPO})`, status: "ok", detail: "the App may push only to agent-think/** and may create no tag" });
    expectGitHubContract();
    expect(seen.map((request) => request.url)).toEqual([
      `/repos/${REPO}`,
      `/repos/${REPO}/rules/branches/main?per_page=100`,
      `/repos/${REPO}/rules/branches/${OUTSIDE_PROBE}?per_page=100`,
      `/repos/${REPO}/rules/branches/${encodeURIComponent(OWN_PROBE)}?per_page=100`,
      `/repos/${REPO}/rulesets?includes_parents=true&targets=tag&per_page=100`,
      `/repos/${REPO}/rulesets/11?includes_parents=true`,
      `/repos/${REPO}/rulesets/12?includes_parents=true`
    ]);
  });

  it("says, marked unsafe, everything GitHub would let the App do when the repository has no rulesets", async () => {
    const line = await check();
    expect(line).toMatchObject({ status: "warn", unsafe: true });
    expect(line.detail).toBe("GitHub lets the App push to main, delete main, create a branch outside agent-think/**, create a tag: only the egress gateway stands between a run and them");
    expect(line.fix).toMatch(/docs\/security\.md \(Rulesets\)/);
    expectGitHubContract();
  });

  it("counts a ruleset the App may bypass as no ruleset", async () => {
    setups = [branchesRuleset({ bypass: [...ROLES, THE_APP] }), tagsRuleset()];
    const line = await check();
    expect(line).toMatchObject({ status: "warn", unsafe: true });
    expect(line.detail).toMatch(/^GitHub lets the App push to main, delete main, create a branch outside agent-think\/\*\*:/);
  });

  it("counts another App on the bypass list as no hole", async () => {
    setups = [branchesRuleset({ bypass: [...ROLES, { actor_id: 7, actor_type: "Integration", bypass_mode: "always" }] }), tagsRuleset()];
    expect((await check()).status).toBe("ok");
  });

  it("cannot tell whose an App on the bypass list is without GITHUB_APP_ID, and says so", async () => {
    setups = [branchesRuleset({ bypass: [...ROLES, { actor_id: 7, actor_type: "Integration", bypass_mode: "always" }] }), tagsRuleset()];
    const line = await check({});
    expect(line).toMatchObject({ status: "warn" });
    expect(line.unsafe).toBeUndefined();
    expect(line.detail).toMatch(/ruleset "agent-think stays on its branches" lets an App bypass it, and GITHUB_APP_ID is not set/);
  });

  it("cannot tell when the token may not see who bypasses, and says which token can", async () => {
    setups = [branchesRuleset({ bypass: undefined }), tagsRuleset()];
    const line = await check();
    expect(line.status).toBe("warn");
    expect(line.detail).toMatch(/^could not tell whether the App may push to main, delete main, create a branch outside agent-think\/\*\*: the token cannot see who may bypass ruleset "agent-think stays on its branches"$/);
    expect(line.fix).toMatch(/a token of a repository admin/);
  });

  it("takes a pull request rule that wants an approval as holding the default branch, and not one that wants none", async () => {
    const pullRequest = (count: number): Setup => ({
      id: 13,
      name: "main by review",
      target: "branch",
      include: ["~DEFAULT_BRANCH"],
      rules: [
        { type: "deletion" },
        {
          type: "pull_request",
          parameters: { required_approving_review_count: count, dismiss_stale_reviews_on_push: true, require_code_owner_review: false, require_last_push_approval: false, required_review_thread_resolution: false }
        }
      ],
      bypass: ROLES,
      appliesTo: ["main"]
    });
    const elsewhere = branchesRuleset({ rules: [{ type: "creation" }], appliesTo: [OUTSIDE_PROBE] });
    setups = [pullRequest(1), elsewhere, tagsRuleset()];
    expect((await check()).status).toBe("ok");
    expectGitHubContract();
    setups = [pullRequest(0), elsewhere, tagsRuleset()];
    expect((await check()).detail).toMatch(/^GitHub lets the App push to main:/);
  });

  it("sees an exclusion too wide for the bot's prefix as the hole it is (GitHub applies no rule to the probe)", async () => {
    setups = [branchesRuleset({ exclude: ["refs/heads/agent-think*"], appliesTo: ["main"] }), tagsRuleset()];
    expect((await check()).detail).toMatch(/^GitHub lets the App create a branch outside agent-think\/\*\*:/);
  });

  it("does not count a ruleset in evaluate mode, or a tag ruleset that leaves some tags out", async () => {
    setups = [branchesRuleset({ enforcement: "evaluate" }), tagsRuleset({ include: ["refs/tags/v*"] })];
    expect((await check()).detail).toMatch(/^GitHub lets the App push to main, delete main, create a branch outside agent-think\/\*\*, create a tag:/);
  });

  it("warns that runs could not push when a ruleset also covers agent-think/**", async () => {
    setups = [branchesRuleset({ exclude: [], appliesTo: ["main", OUTSIDE_PROBE, OWN_PROBE] }), tagsRuleset()];
    const line = await check();
    expect(line).toMatchObject({ status: "warn" });
    expect(line.detail).toBe(`a ruleset stops pushes to ${OWN_PROBE} (creation, update): the bot's runs could not push their branch`);
  });

  it("says what GitHub answered when the repository cannot be read, and never the token", async () => {
    const line = await rulesetsCheck("acme/missing", { apiUrl: API, token: TOKEN, app: { appId: APP_ID } });
    expect(line).toMatchObject({ status: "warn", detail: "GitHub answered 404: the repository does not exist or the token cannot read it" });
    expect(JSON.stringify(line)).not.toContain(TOKEN);
  });
});

describe("doctor --remote on the command line", () => {
  const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
  async function doctor(argv: string[], env: Record<string, string>) {
    let stdout = "";
    let stderr = "";
    const code = await runDoctor(argv, { root: ROOT, env, out: (text) => (stdout += text), err: (text) => (stderr += text) });
    return { code, stdout, stderr };
  }

  it("adds a section with a line per --repo, the App's id and the token from the environment, and never prints the token", async () => {
    setups = [branchesRuleset({ bypass: [...ROLES, THE_APP] }), tagsRuleset()];
    const { stdout } = await doctor(["--repo", REPO, "--json"], { GITHUB_TOKEN: TOKEN, GITHUB_APP_ID: String(APP_ID), GITHUB_API_URL: API });
    const report = JSON.parse(stdout) as DoctorReport;
    // The CI lines that follow each rulesets line are doctor-ci-secrets.test.ts's.
    expect(report.github?.checks.filter((check) => check.id === "rulesets")).toEqual([expect.objectContaining({ id: "rulesets", label: `Rulesets (${REPO})`, status: "warn", unsafe: true })]);
    expect(stdout).not.toContain(TOKEN);
    expectGitHubContract();
  });

  it("asks nothing without a token or a repository, and says which to set", async () => {
    const noToken = await doctor(["--remote", "--json"], { ALLOWED_REPOS: REPO });
    expect((JSON.parse(noToken.stdout) as DoctorReport).github?.checks).toEqual([
      expect.objectContaining({ status: "warn", detail: "not asked: neither GITHUB_TOKEN nor GH_TOKEN is set" })
    ]);
    const noRepo = await doctor(["--remote", "--json"], { GITHUB_TOKEN: TOKEN, ALLOWED_REPOS: "" });
    expect((JSON.parse(noRepo.stdout) as DoctorReport).github?.checks).toEqual([
      expect.objectContaining({ status: "warn", detail: "no repository to ask about: ALLOWED_REPOS is empty" })
    ]);
    expect(seen).toEqual([]);
  });

  it("refuses a --repo that is not owner/name, with the usage", async () => {
    const { code, stderr } = await doctor(["--repo", "widgets"], {});
    expect(code).toBe(2);
    expect(stderr).toMatch(/^doctor: --repo needs one owner\/name, got "widgets"/);
  });
});
