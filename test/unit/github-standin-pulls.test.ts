/**
 * The GitHub stand-in plays what the agent Worker does as the App around a
 * pull request, the way GitHub answers it: reading the repository (its
 * default branch, settable per test), opening a pull request from a branch
 * of the repository (GitHub's 422 for a second one with the same head and
 * base, and for a fork's head), updating it, and revoking an installation
 * token, which answers 401 "Bad credentials" from then on. Driven over
 * HTTP by Octokit and by the Worker's own clients (pull-requests.ts,
 * token-revocation.ts); every answer is checked against GitHub's response
 * schemas.
 */
import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { createPullRequestClient } from "../../src/github/pull-requests";
import { revokeInstallationToken } from "../../src/github/token-revocation";
import type { StandinRecord } from "../../scripts/lib/github-standin";
import { standinFixture } from "./standin-fixture";

const { description, start } = standinFixture();

const octokit = (baseUrl: string, auth?: string) => new Octokit({ baseUrl, ...(auth ? { auth } : {}), log: { debug() {}, info() {}, warn() {}, error() {} } });

const send = (url: string, method: string, body?: unknown, token = "ghs_x") =>
  fetch(url, { method, headers: { ...(token ? { authorization: `token ${token}` } : {}), "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

const mint = async (url: string) => ((await (await send(`${url}/app/installations/1/access_tokens`, "POST", {})).json()) as { token: string }).token;

const expectSchema = (operation: string, response: { status: number; data: unknown }) =>
  expect(description().checkResponse(operation, response.status, response.data), operation).toEqual([]);

describe("GitHub stand-in: a repository", () => {
  it("answers any repository as GitHub's full-repository: public, default branch main, the stand-in's web URL", async () => {
    const github = await start();
    const repo = await octokit(github.url, "ghs_x").rest.repos.get({ owner: "acme", repo: "app" });
    expect(repo.status).toBe(200);
    expect(repo.data).toMatchObject({
      name: "app",
      full_name: "acme/app",
      default_branch: "main",
      private: false,
      visibility: "public",
      fork: false,
      html_url: `${github.url}/acme/app`,
      owner: { login: "acme" }
    });
    expect(repo.data.id).toBe((await octokit(github.url).rest.repos.get({ owner: "acme", repo: "app" })).data.id);
    expectSchema("repos/get", repo);
    expect(github.refusals()).toEqual([]);
  });

  it("takes a seeded default branch and visibility (over HTTP or on the handle), also as a seeded pull request's base", async () => {
    const github = await start();
    const seeded = await send(`${github.url}/_standin/repos`, "POST", { repo: "acme/app", defaultBranch: "trunk", private: true });
    expect(seeded.status).toBe(201);
    const repo = await octokit(github.url, "ghs_x").rest.repos.get({ owner: "Acme", repo: "App" });
    expect(repo.data).toMatchObject({ default_branch: "trunk", private: true, visibility: "private" });
    expect(await seeded.json()).toMatchObject({ full_name: "acme/app", default_branch: "trunk" });
    expectSchema("repos/get", repo);
    // The Worker reads the default branch with the run's token, or none in local dev.
    expect(await createPullRequestClient({ baseUrl: github.url, token: "" }).defaultBranch("acme/app")).toBe("trunk");
    expect(github.seedRepo({ repo: "acme/lib", defaultBranch: "develop" })).toMatchObject({ default_branch: "develop", private: false });
    expect(github.seedPull({ repo: "acme/lib", number: 1 })).toMatchObject({ base: { ref: "develop", repo: { default_branch: "develop" } } });

    for (const [body, message] of [
      [{ repo: "acme" }, "repo must be owner/name"],
      [{ repo: "acme/app", defaultBranch: "" }, "defaultBranch must be a non-empty string"],
      [{ repo: "acme/app", private: "yes" }, "private must be a boolean"]
    ] as const) {
      const response = await send(`${github.url}/_standin/repos`, "POST", body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(await response.json()).toEqual({ message });
    }
    expect(() => github.seedRepo({ repo: "nope" })).toThrow(/seedRepo: repo must be owner\/name/);
    // Seeds stay when what was posted is forgotten.
    await send(`${github.url}/_standin/records`, "DELETE");
    expect((await octokit(github.url).rest.repos.get({ owner: "acme", repo: "app" })).data.default_branch).toBe("trunk");
    expect(github.refusals()).toEqual([]);
  });
});

describe("GitHub stand-in: opening and updating a pull request", () => {
  it("opens one from a branch of the repository, by the App's bot, numbered with the issues, and lists and gets it", async () => {
    const github = await start();
    const client = octokit(github.url, "ghs_x");
    await client.rest.issues.create({ owner: "acme", repo: "app", title: "It crashes" });
    github.seedPull({ repo: "acme/app", number: 2 });
    const created = await client.rest.pulls.create({ owner: "acme", repo: "app", head: "agent-think/issue-1", base: "main", title: "Fix the crash", body: "Fixes #1", draft: true });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      number: 3,
      state: "open",
      draft: true,
      title: "Fix the crash",
      body: "Fixes #1",
      user: { login: "agent-think[bot]", type: "Bot" },
      author_association: "NONE",
      head: { label: "acme:agent-think/issue-1", ref: "agent-think/issue-1", repo: { full_name: "acme/app", fork: false } },
      base: { ref: "main", repo: { full_name: "acme/app" } },
      html_url: `${github.url}/acme/app/pull/3`,
      closed_at: null,
      merged: false
    });
    expect(created.headers.location).toBe(`${github.url}/repos/acme/app/pulls/3`);
    expectSchema("pulls/create", created);
    const got = await client.rest.pulls.get({ owner: "acme", repo: "app", pull_number: 3 });
    expect(got.data).toEqual(created.data);
    const listed = await client.rest.pulls.list({ owner: "acme", repo: "app", head: "acme:agent-think/issue-1" });
    expect(listed.data.map((pull) => pull.number)).toEqual([3]);
    expectSchema("pulls/list", listed);
    // The next issue takes the next number; a comment on the pull request is on its conversation.
    expect((await client.rest.issues.create({ owner: "acme", repo: "app", title: "Another" })).data.number).toBe(4);
    expect((await client.rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 3, body: "Opened." })).data.html_url).toContain("/acme/app/pull/3#issuecomment-");
    // `head` may name the repository's own owner.
    expect((await client.rest.pulls.create({ owner: "acme", repo: "app", head: "ACME:docs", base: "main", title: "Docs" })).data.head).toMatchObject({ ref: "docs", label: "acme:docs" });
    expect(github.refusals()).toEqual([]);
  });

  it("opens one by the user for a user's token, with their author_association", async () => {
    const github = await start({ userLogin: "maria", permissions: { maria: "maintain" } });
    const created = await octokit(github.url, "ghp_maria").rest.pulls.create({ owner: "acme", repo: "app", head: "fix", base: "main", title: "Fix" });
    expect(created.data).toMatchObject({ user: { login: "maria", type: "User" }, author_association: "MEMBER", draft: false, body: null });
    expectSchema("pulls/create", created);
  });

  it("refuses a second open pull request with the same head and base, as GitHub does, and takes one to another base or after closing", async () => {
    const github = await start();
    const client = octokit(github.url, "ghs_x");
    const first = await client.rest.pulls.create({ owner: "acme", repo: "app", head: "agent-think/issue-7", base: "main", title: "Fix" });
    const again = await send(`${github.url}/repos/acme/app/pulls`, "POST", { head: "agent-think/issue-7", base: "main", title: "Fix again" });
    expect(again.status).toBe(422);
    const refusal = await again.json();
    expect(refusal).toMatchObject({
      message: "Validation Failed",
      errors: [{ resource: "PullRequest", code: "custom", message: "A pull request already exists for acme:agent-think/issue-7." }],
      documentation_url: expect.stringContaining("create-a-pull-request")
    });
    expect(description().checkResponse("pulls/create", 422, refusal)).toEqual([]);
    expect((await client.rest.pulls.create({ owner: "acme", repo: "app", head: "agent-think/issue-7", base: "stable", title: "Backport" })).status).toBe(201);
    await client.rest.pulls.update({ owner: "acme", repo: "app", pull_number: first.data.number, state: "closed" });
    expect((await client.rest.pulls.create({ owner: "acme", repo: "app", head: "agent-think/issue-7", base: "main", title: "Fix, again" })).status).toBe(201);
    expect(github.refusals().map((record) => [record.operation, record.refused])).toEqual([
      ["pulls/create", { status: 422, message: "A pull request already exists for acme:agent-think/issue-7." }]
    ]);
  });

  it("refuses a fork's head (not modelled) as a head GitHub cannot find, a missing title, and what the description refuses; 501s an issue to convert", async () => {
    const github = await start();
    const url = `${github.url}/repos/acme/app/pulls`;
    for (const body of [
      { head: "forker:fix", base: "main", title: "From a fork" },
      { head: "fix", head_repo: "forker/app", base: "main", title: "From a fork" }
    ]) {
      const response = await send(url, "POST", body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(await response.json()).toMatchObject({ message: "Validation Failed", errors: [{ resource: "PullRequest", field: "head", code: "invalid" }] });
    }
    const untitled = await send(url, "POST", { head: "fix", base: "main" });
    expect(untitled.status).toBe(422);
    expect(await untitled.json()).toMatchObject({ errors: [{ resource: "PullRequest", field: "title", code: "missing_field" }] });
    expect((await send(url, "POST", { head: "fix", title: "No base" })).status).toBe(422);
    expect((await send(url, "POST", { head: "fix", base: "main", title: "x", draft: "yes" })).status).toBe(422);
    expect((await send(url, "POST", { head: "fix", base: "main", issue: 5 })).status).toBe(501);
    expect((await send(url, "POST", { head: "fix", base: "main", title: "ok", body: "x".repeat(65_537) })).status).toBe(422);
    expect((await send(url, "POST", { head: "fix", base: "main", title: "ok", head_repo: "ACME/app" })).status).toBe(201);
    expect(github.refusals().map((record) => record.refused?.status)).toEqual([422, 422, 422, 422, 422, 501, 422]);
    expect(github.refusals()[0]!.refused!.message).toMatch(/not a branch of acme\/app/);
    expect(github.refusals()[3]!.refused!.message).toMatch(/"base" wasn't supplied/);
  });

  it("updates a created or seeded pull request's title, body, state and base, and 404s an unknown number", async () => {
    const github = await start();
    const client = octokit(github.url, "ghs_x");
    const created = await client.rest.pulls.create({ owner: "acme", repo: "app", head: "fix", base: "main", title: "Fix", body: "First." });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = await client.rest.pulls.update({ owner: "acme", repo: "app", pull_number: created.data.number, title: "Fix the parser", body: "Second." });
    expect(updated.status).toBe(200);
    expect(updated.data).toMatchObject({ number: created.data.number, title: "Fix the parser", body: "Second.", state: "open", created_at: created.data.created_at });
    expect(Date.parse(updated.data.updated_at)).toBeGreaterThan(Date.parse(created.data.created_at));
    expectSchema("pulls/update", updated);
    expect((await client.rest.pulls.get({ owner: "acme", repo: "app", pull_number: created.data.number })).data).toEqual(updated.data);

    const closed = await client.rest.pulls.update({ owner: "acme", repo: "app", pull_number: created.data.number, state: "closed" });
    expect(closed.data.state).toBe("closed");
    expect(Date.parse(closed.data.closed_at!)).toBeGreaterThan(0);
    expect((await client.rest.pulls.list({ owner: "acme", repo: "app" })).data).toEqual([]);
    const reopened = await client.rest.pulls.update({ owner: "acme", repo: "app", pull_number: created.data.number, state: "open", base: "stable" });
    expect(reopened.data).toMatchObject({ state: "open", closed_at: null, base: { ref: "stable", label: "acme:stable" } });

    github.seedPull({ repo: "acme/app", number: 40, title: "Seeded" });
    expect((await client.rest.pulls.update({ owner: "acme", repo: "app", pull_number: 40, body: "Edited." })).data).toMatchObject({ title: "Seeded", body: "Edited." });

    const missing = await send(`${github.url}/repos/acme/app/pulls/41`, "PATCH", { title: "x" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ message: "Not Found", documentation_url: expect.stringContaining("update-a-pull-request") });
    expect((await send(`${github.url}/repos/acme/app/pulls/40`, "PATCH", { body: null })).status).toBe(422);
    expect((await send(`${github.url}/repos/acme/app/pulls/40`, "PATCH", { state: "merged" })).status).toBe(422);
    expect((await send(`${github.url}/repos/acme/app/pulls/40`, "PATCH", { title: " " })).status).toBe(422);
    expect((await send(`${github.url}/repos/acme/app/pulls/40`, "PATCH", { maintainer_can_modify: true })).status).toBe(501);
    expect(github.refusals().map((record) => [record.operation, record.refused?.status])).toEqual([
      ["pulls/update", 422],
      ["pulls/update", 422],
      ["pulls/update", 422],
      ["pulls/update", 501]
    ]);
  });

  it("forgets created pull requests with what was posted, and keeps seeded ones", async () => {
    const github = await start();
    github.seedPull({ repo: "acme/app", number: 1 });
    const client = octokit(github.url, "ghs_x");
    expect((await client.rest.pulls.create({ owner: "acme", repo: "app", head: "fix", base: "main", title: "Fix" })).data.number).toBe(2);
    expect((await send(`${github.url}/_standin/records`, "DELETE")).status).toBe(204);
    expect((await client.rest.pulls.list({ owner: "acme", repo: "app" })).data.map((pull) => pull.number)).toEqual([1]);
    expect((await client.rest.pulls.create({ owner: "acme", repo: "app", head: "fix", base: "main", title: "Fix" })).data.number).toBe(2);
  });

  it("takes the Worker's pull request client: default branch, open, find its own, update", async () => {
    const github = await start();
    github.seedRepo({ repo: "acme/widgets", defaultBranch: "trunk" });
    // Someone else's pull request from the same branch name is not the App's.
    github.seedPull({ repo: "acme/widgets", number: 1, head: { ref: "agent-think/issue-9" }, base: { ref: "release" }, user: { login: "octocat" } });
    for (const token of ["", "ghs_run_token"]) {
      const pulls = createPullRequestClient({ baseUrl: github.url, token });
      const branch = `agent-think/issue-9-${token || "local"}`;
      const base = await pulls.defaultBranch("acme/widgets");
      expect(await pulls.openByAuthor("acme/widgets", branch, "agent-think[bot]")).toBeNull();
      const opened = await pulls.open("acme/widgets", { head: branch, base, title: "Fix #9", body: "Reproduced, then fixed.", draft: true });
      expect(opened.url).toBe(`${github.url}/acme/widgets/pull/${opened.number}`);
      expect(await pulls.openByAuthor("acme/widgets", branch, "agent-think[bot]")).toEqual(opened);
      expect(await pulls.update("acme/widgets", opened.number, { title: "Fix #9 (updated)", body: "Now with a test." })).toEqual(opened);
      expect(await pulls.open("acme/widgets", { head: branch, base, title: "Twice", body: "", draft: false }).catch((error: Error) => error.message)).toMatch(/422/);
    }
    expect(await createPullRequestClient({ baseUrl: github.url, token: "" }).openByAuthor("acme/widgets", "agent-think/issue-9", "agent-think[bot]")).toBeNull();
    const pull = (await octokit(github.url).rest.pulls.get({ owner: "acme", repo: "widgets", pull_number: 3 })).data;
    expect(pull).toMatchObject({ title: "Fix #9 (updated)", body: "Now with a test.", base: { ref: "trunk" }, draft: true });
    expect(github.refusals().map((record) => record.refused?.message)).toEqual([
      "A pull request already exists for acme:agent-think/issue-9-local.",
      "A pull request already exists for acme:agent-think/issue-9-ghs_run_token."
    ]);
  });
});

describe("GitHub stand-in: revoking an installation token", () => {
  it("answers 204 and then 401 Bad credentials for the token, minted here or not, and lists what was revoked", async () => {
    const github = await start();
    const minted = await mint(github.url);
    const madeUp = "canary-run-token-abc123";
    for (const token of [minted, madeUp]) {
      expect((await octokit(github.url, token).rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 1, body: "Working on it." })).status).toBe(201);
      const revoked = await octokit(github.url, token).rest.apps.revokeInstallationAccessToken();
      expect(revoked.status).toBe(204);
      const after = await send(`${github.url}/repos/acme/app/issues/comments/1/reactions`, "POST", { content: "rocket" }, token);
      expect(after.status).toBe(401);
      expect(await after.json()).toMatchObject({ message: "Bad credentials", status: "401" });
      // Revoking it again is GitHub's 401 too.
      expect((await send(`${github.url}/installation/token`, "DELETE", undefined, token)).status).toBe(401);
    }
    // Another token still works.
    expect((await send(`${github.url}/repos/acme/app/issues/comments/1/reactions`, "POST", { content: "rocket" }, "ghs_other")).status).toBe(201);
    expect(github.revoked()).toEqual([minted, madeUp]);
    expect(await (await fetch(`${github.url}/_standin/revoked`)).json()).toEqual({ revoked: [minted, madeUp] });

    const records = ((await (await fetch(`${github.url}/_standin/records`)).json()) as { records: StandinRecord[] }).records;
    const revocations = records.filter((record) => record.method === "DELETE");
    expect(revocations.map((record) => [record.path, record.operation ?? null, record.fault ?? null])).toEqual([
      ["/installation/token", "apps/revoke-installation-access-token", null],
      ["/installation/token", null, "revoked_token"],
      ["/installation/token", "apps/revoke-installation-access-token", null],
      ["/installation/token", null, "revoked_token"]
    ]);
    expect(records.filter((record) => record.fault === "revoked_token")).toHaveLength(4);
    // Records never hold a token: the run's token must not be found in what GitHub was sent.
    expect(JSON.stringify(records)).not.toContain(madeUp);
    expect(JSON.stringify(records)).not.toContain(minted);
    // Revocations stay when what was posted is forgotten, as tokens do.
    await send(`${github.url}/_standin/records`, "DELETE");
    expect(github.revoked()).toEqual([minted, madeUp]);
    expect(github.refusals()).toEqual([]);
  });

  it("takes the Worker's revocation: revoked, then already invalid; no request without a token", async () => {
    const github = await start();
    const token = await mint(github.url);
    expect(await revokeInstallationToken(github.url, token)).toBe("revoked");
    expect(await revokeInstallationToken(github.url, token)).toBe("already-invalid");
    expect(await revokeInstallationToken(github.url, "")).toBe("no-github");
    expect(github.records().filter((record) => record.method === "DELETE")).toHaveLength(2);
    expect(github.revoked()).toEqual([token]);
    expect(github.refusals()).toEqual([]);
  });

  it("answers no token 401 Requires authentication, an expired token 401, and 501s a user's token or the App's JWT", async () => {
    const github = await start();
    const none = await send(`${github.url}/installation/token`, "DELETE", undefined, "");
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ message: "Requires authentication", status: "401" });
    const expired = await mint(github.url);
    github.expireTokens(expired);
    expect((await send(`${github.url}/installation/token`, "DELETE", undefined, expired)).status).toBe(401);
    expect((await send(`${github.url}/installation/token`, "DELETE", undefined, "ghp_user")).status).toBe(501);
    expect((await send(`${github.url}/installation/token`, "DELETE", undefined, "eyJa.eyJb.c")).status).toBe(501);
    expect(github.revoked()).toEqual([]);
    expect(github.records().map((record) => [record.refused?.status ?? null, record.fault ?? null])).toEqual([
      [401, null],
      [null, null],
      [null, "expired_token"],
      [501, null],
      [501, null]
    ]);
  });
});
