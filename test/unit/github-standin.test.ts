/**
 * The local GitHub stand-in judges every request by GitHub's own REST
 * description (@octokit/openapi) and records what it refused; it answers
 * the calls agent-think makes the way GitHub shapes them, driven here by
 * the same clients production uses (the agent Worker's createGitHubClient,
 * the webhook app's mintRepoToken and installationClient, @octokit/rest),
 * and models what GitHub does beyond its description where we depend on it.
 */
import { TOKEN_PERMISSIONS } from "../../ingress/src/github/app-client";
import { generateKeyPairSync } from "node:crypto";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { createGitHubClient, GitHubCallError, type ReactionContent } from "../../src/github/client";
import { createRepoReader } from "../../src/github/repo-reader";
import { installationClient, mintRepoToken } from "../../ingress/src/github/app-client";
import { createLogger } from "../../ingress/src/log";
import { pullRequestSchema } from "../../ingress/src/payload";
import { validateGitHubRequest, type GitHubDescriptionName } from "../../scripts/lib/github-openapi";
import { RouteIndex } from "../../scripts/lib/github-routes";
import { describeRecord, parsePermissions, startGitHubStandin, STANDIN_BOT_USER_ID, type GitHubStandin, type RoleName, type StandinRecord } from "../../scripts/lib/github-standin";
import { standinFixture } from "./standin-fixture";

const fixture = standinFixture();
const { start } = fixture;

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { authorization: "token anything", "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

const octokit = (baseUrl: string, auth?: string) => new Octokit({ baseUrl, ...(auth ? { auth } : {}), log: { debug() {}, info() {}, warn() {}, error() {} } });

const silentLog = createLogger({}, [], () => {});

/** Every reaction our clients may send (a compile error here when the union changes). */
const OUR_REACTIONS: Record<ReactionContent, true> = { "+1": true, "-1": true, laugh: true, confused: true, heart: true, hooray: true, rocket: true, eyes: true };

describe("GitHub stand-in: answers", () => {
  it("records reactions, answering 201 for a new one and 200 with the same reaction for a repeat", async () => {
    const github = await start();
    const url = `${github.url}/repos/acme/app/issues/comments/77/reactions`;
    const first = await post(url, { content: "rocket" });
    expect(first.status).toBe(201);
    const repeat = await post(url, { content: "rocket" });
    expect(repeat.status).toBe(200);
    expect(((await repeat.json()) as { id: number }).id).toBe(((await first.json()) as { id: number }).id);
    expect((await post(url, { content: "eyes" })).status).toBe(201);
    const records = (await (await fetch(`${github.url}/_standin/records`)).json()) as { records: StandinRecord[] };
    expect(records.records.map((record) => record.body)).toEqual([{ content: "rocket" }, { content: "rocket" }, { content: "eyes" }]);
    expect(records.records.map((record) => record.operation)).toEqual(Array(3).fill("reactions/create-for-issue-comment"));
    expect(github.refusals()).toEqual([]);
  });

  it("keeps posted comments per issue and lists them back", async () => {
    const github = await start();
    const url = `${github.url}/repos/Acme/App/issues/5/comments`;
    const created = await post(url, { body: "<!-- marker -->\nReproduced." });
    expect(created.status).toBe(201);
    const comment = (await created.json()) as { id: number; html_url: string; user: { login: string } };
    expect(comment.html_url).toBe(`${github.url}/Acme/App/issues/5#issuecomment-${comment.id}`);
    expect(comment.user.login).toBe("agent-think[bot]");
    const listed = (await (await fetch(`${github.url}/repos/acme/app/issues/5/comments`)).json()) as Array<{ body: string }>;
    expect(listed.map((entry) => entry.body)).toEqual(["<!-- marker -->\nReproduced."]);
    expect(describeRecord(github.records()[0]!)).toBe("POST /repos/Acme/App/issues/5/comments: Reproduced.");
    // A closing comment's line to the requester is shown with the heading after it.
    await post(url, { body: "<!-- marker -->\n@alice\n\n### ✅ Reproduced\n\nIt breaks." });
    expect(describeRecord(github.records()[2]!)).toBe("POST /repos/Acme/App/issues/5/comments: @alice · ### ✅ Reproduced");
  });

  it("mints installation tokens and names the installation", async () => {
    const github = await start();
    const installation = await fetch(`${github.url}/repos/acme/app/installation`);
    expect(await installation.json()).toMatchObject({ id: 1, account: { login: "acme" } });
    const token = (await (await post(`${github.url}/app/installations/1/access_tokens`, { repositories: ["app"] })).json()) as {
      token: string;
      expires_at: string;
    };
    expect(token.token).toMatch(/^ghs_standin\d+$/);
    expect(Date.parse(token.expires_at)).toBeGreaterThan(Date.now());
  });

  it("answers a collaborator's permission: write by default, a role per login from the options, the environment or setRole", async () => {
    const github = await start({ permissions: { Mallory: "read", tri: "triage" } });
    const permission = async (login: string) =>
      (await octokit(github.url, "ghs_x").rest.repos.getCollaboratorPermissionLevel({ owner: "acme", repo: "app", username: login })).data;
    expect(await permission("alice")).toMatchObject({ permission: "write", role_name: "write", user: { login: "alice", type: "User" } });
    expect(await permission("mallory")).toMatchObject({ permission: "read", role_name: "read", user: { login: "mallory" } });
    // GitHub's legacy `permission` folds triage into read and maintain into write.
    expect(await permission("tri")).toMatchObject({ permission: "read", role_name: "triage" });
    github.setRole("alice", "maintain");
    expect(await permission("alice")).toMatchObject({ permission: "write", role_name: "maintain" });
    expect(github.refusals()).toEqual([]);

    expect(parsePermissions(" mallory=read, bob=admin ")).toEqual({ mallory: "read", bob: "admin" });
    expect(() => parsePermissions("mallory=reader")).toThrow(/GITHUB_STANDIN_PERMISSIONS: "mallory=reader"/);
    await github.close();
    const before = process.env.GITHUB_STANDIN_PERMISSIONS;
    process.env.GITHUB_STANDIN_PERMISSIONS = "eve=read";
    try {
      const fromEnv = await start();
      expect((await octokit(fromEnv.url).rest.repos.getCollaboratorPermissionLevel({ owner: "acme", repo: "app", username: "eve" })).data.permission).toBe("read");
    } finally {
      if (before === undefined) delete process.env.GITHUB_STANDIN_PERMISSIONS;
      else process.env.GITHUB_STANDIN_PERMISSIONS = before;
    }
  });

  it("answers in the shapes of GitHub's response schemas", async () => {
    const github = await start();
    const client = octokit(github.url, "ghs_x");
    const reaction = await client.rest.reactions.createForIssueComment({ owner: "acme", repo: "app", comment_id: 7, content: "eyes" });
    const comment = await client.rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 5, body: "hello" });
    const listed = await client.rest.issues.listComments({ owner: "acme", repo: "app", issue_number: 5 });
    const installation = await client.rest.apps.getRepoInstallation({ owner: "acme", repo: "app" });
    const token = await client.rest.apps.createInstallationAccessToken({ installation_id: 1, repositories: ["app"] });
    const permission = await client.rest.repos.getCollaboratorPermissionLevel({ owner: "acme", repo: "app", username: "alice" });
    expect(fixture.description().checkResponse("reactions/create-for-issue-comment", reaction.status, reaction.data)).toEqual([]);
    expect(fixture.description().checkResponse("issues/create-comment", comment.status, comment.data)).toEqual([]);
    expect(fixture.description().checkResponse("issues/list-comments", listed.status, listed.data)).toEqual([]);
    expect(fixture.description().checkResponse("apps/get-repo-installation", installation.status, installation.data)).toEqual([]);
    expect(fixture.description().checkResponse("apps/create-installation-access-token", token.status, token.data)).toEqual([]);
    expect(fixture.description().checkResponse("repos/get-collaborator-permission-level", permission.status, permission.data)).toEqual([]);
  });
});

describe("GitHub stand-in: issues, who is calling, and reactions listed", () => {
  it("creates issues numbered per repository (skipping a seeded pull request's number), gets, updates and labels them", async () => {
    const github = await start();
    github.seedPull({ repo: "acme/app", number: 2 });
    const client = octokit(github.url, "ghp_maintainer");
    const first = await client.rest.issues.create({ owner: "acme", repo: "app", title: "It crashes", body: "Steps: run it.", labels: ["bug"] });
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({ number: 1, state: "open", title: "It crashes", body: "Steps: run it.", user: { login: "octocat", type: "User" }, labels: [{ name: "bug" }] });
    expect(first.data.html_url).toBe(`${github.url}/acme/app/issues/1`);
    const second = await client.rest.issues.create({ owner: "acme", repo: "app", title: "Another" });
    expect(second.data.number).toBe(3);
    expect(second.data.body).toBeNull();
    expect((await client.rest.issues.create({ owner: "acme", repo: "other", title: 42 })).data).toMatchObject({ number: 1, title: "42" });

    const got = await client.rest.issues.get({ owner: "ACME", repo: "app", issue_number: 1 });
    expect(got.data).toEqual(first.data);
    const missing = await fetch(`${github.url}/repos/acme/app/issues/9`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ message: "Not Found", status: "404" });

    // A comment on the issue counts; updated_at moves.
    await client.rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 1, body: "@agent-think reproduce this issue" });
    expect((await client.rest.issues.get({ owner: "acme", repo: "app", issue_number: 1 })).data.comments).toBe(1);

    const labelled = await client.rest.issues.addLabels({ owner: "acme", repo: "app", issue_number: 1, labels: ["agent-think:reproduced", "BUG"] });
    expect(labelled.status).toBe(200);
    expect(labelled.data.map((label) => label.name)).toEqual(["bug", "agent-think:reproduced"]);
    const listedLabels = await client.rest.issues.listLabelsOnIssue({ owner: "acme", repo: "app", issue_number: 1, per_page: 100 });
    expect(listedLabels.data.map((label) => label.name)).toEqual(["bug", "agent-think:reproduced"]);

    const closed = await client.rest.issues.update({ owner: "acme", repo: "app", issue_number: 1, state: "closed", state_reason: "not_planned", title: "It crashes (reproduced)" });
    expect(closed.data).toMatchObject({ state: "closed", state_reason: "not_planned", title: "It crashes (reproduced)", closed_by: { login: "octocat" } });
    expect(Date.parse(closed.data.closed_at!)).toBeGreaterThan(0);
    const reopened = await client.rest.issues.update({ owner: "acme", repo: "app", issue_number: 1, state: "open", labels: [] });
    expect(reopened.data).toMatchObject({ state: "open", state_reason: "reopened", closed_at: null, closed_by: null, labels: [] });
    const byDefault = await client.rest.issues.update({ owner: "acme", repo: "app", issue_number: 3, state: "closed", labels: [{ name: "wontfix" }], body: null });
    expect(byDefault.data).toMatchObject({ state: "closed", state_reason: "completed", labels: [{ name: "wontfix" }], body: null });

    const check = (operation: string, response: { status: number; data: unknown }) =>
      expect(fixture.description().checkResponse(operation, response.status, response.data), operation).toEqual([]);
    check("issues/create", first);
    check("issues/get", got);
    check("issues/add-labels", labelled);
    check("issues/list-labels-on-issue", listedLabels);
    check("issues/update", closed);
    check("issues/update", reopened);
    expect(github.refusals()).toEqual([]);
  });

  it("refuses what GitHub refuses of an issue, 404s an issue it does not have, and 501s the fields it does not model", async () => {
    const github = await start();
    const url = `${github.url}/repos/acme/app/issues`;
    expect((await post(url, { body: "no title" })).status).toBe(422);
    const blank = await post(url, { title: "  " });
    expect(blank.status).toBe(422);
    expect(await blank.json()).toMatchObject({ message: "Validation Failed", errors: [{ resource: "Issue", field: "title", code: "missing_field" }] });
    expect((await post(url, { title: "x", assignees: ["alice"] })).status).toBe(501);
    expect((await post(url, { title: "x", assignees: [], milestone: null })).status).toBe(201);
    expect((await fetch(`${url}/1`, { method: "PATCH", body: JSON.stringify({ state: "merged" }) })).status).toBe(422);
    expect((await fetch(`${url}/7`, { method: "PATCH", body: JSON.stringify({ state: "closed" }) })).status).toBe(404);
    expect((await post(`${url}/7/labels`, { labels: ["bug"] })).status).toBe(404);
    expect((await fetch(`${url}/7/labels`)).status).toBe(404);
    expect((await post(`${url}/1/labels`, { labels: [] })).status).toBe(422);
    expect(github.refusals().map((record) => [record.operation, record.refused?.status])).toEqual([
      ["issues/create", 422],
      ["issues/create", 422],
      ["issues/create", 501],
      ["issues/update", 422],
      ["issues/add-labels", 422]
    ]);
  });

  it("acts as the App's bot for no token, an App JWT and an installation token, and as the user for a user's token", async () => {
    const github = await start({ userLogin: "maria", permissions: { maria: "maintain" } });
    const author = async (auth: string | undefined) =>
      (await octokit(github.url, auth).rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 5, body: "hi" })).data;
    const bot = { login: "agent-think[bot]", type: "Bot", id: STANDIN_BOT_USER_ID };
    expect((await author(undefined)).user).toMatchObject(bot);
    expect((await createGitHubClient({ baseUrl: github.url, token: "" }).comment("acme/app", 5, "empty token")).url).toContain("#issuecomment-");
    expect((await author("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiIxIn0.c2ln")).user).toMatchObject(bot);
    const minted = ((await (await post(`${github.url}/app/installations/1/access_tokens`, {})).json()) as { token: string }).token;
    expect((await author(minted)).user).toMatchObject(bot);
    expect((await author("ghs_x")).user).toMatchObject(bot);
    const maria = (await octokit(github.url, "ghs_x").rest.users.getByUsername({ username: "maria" })).data;
    for (const token of ["ghp_abc", "github_pat_11ABC", "gho_abc", "ghu_abc"]) {
      const comment = await author(token);
      expect(comment.user, token).toMatchObject({ login: "maria", type: "User", id: maria.id });
      expect(comment.author_association).toBe("MEMBER");
    }
    const listed = (await octokit(github.url).rest.issues.listComments({ owner: "acme", repo: "app", issue_number: 5 })).data;
    expect(listed.map((comment) => comment.user?.login)).toEqual([...Array(5).fill("agent-think[bot]"), ...Array(4).fill("maria")]);

    // author_association follows the role: OWNER for the repository's owner and an admin, MEMBER for maintain and write, CONTRIBUTOR for triage and read, NONE for none.
    const association = async (role: RoleName | "owner") => {
      const login = role === "owner" ? "acme" : `someone-${role}`;
      const standin = await startGitHubStandin({ userLogin: login, ...(role === "owner" ? {} : { permissions: { [login]: role } }) });
      try {
        return (await octokit(standin.url, "ghp_x").rest.issues.create({ owner: "acme", repo: "app", title: "t" })).data.author_association;
      } finally {
        await standin.close();
      }
    };
    expect(await Promise.all((["owner", "admin", "maintain", "write", "triage", "read", "none"] as const).map(association))).toEqual([
      "OWNER",
      "OWNER",
      "MEMBER",
      "MEMBER",
      "CONTRIBUTOR",
      "CONTRIBUTOR",
      "NONE"
    ]);
    expect(github.refusals()).toEqual([]);
  });

  it("answers GET /user for a user's token, 403 for the App's tokens and 401 for none, as GitHub does", async () => {
    const before = process.env.GITHUB_STANDIN_USER;
    process.env.GITHUB_STANDIN_USER = "hubot-maintainer";
    let github: GitHubStandin;
    try {
      github = await start();
    } finally {
      if (before === undefined) delete process.env.GITHUB_STANDIN_USER;
      else process.env.GITHUB_STANDIN_USER = before;
    }
    const me = await octokit(github.url, "github_pat_x").rest.users.getAuthenticated();
    expect(me.data).toMatchObject({ login: "hubot-maintainer", type: "User", user_view_type: "private" });
    expect(me.data.id).toBe((await octokit(github.url).rest.users.getByUsername({ username: "hubot-maintainer" })).data.id);
    expect(fixture.description().checkResponse("users/get-authenticated", me.status, me.data)).toEqual([]);
    expect(github.refusals()).toEqual([]);

    const asIntegration = await fetch(`${github.url}/user`, { headers: { authorization: "token ghs_standin1" } });
    expect(asIntegration.status).toBe(403);
    expect(await asIntegration.json()).toMatchObject({ message: "Resource not accessible by integration", status: "403" });
    expect((await fetch(`${github.url}/user`, { headers: { authorization: "Bearer eyJa.eyJb.c" } })).status).toBe(403);
    expect((await fetch(`${github.url}/user`)).status).toBe(401);
    expect(github.refusals().map((record) => record.refused?.status)).toEqual([403, 403, 401]);
  });

  it("lists a comment's reactions with who left each and when, filtered by content, a page at a time", async () => {
    const github = await start();
    const user = octokit(github.url, "ghp_x");
    const comment = (await user.rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 1, body: "@agent-think reproduce this issue" })).data;
    expect(Math.abs(Date.parse(comment.created_at) - Date.now())).toBeLessThan(5_000);
    expect(comment.updated_at).toBe(comment.created_at);
    const bot = octokit(github.url, "ghs_x");
    await bot.rest.reactions.createForIssueComment({ owner: "acme", repo: "app", comment_id: comment.id, content: "eyes" });
    await bot.rest.reactions.createForIssueComment({ owner: "acme", repo: "app", comment_id: comment.id, content: "rocket" });
    await bot.rest.reactions.createForIssueComment({ owner: "acme", repo: "app", comment_id: comment.id, content: "rocket" });
    // The user's own 👀 is another reaction; one on a review comment with the same id is not this comment's.
    await user.rest.reactions.createForIssueComment({ owner: "acme", repo: "app", comment_id: comment.id, content: "eyes" });
    await bot.rest.reactions.createForPullRequestReviewComment({ owner: "acme", repo: "app", comment_id: comment.id, content: "heart" });

    const listed = await user.rest.reactions.listForIssueComment({ owner: "acme", repo: "app", comment_id: comment.id });
    expect(listed.data.map((reaction) => [reaction.content, reaction.user?.login])).toEqual([
      ["eyes", "agent-think[bot]"],
      ["rocket", "agent-think[bot]"],
      ["eyes", "octocat"]
    ]);
    for (const reaction of listed.data) expect(Math.abs(Date.parse(reaction.created_at) - Date.now())).toBeLessThan(5_000);
    expect(fixture.description().checkResponse("reactions/list-for-issue-comment", listed.status, listed.data)).toEqual([]);
    const rockets = await user.rest.reactions.listForIssueComment({ owner: "acme", repo: "app", comment_id: comment.id, content: "rocket" });
    expect(rockets.data.map((reaction) => reaction.content)).toEqual(["rocket"]);
    const page = await fetch(`${github.url}/repos/acme/app/issues/comments/${comment.id}/reactions?per_page=2&page=2`);
    expect(((await page.json()) as Array<{ user: { login: string } }>).map((reaction) => reaction.user.login)).toEqual(["octocat"]);
    expect(page.headers.get("link")).toContain('rel="prev"');
    expect((await user.rest.reactions.listForIssueComment({ owner: "acme", repo: "app", comment_id: 424242 })).data).toEqual([]);
    expect((await fetch(`${github.url}/repos/acme/app/issues/comments/${comment.id}/reactions?content=rocket2`)).status).toBe(422);
    expect(github.refusals().map((record) => [record.operation, record.refused?.status])).toEqual([["reactions/list-for-issue-comment", 422]]);
  });
});

describe("GitHub stand-in: pull requests, review comments and files", () => {
  it("reacts on a pull request review comment: 201 new, 200 repeat, kept apart from an issue comment with the same id", async () => {
    const github = await start();
    const client = octokit(github.url, "ghs_x");
    const first = await client.rest.reactions.createForPullRequestReviewComment({ owner: "acme", repo: "app", comment_id: 77, content: "eyes" });
    expect(first.status).toBe(201);
    const repeat = await client.rest.reactions.createForPullRequestReviewComment({ owner: "acme", repo: "app", comment_id: 77, content: "eyes" });
    expect(repeat.status).toBe(200);
    expect(repeat.data.id).toBe(first.data.id);
    expect(first.data.user?.login).toBe("agent-think[bot]");
    // Issue comment 77 is another comment: its first 👀 is new.
    const onIssueComment = await client.rest.reactions.createForIssueComment({ owner: "acme", repo: "app", comment_id: 77, content: "eyes" });
    expect(onIssueComment.status).toBe(201);
    expect(onIssueComment.data.id).not.toBe(first.data.id);
    expect(fixture.description().checkResponse("reactions/create-for-pull-request-review-comment", first.status, first.data)).toEqual([]);
    expect(fixture.description().checkResponse("reactions/create-for-pull-request-review-comment", repeat.status, repeat.data)).toEqual([]);
    expect((await post(`${github.url}/repos/acme/app/pulls/comments/77/reactions`, { content: "rocket2" })).status).toBe(422);
    expect(github.records().map((record) => record.operation)).toEqual([
      "reactions/create-for-pull-request-review-comment",
      "reactions/create-for-pull-request-review-comment",
      "reactions/create-for-issue-comment",
      "reactions/create-for-pull-request-review-comment"
    ]);
    expect(github.refusals().map((record) => record.refused?.status)).toEqual([422]);
  });

  it("answers a seeded pull request (seeded over HTTP or on the handle) in GitHub's shape, and 404 for any other", async () => {
    const github = await start();
    const seeded = await post(`${github.url}/_standin/pulls`, {
      repo: "acme/app",
      number: 12,
      head: { repo: "forker/app", ref: "fix-parser", sha: "a".repeat(40) },
      base: { ref: "main" },
      user: { login: "forker", type: "User" },
      title: "Fix the parser"
    });
    expect(seeded.status).toBe(201);
    github.seedPull({ repo: "acme/app", number: 13, head: { ref: "agent-think/issue-7" }, user: { login: "agent-think[bot]" } });
    const client = octokit(github.url, "ghs_x");
    const fork = await client.rest.pulls.get({ owner: "acme", repo: "app", pull_number: 12 });
    expect(fork.data).toMatchObject({
      number: 12,
      state: "open",
      title: "Fix the parser",
      user: { login: "forker", type: "User" },
      head: { label: "forker:fix-parser", ref: "fix-parser", sha: "a".repeat(40), repo: { full_name: "forker/app", fork: true } },
      base: { ref: "main", repo: { full_name: "acme/app", fork: false } },
      html_url: `${github.url}/acme/app/pull/12`
    });
    expect(await seeded.json()).toEqual(fork.data);
    expect(fixture.description().checkResponse("pulls/get", fork.status, fork.data)).toEqual([]);
    // The webhook app reads head and base from it.
    expect(pullRequestSchema.parse(fork.data)).toMatchObject({ head: { ref: "fix-parser", repo: { full_name: "forker/app" } }, base: { ref: "main" } });
    const own = await client.rest.pulls.get({ owner: "ACME", repo: "app", pull_number: 13 });
    expect(own.data).toMatchObject({ user: { login: "agent-think[bot]", type: "Bot" }, head: { label: "acme:agent-think/issue-7", repo: { full_name: "acme/app" } } });

    const missing = await fetch(`${github.url}/repos/acme/app/pulls/14`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ message: "Not Found", documentation_url: expect.stringContaining("docs.github.com") });
    const viaInstallation = installationClient("ghs_x", github.url, silentLog);
    expect(pullRequestSchema.parse(await viaInstallation.pullRequest({ owner: "acme", name: "app" }, 12)).head.sha).toBe("a".repeat(40));
    // A missing pull request is GitHub's answer, not a refusal.
    expect(github.refusals()).toEqual([]);
  });

  it("lists pull requests by state, head (owner:branch; GitHub ignores a head without its owner) and base, newest first", async () => {
    const github = await start();
    github.seedPull({ repo: "acme/app", number: 1, head: { ref: "agent-think/issue-7" } });
    github.seedPull({ repo: "acme/app", number: 2, head: { repo: "forker/app", ref: "agent-think/issue-7" } });
    github.seedPull({ repo: "acme/app", number: 3, head: { ref: "agent-think/issue-7" }, state: "closed" });
    github.seedPull({ repo: "acme/app", number: 4, head: { ref: "release" }, base: { ref: "stable" } });
    github.seedPull({ repo: "acme/other", number: 5, head: { ref: "agent-think/issue-7" } });
    const client = octokit(github.url, "ghs_x");
    const numbers = async (query: { state?: "open" | "closed" | "all"; head?: string; base?: string }) =>
      (await client.rest.pulls.list({ owner: "acme", repo: "app", ...query })).data.map((pull) => pull.number);
    expect(await numbers({})).toEqual([4, 2, 1]);
    expect(await numbers({ state: "open", head: "acme:agent-think/issue-7" })).toEqual([1]);
    expect(await numbers({ state: "all", head: "ACME:agent-think/issue-7" })).toEqual([3, 1]);
    expect(await numbers({ head: "forker:agent-think/issue-7" })).toEqual([2]);
    expect(await numbers({ head: "agent-think/issue-7" })).toEqual([4, 2, 1]);
    expect(await numbers({ base: "stable" })).toEqual([4]);
    expect(await numbers({ state: "closed" })).toEqual([3]);
    const listed = await client.rest.pulls.list({ owner: "acme", repo: "app", state: "open", head: "acme:agent-think/issue-7" });
    expect(fixture.description().checkResponse("pulls/list", listed.status, listed.data)).toEqual([]);
    expect(listed.data[0]).not.toHaveProperty("mergeable");
    expect((await client.rest.pulls.list({ owner: "acme", repo: "nothing" })).data).toEqual([]);
    // A page at a time, with the Link header Octokit follows.
    const page = await fetch(`${github.url}/repos/acme/app/pulls?state=all&per_page=2`);
    expect(page.headers.get("link")).toContain('rel="next"');
    expect((await client.paginate(client.rest.pulls.list, { owner: "acme", repo: "app", state: "all", per_page: 2 })).map((pull) => pull.number)).toEqual([4, 3, 2, 1]);
    expect((await fetch(`${github.url}/repos/acme/app/pulls?state=merged`)).status).toBe(422);
    expect(github.refusals().map((record) => record.refused?.status)).toEqual([422]);
  });

  it("answers a seeded file raw (Accept: application/vnd.github.raw+json) or as GitHub's file object, its path with slashes sent raw or as %2F", async () => {
    const github = await start();
    const text = "# Agents\n\nRun `npm test`. ✓\n";
    expect((await post(`${github.url}/_standin/files`, { repo: "acme/app", path: "AGENTS.md", content: text })).status).toBe(204);
    github.seedFile({ repo: "acme/app", path: ".github/agent-think.yml", content: "model: default\n" });
    github.seedFile({ repo: "acme/app", path: ".github/agent-think.yml", ref: "feature", content: "model: other\n" });
    const raw = { accept: "application/vnd.github.raw+json" };

    const agents = await fetch(`${github.url}/repos/acme/app/contents/AGENTS.md`, { headers: raw });
    expect(agents.status).toBe(200);
    expect(await agents.text()).toBe(text);
    for (const path of [".github/agent-think.yml", ".github%2Fagent-think.yml"]) {
      const response = await fetch(`${github.url}/repos/acme/app/contents/${path}?ref=main`, { headers: raw });
      expect(response.status, path).toBe(200);
      expect(await response.text()).toBe("model: default\n");
    }
    // A file seeded for a ref is what that ref has; other refs keep the ref-less seed.
    expect(await (await fetch(`${github.url}/repos/acme/app/contents/.github/agent-think.yml?ref=feature`, { headers: raw })).text()).toBe("model: other\n");

    // Octokit sends `{path}` with its slashes as %2F, and reads the raw media type as text.
    const client = octokit(github.url, "ghs_x");
    const viaOctokit = await client.rest.repos.getContent({ owner: "acme", repo: "app", path: ".github/agent-think.yml", ref: "feature", mediaType: { format: "raw" } });
    expect(viaOctokit.data).toBe("model: other\n");
    const object = await client.rest.repos.getContent({ owner: "acme", repo: "app", path: "AGENTS.md", ref: "abc123" });
    expect(object.data).toMatchObject({ type: "file", encoding: "base64", name: "AGENTS.md", path: "AGENTS.md", size: Buffer.byteLength(text) });
    const file = object.data as { content: string; sha: string };
    expect(Buffer.from(file.content, "base64").toString("utf8")).toBe(text);
    expect(file.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(fixture.description().checkResponse("repos/get-content", object.status, object.data)).toEqual([]);
    const nested = await client.rest.repos.getContent({ owner: "acme", repo: "app", path: ".github/agent-think.yml" });
    expect(nested.data).toMatchObject({ name: "agent-think.yml", path: ".github/agent-think.yml" });

    // Absent is GitHub's 404, whichever way it is asked; it is an answer, not a refusal.
    for (const path of ["CLAUDE.md", ".github/copilot-instructions.md", ".github%2Fcopilot-instructions.md"]) {
      const response = await fetch(`${github.url}/repos/acme/app/contents/${path}?ref=main`, { headers: raw });
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ message: "Not Found", documentation_url: expect.stringContaining("contents"), status: "404" });
    }
    expect((await fetch(`${github.url}/repos/other/app/contents/AGENTS.md`)).status).toBe(404);
    expect(github.records().filter((record) => record.operation !== "repos/get-content")).toEqual([]);
    expect(github.refusals()).toEqual([]);
    // A directory's listing is not modelled: a 501 refusal, not a wrong 404.
    expect((await fetch(`${github.url}/repos/acme/app/contents/.github`)).status).toBe(501);
  });

  it("refuses a bad seed naming the field, records no control call, and keeps seeds when records are cleared", async () => {
    const github = await start();
    for (const [path, body, message] of [
      ["/_standin/pulls", { repo: "acme", number: 1 }, "repo must be owner/name"],
      ["/_standin/pulls", { repo: "acme/app", number: 0 }, "number must be a positive whole number"],
      ["/_standin/pulls", { repo: "acme/app", number: 1, state: "merged" }, 'state must be "open" or "closed"'],
      ["/_standin/pulls", { repo: "acme/app", number: 1, user: { type: "User" } }, "user.login must be a non-empty string"],
      ["/_standin/files", { repo: "acme/app", path: "", content: "x" }, "path must be a file's path in the repository"],
      ["/_standin/files", { repo: "acme/app", path: "a.md" }, "content must be a string (the file's text)"]
    ] as const) {
      const response = await post(`${github.url}${path}`, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(await response.json()).toEqual({ message });
    }
    expect(() => github.seedPull({ repo: "acme/app", number: 1.5 })).toThrow(/seedPull: number must be/);
    expect(() => github.seedFile({ repo: "acme/app", path: "/", content: "" })).toThrow(/seedFile: path must be/);
    github.seedPull({ repo: "acme/app", number: 1 });
    github.seedFile({ repo: "acme/app", path: "docs/a.md", content: "a" });
    await post(`${github.url}/repos/acme/app/pulls/comments/5/reactions`, { content: "eyes" });
    expect(github.records()).toHaveLength(1);
    expect((await fetch(`${github.url}/_standin/records`, { method: "DELETE" })).status).toBe(204);
    expect((await fetch(`${github.url}/repos/acme/app/pulls/1`)).status).toBe(200);
    expect((await fetch(`${github.url}/repos/acme/app/contents/docs/a.md`)).status).toBe(200);
    // Reactions were forgotten: the same one is new again.
    expect((await post(`${github.url}/repos/acme/app/pulls/comments/5/reactions`, { content: "eyes" })).status).toBe(201);
    expect(github.refusals()).toEqual([]);
  });
});

describe("GitHub stand-in: refuses what GitHub's description refuses, and records it", () => {
  it("refuses a reaction GitHub does not have (rocket2) with a 422 naming the field and the allowed values", async () => {
    const github = await start();
    const response = await post(`${github.url}/repos/acme/app/issues/comments/77/reactions`, { content: "rocket2" });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { message: string; errors: Array<{ field: string; code: string }> };
    expect(body.message).toBe(`Invalid request.\n\nFor 'properties/content', "rocket2" is not a member of ["+1","-1","laugh","confused","heart","hooray","rocket","eyes"].`);
    expect(body.errors).toEqual([expect.objectContaining({ field: "content", code: "invalid" })]);
    const refusals = (await (await fetch(`${github.url}/_standin/refusals`)).json()) as { refusals: StandinRecord[] };
    expect(refusals.refusals).toEqual([
      expect.objectContaining({ method: "POST", path: "/repos/acme/app/issues/comments/77/reactions", body: { content: "rocket2" }, operation: "reactions/create-for-issue-comment", refused: { status: 422, message: expect.stringContaining('"rocket2" is not a member of') } })
    ]);
    expect(describeRecord(refusals.refusals[0]!)).toMatch(/^POST \/repos\/acme\/app\/issues\/comments\/77\/reactions \(rocket2\) — REFUSED 422: /);
  });

  it("refuses a comment without its body (with an empty object or no body at all) as GitHub does", async () => {
    const github = await start();
    const url = `${github.url}/repos/acme/app/issues/5/comments`;
    const empty = await post(url, {});
    expect(empty.status).toBe(422);
    expect(((await empty.json()) as { message: string }).message).toBe(`Invalid request.\n\n"body" wasn't supplied.`);
    const none = await fetch(url, { method: "POST", headers: { authorization: "token anything" } });
    expect(none.status).toBe(422);
    expect((await post(url, { body: 5 })).status).toBe(422);
    expect((await post(url, "just text")).status).toBe(400);
    expect((await fetch(url, { method: "POST", body: "{not json" })).status).toBe(400);
    expect(github.refusals().map((record) => record.refused?.status)).toEqual([422, 422, 422, 400, 400]);
    expect(github.refusals()[0]!.refused!.message).toBe(`issues/create-comment: "body" wasn't supplied.`);
  });

  it("answers an unknown path, an unknown method and a mistyped path parameter 404 Not Found, as GitHub does", async () => {
    const github = await start();
    for (const [method, path] of [
      ["GET", "/nope"],
      ["DELETE", "/repos/acme/app/issues/5/comments"],
      ["POST", "/repos/acme/app/issues/comments/not-a-number/reactions"]
    ] as const) {
      const response = await fetch(`${github.url}${path}`, { method, headers: { "content-type": "application/json" }, body: method === "GET" ? null : JSON.stringify({ content: "eyes" }) });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ message: "Not Found" });
    }
    expect(github.refusals().map((record) => [record.path, record.refused?.status])).toEqual([
      ["/nope", 404],
      ["/repos/acme/app/issues/5/comments", 404],
      ["/repos/acme/app/issues/comments/not-a-number/reactions", 404]
    ]);
    expect(github.refusals()[2]!.refused!.message).toContain(`For 'comment_id', "not-a-number" is not an integer.`);
  });

  it("refuses a query GitHub's description does not allow, and a valid call it does not model (501)", async () => {
    const github = await start();
    const list = await fetch(`${github.url}/repos/acme/app/issues/5/comments?per_page=lots&since=yesterday`);
    expect(list.status).toBe(422);
    const { message } = (await list.json()) as { message: string };
    expect(message).toContain(`For 'per_page', "lots" is not an integer.`);
    expect(message).toContain(`For 'since', "yesterday" is not a valid date-time.`);
    const labels = await fetch(`${github.url}/repos/acme/app/labels`);
    expect(labels.status).toBe(501);
    expect(github.refusals().map((record) => [record.operation, record.refused?.status])).toEqual([
      ["issues/list-comments", 422],
      ["issues/list-labels-for-repo", 501]
    ]);
  });

  it("records nothing for reading its own records, and DELETE clears records and refusals", async () => {
    const github = await start();
    await fetch(`${github.url}/nope`);
    await fetch(`${github.url}/_standin/records`);
    await fetch(`${github.url}/_standin/refusals`);
    expect(github.records().map((record) => record.path)).toEqual(["/nope"]);
    expect((await fetch(`${github.url}/_standin/records`, { method: "DELETE" })).status).toBe(204);
    expect(github.records()).toEqual([]);
    expect(github.refusals()).toEqual([]);
  });
});

describe("GitHub stand-in: takes every request production sends", () => {
  it("the agent Worker's client: a reaction of each kind, a comment, and the marker search", async () => {
    const github = await start();
    for (const token of ["", "ghs_run_token"]) {
      const client = createGitHubClient({ baseUrl: github.url, token });
      for (const content of Object.keys(OUR_REACTIONS) as ReactionContent[]) await client.react("acme/widgets", 9301, content);
      const marker = `agent-think:sub-${token || "local"}:closing`;
      const posted = await client.comment("acme/widgets", 3, `<!-- ${marker} -->\n### ❔ Not reproduced`);
      expect(posted.url).toContain("/acme/widgets/issues/3#issuecomment-");
      expect(await client.findComment("acme/widgets", 3, marker, Date.now() - 60_000)).toEqual(posted);
      expect(await client.findComment("acme/widgets", 3, "agent-think:sub-other:closing", Date.now() - 60_000)).toBeNull();
    }
    expect(github.refusals()).toEqual([]);
    expect(new Set(github.records().map((record) => record.operation))).toEqual(
      new Set(["reactions/create-for-issue-comment", "issues/create-comment", "issues/list-comments"])
    );
  });

  it("the webhook app's clients: token mint (as the App), 👀 and a comment (as the installation), a permission check", async () => {
    const github = await start();
    const { privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" }
    });
    const repo = { owner: "acme", name: "widgets" };
    const minted = await mintRepoToken({ appId: "1", privateKey, apiUrl: github.url }, repo, silentLog);
    expect(minted.token).toMatch(/^ghs_standin/);
    const installation = installationClient(minted.token, github.url, silentLog);
    await installation.react(repo, 71001, "eyes");
    await installation.react(repo, 71001, "confused");
    await installation.comment(repo, 11, "<!-- agent-think-ingress:not-started comment=71001 -->\n❌ could not start");
    await installation.reactToReviewComment(repo, 71001, "eyes");
    github.seedPull({ repo: "acme/widgets", number: 12, head: { repo: "forker/widgets", ref: "fix-parser" } });
    await installation.pullRequest(repo, 12);
    await octokit(github.url, minted.token).rest.repos.getCollaboratorPermissionLevel({ owner: "acme", repo: "widgets", username: "alice" });
    expect(github.refusals()).toEqual([]);
    expect(github.records().map((record) => record.operation)).toEqual([
      "apps/get-repo-installation",
      "apps/create-installation-access-token",
      "reactions/create-for-issue-comment",
      "reactions/create-for-issue-comment",
      "issues/create-comment",
      "reactions/create-for-pull-request-review-comment",
      "pulls/get",
      "repos/get-collaborator-permission-level"
    ]);
    // The webhook app's real mint, permissions included, is a request GitHub's description accepts.
    expect(github.records()[1]!.body).toEqual({ repositories: ["widgets"], permissions: TOKEN_PERMISSIONS });
    expect(github.refusals()).toEqual([]);
  });
});

describe("GitHub stand-in: what GitHub does beyond its description", () => {
  it("refuses a comment over 65,536 characters, and a blank one, with GitHub's 422", async () => {
    const github = await start();
    const url = `${github.url}/repos/acme/app/issues/5/comments`;
    expect((await post(url, { body: "x".repeat(65_536) })).status).toBe(201);
    const tooLong = await post(url, { body: "x".repeat(65_537) });
    expect(tooLong.status).toBe(422);
    expect(await tooLong.json()).toMatchObject({
      message: "Validation Failed",
      errors: [{ resource: "IssueComment", field: "body", message: "body is too long (maximum is 65536 characters)" }]
    });
    expect((await post(url, { body: "  \n" })).status).toBe(422);
    expect(github.refusals().map((record) => record.refused)).toEqual([
      { status: 422, message: "body is too long (maximum is 65536 characters)" },
      { status: 422, message: "body cannot be blank" }
    ]);
    // The agent Worker's client reads it as final.
    const error = await createGitHubClient({ baseUrl: github.url, token: "" }).comment("acme/app", 5, "y".repeat(70_000)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitHubCallError);
    expect((error as GitHubCallError).kind).toBe("rejected");
  });

  it("lists comments in ascending id order, a page at a time, with GitHub's Link header and since", async () => {
    const github = await start();
    const client = octokit(github.url, "ghs_x");
    const ids: number[] = [];
    for (let n = 1; n <= 5; n++) ids.push((await client.rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 9, body: `comment ${n}` })).data.id);
    const first = await fetch(`${github.url}/repos/acme/app/issues/9/comments?per_page=2`);
    expect(((await first.json()) as Array<{ id: number }>).map((comment) => comment.id)).toEqual(ids.slice(0, 2));
    expect(first.headers.get("link")).toBe(
      `<${github.url}/repos/acme/app/issues/9/comments?per_page=2&page=2>; rel="next", <${github.url}/repos/acme/app/issues/9/comments?per_page=2&page=3>; rel="last"`
    );
    const last = await fetch(`${github.url}/repos/acme/app/issues/9/comments?per_page=2&page=3`);
    expect(((await last.json()) as Array<{ id: number }>).map((comment) => comment.id)).toEqual(ids.slice(4));
    expect(last.headers.get("link")).toBe(
      `<${github.url}/repos/acme/app/issues/9/comments?per_page=2&page=2>; rel="prev", <${github.url}/repos/acme/app/issues/9/comments?per_page=2&page=1>; rel="first"`
    );
    // Octokit follows the Link header through every page.
    const all = await client.paginate(client.rest.issues.listComments, { owner: "acme", repo: "app", issue_number: 9, per_page: 2 });
    expect(all.map((comment) => comment.id)).toEqual(ids);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await client.rest.issues.listComments({ owner: "acme", repo: "app", issue_number: 9, since: future })).data).toEqual([]);
    expect(github.refusals()).toEqual([]);
  });

  it("answers what a run reads before its model: the issue, a pull request's number as its conversation, and the one page of comments that holds the last 10", async () => {
    const github = await start();
    const client = octokit(github.url, "ghp_maintainer");
    await client.rest.issues.create({ owner: "acme", repo: "app", title: "It crashes", body: "Steps.", labels: ["bug"] });
    for (let n = 1; n <= 25; n++) await client.rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 1, body: `comment ${n}` });
    github.seedPull({ repo: "acme/app", number: 2, title: "Fix the crash", body: "Fixes #1." });
    await client.rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 2, body: "Looks good." });
    // The agent Worker's own reader, as prepare.ts uses it, recording what it asks.
    const asked: string[] = [];
    const reader = createRepoReader({
      baseUrl: github.url,
      token: "ghs_x",
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        asked.push(`${url.pathname}${url.search}`);
        return fetch(input, init);
      }) as typeof fetch
    });
    const issue = await reader.issue("acme/app", 1);
    expect(issue).toEqual({ number: 1, title: "It crashes", author: "octocat", state: "open", labels: ["bug"], body: "Steps.", comments: 25 });
    const latest = await reader.latestComments("acme/app", 1, issue.comments, 10);
    expect(latest.map((comment) => comment.body)).toEqual(Array.from({ length: 10 }, (_, i) => `comment ${i + 16}`));
    expect(asked).toEqual(["/repos/acme/app/issues/1", "/repos/acme/app/issues/1/comments?per_page=13&page=2"]);
    // GitHub's pagination header on that page: it is the last, after the first.
    const page = await client.rest.issues.listComments({ owner: "acme", repo: "app", issue_number: 1, per_page: 13, page: 2 });
    expect(page.headers.link).toBe(
      `<${github.url}/repos/acme/app/issues/1/comments?per_page=13&page=1>; rel="prev", <${github.url}/repos/acme/app/issues/1/comments?per_page=13&page=1>; rel="first"`
    );
    // A pull request's number: the issues API answers its conversation, as GitHub does.
    const pull = await client.rest.issues.get({ owner: "acme", repo: "app", issue_number: 2 });
    expect(pull.data).toMatchObject({ number: 2, title: "Fix the crash", body: "Fixes #1.", comments: 1, html_url: `${github.url}/acme/app/pull/2`, pull_request: { url: `${github.url}/repos/acme/app/pulls/2` } });
    expect(await reader.issue("acme/app", 2)).toMatchObject({ number: 2, title: "Fix the crash", comments: 1 });
    expect((await reader.latestComments("acme/app", 2, 1, 10)).map((comment) => comment.body)).toEqual(["Looks good."]);
    const check = (operation: string, response: { status: number; data: unknown }) =>
      expect(fixture.description().checkResponse(operation, response.status, response.data), operation).toEqual([]);
    check("issues/get", pull);
    check("issues/get", await client.rest.issues.get({ owner: "acme", repo: "app", issue_number: 1 }));
    check("issues/list-comments", page);
    expect(github.refusals()).toEqual([]);
  });

  it("answers the next matching calls with a secondary rate limit (403, Retry-After) when asked, then serves again", async () => {
    const github = await start();
    github.rateLimitNext({ retryAfterSeconds: 7, path: "/repos/acme/app/issues/comments/1/reactions" });
    const limited = await post(`${github.url}/repos/acme/app/issues/comments/1/reactions`, { content: "rocket" });
    expect(limited.status).toBe(403);
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(((await limited.json()) as { message: string }).message).toMatch(/secondary rate limit/);
    expect((await post(`${github.url}/repos/acme/app/issues/comments/1/reactions`, { content: "rocket" })).status).toBe(201);

    // Over HTTP too; the agent Worker's client reads it as worth retrying.
    expect((await post(`${github.url}/_standin/faults`, { kind: "secondary_rate_limit", times: 1 })).status).toBe(204);
    const error = await createGitHubClient({ baseUrl: github.url, token: "" }).react("acme/app", 2, "eyes").catch((caught: unknown) => caught);
    expect((error as GitHubCallError).kind).toBe("retryable");
    expect(github.records().map((record) => record.fault)).toEqual(["secondary_rate_limit", undefined, "secondary_rate_limit"]);
    expect(github.refusals()).toEqual([]);
  });

  it("answers 401 Bad credentials for an expired token: one marked, or a minted one past its lifetime", async () => {
    const github = await start({ tokenLifetimeMs: 50 });
    const mint = async () => ((await (await post(`${github.url}/app/installations/1/access_tokens`, {})).json()) as { token: string }).token;
    const shortLived = await mint();
    const client = (token: string) => createGitHubClient({ baseUrl: github.url, token });
    await client(shortLived).react("acme/app", 3, "eyes");
    await new Promise((resolve) => setTimeout(resolve, 80));
    const error = await client(shortLived).react("acme/app", 3, "rocket").catch((caught: unknown) => caught);
    expect((error as GitHubCallError).kind).toBe("unauthorized");
    expect((error as GitHubCallError).message).toBe("GitHub react rocket: 401 Bad credentials");

    github.expireTokens("ghs_some_other_token");
    expect((await post(`${github.url}/repos/acme/app/issues/comments/3/reactions`, { content: "eyes" }, { authorization: "token ghs_some_other_token" })).status).toBe(401);
    // Any token it did not mint and nobody expired is taken, and so is none.
    await client("ghs_never_minted").react("acme/app", 3, "heart");
    await client("").react("acme/app", 3, "laugh");
    expect(github.records().filter((record) => record.fault === "expired_token")).toHaveLength(2);
    expect(github.refusals()).toEqual([]);
  });
});

describe("validateGitHubRequest: GitHub's description for any fake in Node", () => {
  it("names the operation of a request GitHub takes, with its path parameters", async () => {
    expect(await validateGitHubRequest("POST", "/repos/acme/app/issues/comments/77/reactions", { content: "rocket" })).toEqual({
      ok: true,
      operation: {
        operationId: "reactions/create-for-issue-comment",
        method: "POST",
        template: "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
        documentationUrl: expect.stringContaining("docs.github.com")
      },
      params: { owner: "acme", repo: "app", comment_id: "77" }
    });
    expect(await validateGitHubRequest("GET", "https://api.github.com/repos/acme/app/issues/3/comments?since=2026-01-01T00:00:00.000Z&per_page=100")).toMatchObject({
      ok: true,
      operation: { operationId: "issues/list-comments" }
    });
  });

  it("says what GitHub would refuse, with its status and message", async () => {
    expect(await validateGitHubRequest("POST", "/repos/acme/app/issues/comments/77/reactions", { content: "rocket2" })).toMatchObject({
      ok: false,
      status: 422,
      problems: [{ in: "body", field: "content", code: "enum" }]
    });
    expect(await validateGitHubRequest("POST", "/repos/acme/app/issues/5/comments", {})).toMatchObject({
      ok: false,
      status: 422,
      message: `Invalid request.\n\n"body" wasn't supplied.`
    });
    expect(await validateGitHubRequest("PUT", "/repos/acme/app/issues/5/comments", { body: "x" })).toMatchObject({ ok: false, status: 404, message: "Not Found" });
    expect(await validateGitHubRequest("GET", "/repos/acme/app/issues/5/comments?perpage=3")).toMatchObject({
      ok: false,
      status: 422,
      message: `Invalid request.\n\n"perpage" is not a permitted key.`
    });
  });

  it("is served by the stand-in at POST /_standin/validate, for fakes that cannot run it (workerd forbids Ajv's code generation)", async () => {
    const github = await start();
    const verdict = await post(`${github.url}/_standin/validate`, { method: "POST", url: "/repos/acme/app/issues/comments/1/reactions", body: { content: "rocket2" } });
    expect(await verdict.json()).toMatchObject({ ok: false, status: 422 });
    expect(github.records()).toEqual([]);
  });

  it("routes a literal segment before a parameter, by method among same-shaped templates, and a parameter inside a segment", () => {
    const routes = new RouteIndex([
      { template: "/repos/{owner}/{repo}/issues/{issue_number}", method: "get", operation: "issues/get" },
      { template: "/repos/{owner}/{repo}/issues/comments", method: "get", operation: "issues/list-comments-for-repo" },
      { template: "/orgs/{org}/attestations/{subject_digest}", method: "get", operation: "by-digest" },
      { template: "/orgs/{org}/attestations/{attestation_id}", method: "delete", operation: "delete-by-id" },
      { template: "/repos/{owner}/{repo}/compare/{base}...{head}", method: "get", operation: "compare" }
    ]);
    expect(routes.match("GET", "/repos/a/b/issues/comments")?.operation).toBe("issues/list-comments-for-repo");
    expect(routes.match("GET", "/repos/a/b/issues/12")?.params).toEqual({ owner: "a", repo: "b", issue_number: "12" });
    expect(routes.match("DELETE", "/orgs/o/attestations/9")?.operation).toBe("delete-by-id");
    expect(routes.match("GET", "/orgs/o/attestations/9")?.operation).toBe("by-digest");
    expect(routes.match("GET", "/repos/a/b/compare/main...feature%2Fx")?.params).toEqual({ owner: "a", repo: "b", base: "main", head: "feature/x" });
    expect(routes.match("POST", "/repos/a/b/issues/comments")).toBeNull();
    expect(routes.match("GET", "/repos/a/b/issues/12/")).toBeNull();
  });

  it("lets a trailing {path} take the rest of the path (raw slashes or %2F), and no other parameter", () => {
    const routes = new RouteIndex([
      { template: "/repos/{owner}/{repo}/contents/{path}", method: "get", operation: "repos/get-content" },
      { template: "/repos/{owner}/{repo}/git/ref/{ref}", method: "get", operation: "git/get-ref" },
      { template: "/repos/{owner}/{repo}/issues/{issue_number}", method: "get", operation: "issues/get" }
    ]);
    expect(routes.match("GET", "/repos/a/b/contents/README.md")).toEqual({ template: "/repos/{owner}/{repo}/contents/{path}", method: "get", operation: "repos/get-content", params: { owner: "a", repo: "b", path: "README.md" } });
    expect(routes.match("GET", "/repos/a/b/contents/.github%2Fagent-think.yml")?.params).toEqual({ owner: "a", repo: "b", path: ".github/agent-think.yml" });
    expect(routes.match("GET", "/repos/a/b/contents/.github/agent-think.yml")).toEqual({
      template: "/repos/{owner}/{repo}/contents/{path}",
      method: "get",
      operation: "repos/get-content",
      params: { owner: "a", repo: "b", path: ".github/agent-think.yml" },
      canonicalPath: "/repos/a/b/contents/.github%2Fagent-think.yml"
    });
    expect(routes.match("GET", "/repos/a/b/contents/docs/a%20b/c.md")?.params.path).toBe("docs/a b/c.md");
    expect(routes.match("PUT", "/repos/a/b/contents/docs/a.md")).toBeNull();
    expect(routes.match("GET", "/repos/a/b/contents/docs//a.md")).toBeNull();
    expect(routes.match("GET", "/repos/a/b/contents/docs/")).toBeNull();
    expect(routes.match("GET", "/repos/a/b/git/ref/heads/main")).toBeNull();
    expect(routes.match("GET", "/repos/a/b/issues/1/2")).toBeNull();
  });

  it("validates a contents path with slashes as GitHub's description takes it", async () => {
    for (const url of ["/repos/acme/app/contents/.github/agent-think.yml?ref=main", "/repos/acme/app/contents/.github%2Fagent-think.yml?ref=main"]) {
      expect(await validateGitHubRequest("GET", url)).toMatchObject({ ok: true, operation: { operationId: "repos/get-content" }, params: { owner: "acme", repo: "app", path: ".github/agent-think.yml" } });
    }
    expect(await validateGitHubRequest("GET", "/repos/acme/app/contents/a/b?reff=main")).toMatchObject({ ok: false, status: 422 });
  });

  it("loads a GitHub Enterprise Server description, served under /api/v3", async () => {
    const generated = join(dirname(createRequire(import.meta.url).resolve("@octokit/openapi/package.json")), "generated");
    const ghes = readdirSync(generated)
      .filter((file) => /^ghes-[\d.]+\.json$/.test(file))
      .map((file) => file.slice(0, -".json".length))
      .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
      .at(-1) as GitHubDescriptionName;
    const enterprise = await validateGitHubRequest("POST", "/api/v3/repos/acme/app/issues/5/comments", { body: "hi" }, { description: ghes });
    expect(enterprise).toMatchObject({ ok: true, operation: { operationId: "issues/create-comment" } });
    expect(await validateGitHubRequest("POST", "/repos/acme/app/issues/5/comments", { body: "hi" }, { description: ghes })).toMatchObject({ ok: false, status: 404 });
    expect(await validateGitHubRequest("GET", "/nope", undefined, { description: "ghes-0.0" as GitHubDescriptionName }).catch((error: Error) => error.message)).toMatch(
      /@octokit\/openapi has no description "ghes-0.0" \(it has: .*api\.github\.com/
    );
  }, 30_000);
});
