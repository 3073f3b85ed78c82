/**
 * The GitHub stand-in plays the App's own identity the way GitHub does:
 * `GET /app` names the App and its slug (the stand-in's `botLogin` without
 * `[bot]`), `GET /users/<slug>[bot]` the bot user, a Bot with one fixed id
 * that its comments carry too. Both answers fit GitHub's response schemas,
 * and the webhook app's real lookup (ingress/src/github/app-identity.ts)
 * runs against them with nothing refused.
 */
import { generateKeyPairSync } from "node:crypto";
import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { mintRepoToken } from "../../ingress/src/github/app-client";
import { appIdentity, forgetAppIdentities } from "../../ingress/src/github/app-identity";
import { createLogger } from "../../ingress/src/log";
import { STANDIN_BOT_USER_ID } from "../../scripts/lib/github-standin";
import { standinFixture } from "./standin-fixture";

const { description, start } = standinFixture(forgetAppIdentities);

const octokit = (baseUrl: string, auth: string) => new Octokit({ baseUrl, auth, log: { debug() {}, info() {}, warn() {}, error() {} } });

describe("GitHub stand-in: the App's identity", () => {
  it("answers GET /app and GET /users/<slug>[bot] in the shapes of GitHub's response schemas, the bot with the id its comments carry", async () => {
    const github = await start();
    // GitHub takes GET /app with the App's JWT only; the stand-in checks no credentials.
    const app = await octokit(github.url, "eyJ.standin.jwt").rest.apps.getAuthenticated();
    expect(app.status).toBe(200);
    expect(app.data).toMatchObject({ id: 1, slug: "agent-think" });
    expect(description().checkResponse("apps/get-authenticated", app.status, app.data)).toEqual([]);

    const client = octokit(github.url, "ghs_x");
    const bot = await client.rest.users.getByUsername({ username: `${app.data!.slug}[bot]` });
    expect(bot.data).toMatchObject({ login: "agent-think[bot]", id: STANDIN_BOT_USER_ID, type: "Bot" });
    expect(description().checkResponse("users/get-by-username", bot.status, bot.data)).toEqual([]);
    const comment = await client.rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 5, body: "hello" });
    expect(comment.data.user).toMatchObject({ login: "agent-think[bot]", id: STANDIN_BOT_USER_ID, type: "Bot" });

    // Anyone else is a user: another App's bot a Bot, a person a User, each with its own id.
    const person = await client.rest.users.getByUsername({ username: "octocat" });
    const otherBot = await client.rest.users.getByUsername({ username: "dependabot[bot]" });
    expect(person.data).toMatchObject({ login: "octocat", type: "User" });
    expect(otherBot.data).toMatchObject({ login: "dependabot[bot]", type: "Bot" });
    expect(new Set([person.data.id, otherBot.data.id, STANDIN_BOT_USER_ID]).size).toBe(3);
    expect(description().checkResponse("users/get-by-username", person.status, person.data)).toEqual([]);

    expect(github.records().map((record) => `${record.method} ${record.path} ${record.operation}`)).toEqual([
      "GET /app apps/get-authenticated",
      "GET /users/agent-think%5Bbot%5D users/get-by-username",
      "POST /repos/acme/app/issues/5/comments issues/create-comment",
      "GET /users/octocat users/get-by-username",
      "GET /users/dependabot%5Bbot%5D users/get-by-username"
    ]);
    expect(github.refusals()).toEqual([]);
  });

  it("names the slug after its botLogin option", async () => {
    const github = await start({ botLogin: "agent-think-staging[bot]" });
    const app = await octokit(github.url, "eyJ.standin.jwt").rest.apps.getAuthenticated();
    expect(app.data?.slug).toBe("agent-think-staging");
    const bot = await octokit(github.url, "ghs_x").rest.users.getByUsername({ username: "agent-think-staging[bot]" });
    expect(bot.data).toMatchObject({ type: "Bot", id: STANDIN_BOT_USER_ID });
    expect(github.refusals()).toEqual([]);
  });

  it("takes the webhook app's own lookup: token mint, GET /app as the App, GET /users with the token", async () => {
    const github = await start();
    const { privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" }
    });
    const log = createLogger({}, [], () => {});
    const credentials = { appId: "1", privateKey, apiUrl: github.url };
    const minted = await mintRepoToken(credentials, { owner: "acme", name: "widgets" }, log);
    const stored = new Map<string, string>();
    const identity = await appIdentity(minted.token, {
      credentials,
      store: { get: async (key) => stored.get(key) ?? null, put: async (key, value) => void stored.set(key, value) },
      log,
      now: () => Date.now(),
      configuredLogin: ""
    });
    expect(identity).toEqual({ login: "agent-think[bot]", id: STANDIN_BOT_USER_ID });
    expect(github.records().map((record) => record.operation)).toEqual([
      "apps/get-repo-installation",
      "apps/create-installation-access-token",
      "apps/get-authenticated",
      "users/get-by-username"
    ]);
    expect(github.refusals()).toEqual([]);
  });
});
