/**
 * The GitHub stand-in creates and deletes repositories as GitHub does for
 * the eval harness's replays: created for the user or in an organization
 * (private or public, empty), GitHub's 422 for a name the account has, a
 * 404 for everything about a deleted repository until it is created again
 * (then without what the old one had), Actions turned off, and where a
 * repository's issue numbers start. Driven over HTTP by Octokit; every
 * answer is checked against GitHub's response schemas.
 */
import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { standinFixture } from "./standin-fixture";

const { description, start } = standinFixture();

const USER_TOKEN = "ghp_standinRepoTest00000000000000000000000";
const octokit = (baseUrl: string, auth = USER_TOKEN) => new Octokit({ baseUrl, auth, log: { debug() {}, info() {}, warn() {}, error() {} } });

const expectSchema = (operation: string, response: { status: number; data: unknown }) =>
  expect(description().checkResponse(operation, response.status, response.data), operation).toEqual([]);

const status = (promise: Promise<unknown>) => promise.then(() => 200, (error: { status?: number }) => error.status);

describe("GitHub stand-in: creating and deleting a repository", () => {
  it("creates one for the user and in an organization, private or public, as GitHub's full-repository", async () => {
    const github = await start({ userLogin: "mona" });
    const mine = await octokit(github.url).rest.repos.createForAuthenticatedUser({ name: "agent-think-eval-a", private: true, description: "agent-think eval replay of case a" });
    expect(mine.status).toBe(201);
    expect(mine.data).toMatchObject({ full_name: "mona/agent-think-eval-a", private: true, visibility: "private", default_branch: "main", description: "agent-think eval replay of case a" });
    expect(mine.data.clone_url).toBe(`${github.url}/mona/agent-think-eval-a.git`);
    expectSchema("repos/create-for-authenticated-user", mine);
    const theirs = await octokit(github.url).rest.repos.createInOrg({ org: "acme", name: "agent-think-eval-b" });
    expect(theirs.data).toMatchObject({ full_name: "acme/agent-think-eval-b", private: false, owner: { login: "acme" } });
    expectSchema("repos/create-in-org", theirs);
    expect((await octokit(github.url).rest.repos.get({ owner: "acme", repo: "agent-think-eval-b" })).data.description).toBeNull();
    expect(github.refusals()).toEqual([]);
  });

  it("answers GitHub's 422 for a name the account has, an answer and not a refusal; the App cannot create a user's repository", async () => {
    const github = await start();
    await octokit(github.url).rest.repos.createInOrg({ org: "acme", name: "app" });
    const again = await octokit(github.url)
      .rest.repos.createInOrg({ org: "Acme", name: "App" })
      .catch((error: { status: number; response: { data: unknown } }) => error);
    expect(again).toMatchObject({
      status: 422,
      response: { data: { message: "Repository creation failed.", errors: [{ resource: "Repository", code: "custom", field: "name", message: "name already exists on this account" }] } }
    });
    // A seeded repository exists too.
    github.seedRepo({ repo: "octocat/seeded" });
    expect(await status(octokit(github.url).rest.repos.createForAuthenticatedUser({ name: "seeded" }))).toBe(422);
    expect(github.refusals()).toEqual([]);
    expect(await status(octokit(github.url, "ghs_installation").rest.repos.createForAuthenticatedUser({ name: "x" }))).toBe(403);
    // What the stand-in does not model is its 501, not a repository without it.
    expect(await status(octokit(github.url).rest.repos.createInOrg({ org: "acme", name: "y", auto_init: true }))).toBe(501);
    expect(github.refusals().map((record) => [record.operation, record.refused?.status])).toEqual([
      ["repos/create-for-authenticated-user", 403],
      ["repos/create-in-org", 501]
    ]);
  });

  it("answers 404 to everything about a deleted repository, and a repository created again starts empty", async () => {
    const github = await start();
    const client = octokit(github.url);
    await client.rest.repos.createInOrg({ org: "acme", name: "replay", private: true });
    const issue = await client.rest.issues.create({ owner: "acme", repo: "replay", title: "It wobbles", labels: ["bug"] });
    await client.rest.issues.createComment({ owner: "acme", repo: "replay", issue_number: issue.data.number, body: "Same here." });
    const gone = await client.rest.repos.delete({ owner: "acme", repo: "replay" });
    expect(gone.status).toBe(204);
    for (const call of [
      () => client.rest.repos.get({ owner: "acme", repo: "replay" }),
      () => client.rest.issues.get({ owner: "acme", repo: "replay", issue_number: issue.data.number }),
      () => client.rest.issues.create({ owner: "acme", repo: "replay", title: "again" }),
      () => client.rest.repos.delete({ owner: "acme", repo: "Replay" })
    ]) {
      expect(await status(call())).toBe(404);
    }
    const created = await client.rest.repos.createInOrg({ org: "acme", name: "replay" });
    expect(created.data).toMatchObject({ private: false, description: null });
    expect(await status(client.rest.issues.get({ owner: "acme", repo: "replay", issue_number: issue.data.number }))).toBe(404);
    expect((await client.rest.issues.listComments({ owner: "acme", repo: "replay", issue_number: issue.data.number })).data).toEqual([]);
    // Numbering starts again, as on GitHub.
    expect((await client.rest.issues.create({ owner: "acme", repo: "replay", title: "new" })).data.number).toBe(1);
    expect(github.refusals()).toEqual([]);
  });

  it("turns a repository's Actions off", async () => {
    const github = await start();
    const client = octokit(github.url);
    await client.rest.repos.createInOrg({ org: "acme", name: "replay" });
    const off = await client.rest.actions.setGithubActionsPermissionsRepository({ owner: "acme", repo: "replay", enabled: false });
    expect(off.status).toBe(204);
    expect(github.records().at(-1)).toMatchObject({ operation: "actions/set-github-actions-permissions-repository", body: { enabled: false } });
    // `enabled` is required: GitHub's 422.
    expect(await status(client.request("PUT /repos/acme/replay/actions/permissions", {}))).toBe(422);
    expect(github.refusals().map((record) => record.refused?.status)).toEqual([422]);
  });

  it("numbers a repository's next issues from where POST /_standin/issue-numbers says, past every one it has", async () => {
    const github = await start();
    const seed = (body: unknown) => fetch(`${github.url}/_standin/issue-numbers`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await seed({ repo: "acme/widgets", from: 5000 })).status).toBe(204);
    const client = octokit(github.url);
    expect((await client.rest.issues.create({ owner: "acme", repo: "widgets", title: "a" })).data.number).toBe(5000);
    expect((await client.rest.issues.create({ owner: "acme", repo: "widgets", title: "b" })).data.number).toBe(5001);
    expect((await client.rest.issues.create({ owner: "acme", repo: "gadgets", title: "c" })).data.number).toBe(1);
    expect((await seed({ repo: "acme/widgets", from: 5000 })).status).toBe(204);
    expect((await client.rest.issues.create({ owner: "acme", repo: "widgets", title: "d" })).data.number).toBe(5002);
    for (const bad of [{ repo: "widgets", from: 1 }, { repo: "acme/widgets", from: 0 }, { repo: "acme/widgets", from: 1.5 }]) {
      expect((await seed(bad)).status, JSON.stringify(bad)).toBe(422);
    }
  });
});
