/**
 * The local GitHub stand-in answers the calls agent-think makes the way
 * GitHub shapes them, and records each one for `npm start`'s log.
 */
import { afterEach, describe, expect, it } from "vitest";
import { describeRecord, startGitHubStandin, type GitHubStandin } from "../../scripts/lib/github-standin";

let standin: GitHubStandin | undefined;
afterEach(async () => {
  await standin?.close();
  standin = undefined;
});

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { authorization: "token anything" }, body: JSON.stringify(body) });

describe("GitHub stand-in", () => {
  it("records reactions, answering 201 for a new one and 200 for a repeat", async () => {
    standin = await startGitHubStandin();
    const url = `${standin.url}/repos/acme/app/issues/comments/77/reactions`;
    expect((await post(url, { content: "rocket" })).status).toBe(201);
    expect((await post(url, { content: "rocket" })).status).toBe(200);
    expect((await post(url, { content: "eyes" })).status).toBe(201);
    const records = (await (await fetch(`${standin.url}/_standin/records`)).json()) as { records: Array<{ body: unknown }> };
    expect(records.records.map((record) => record.body)).toEqual([{ content: "rocket" }, { content: "rocket" }, { content: "eyes" }]);
  });

  it("keeps posted comments per issue and lists them back", async () => {
    standin = await startGitHubStandin();
    const url = `${standin.url}/repos/Acme/App/issues/5/comments`;
    const created = await post(url, { body: "<!-- marker -->\nReproduced." });
    expect(created.status).toBe(201);
    const comment = (await created.json()) as { id: number; html_url: string; user: { login: string } };
    expect(comment.html_url).toBe(`${standin.url}/Acme/App/issues/5#issuecomment-${comment.id}`);
    expect(comment.user.login).toBe("agent-think[bot]");
    const listed = (await (await fetch(`${standin.url}/repos/acme/app/issues/5/comments`)).json()) as Array<{ body: string }>;
    expect(listed.map((entry) => entry.body)).toEqual(["<!-- marker -->\nReproduced."]);
    expect(describeRecord(standin.records()[0]!)).toBe("POST /repos/Acme/App/issues/5/comments: Reproduced.");
  });

  it("mints installation tokens and names the installation", async () => {
    standin = await startGitHubStandin();
    const installation = await fetch(`${standin.url}/repos/acme/app/installation`);
    expect(await installation.json()).toMatchObject({ id: 1 });
    const token = (await (await post(`${standin.url}/app/installations/1/access_tokens`, { repositories: ["app"] })).json()) as {
      token: string;
      expires_at: string;
    };
    expect(token.token).toMatch(/^ghs_standin\d+$/);
    expect(Date.parse(token.expires_at)).toBeGreaterThan(Date.now());
  });

  it("refuses what GitHub would refuse, and records nothing for reading its records", async () => {
    standin = await startGitHubStandin();
    expect((await post(`${standin.url}/repos/acme/app/issues/5/comments`, { body: "" })).status).toBe(422);
    expect((await fetch(`${standin.url}/repos/acme/app/issues/5/comments`, { method: "POST", body: "{not json" })).status).toBe(400);
    expect((await fetch(`${standin.url}/nope`)).status).toBe(404);
    await fetch(`${standin.url}/_standin/records`);
    expect(standin.records().map((record) => record.path)).toEqual(["/repos/acme/app/issues/5/comments", "/nope"]);
  });
});
