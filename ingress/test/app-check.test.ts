/**
 * The broker's App check (`AgentThinkTokenBroker.appStatus`): `GET /app` as
 * the App, against GitHub's recorded answers (the App; 401 for a JWT that
 * does not verify; 404; 500), the handle mentions use, what is kept for a
 * minute, and never a token, the key or GitHub's own words in the answer or
 * the log. Over the service binding as the agent Worker calls it, and in
 * process where a case needs another environment.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HttpResponse } from "msw";
import { beforeEach, describe, expect, it } from "vitest";
import { appStatusSchema } from "../../src/shared/app-status";
import { APP_CHECK_TTL_MS, forgetAppCheck } from "../src/app-check";
import { toPem } from "../src/github/private-key";
import { AgentThinkTokenBroker } from "../src/index";
import { appAnswer, APP_SLUG, githubServer, status, verifyAppJwt } from "./support/github";
import { captureConsole, logEvents } from "./support/ingress";
import { generatedPkcs8 } from "./support/keys";

const { calls, use: github } = githubServer();
const GITHUB_DETAIL = "detail-from-github-that-must-not-be-shown";

const inProcess = (overrides: Partial<Env> = {}) => new AgentThinkTokenBroker(createExecutionContext(), { ...env, ...overrides });

/** The answer, parsed by the schema the agent Worker parses it with, and the log lines of the call. */
async function check(broker: { appStatus(): Promise<unknown> } = inProcess()) {
  const { result, lines } = await captureConsole(async () => await broker.appStatus());
  const text = JSON.stringify(result);
  expect(text).not.toContain(env.GITHUB_APP_PRIVATE_KEY.split("\n")[1]!);
  expect(text).not.toMatch(/ghs_|BEGIN|PRIVATE KEY|Bearer/);
  expect(text).not.toContain(GITHUB_DETAIL);
  expect(lines.join("\n")).not.toContain(GITHUB_DETAIL);
  return { status: appStatusSchema.parse(result), events: logEvents(lines) };
}

beforeEach(() => forgetAppCheck());

describe("AgentThinkTokenBroker.appStatus", () => {
  it("answers the App's slug and name from GET /app, asked as the App with a JWT that verifies, over the service binding", async () => {
    github();
    const { status: answer } = await check(env.TOKEN_BROKER);
    expect(answer).toMatchObject({ ok: true, slug: APP_SLUG, name: APP_SLUG, mentionHandle: "@agent-think", handleSet: true });
    expect(Date.parse(answer.checkedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual(["GET /app"]);
    const jwt = await verifyAppJwt(calls[0]!.authorization);
    expect(String(jwt.payload.iss)).toBe(env.GITHUB_APP_ID);
  });

  it("keeps one answer a minute, so dashboards polling the health report do not ask GitHub each time", async () => {
    expect(APP_CHECK_TTL_MS).toBe(60_000);
    github();
    await check();
    await check();
    expect(calls).toHaveLength(1);
    // Another App id is another answer.
    await check(inProcess({ GITHUB_APP_ID: "5150" }));
    expect(calls).toHaveLength(2);
  });

  it("names the App's @<slug> as the handle when MENTION_HANDLE is unset, and the set one otherwise", async () => {
    github({ app: appAnswer("their-app") });
    expect((await check(inProcess({ MENTION_HANDLE: "" }))).status).toMatchObject({ ok: true, slug: "their-app", mentionHandle: "@their-app", handleSet: false });
    // The set handle is answered as it is: the agent Worker's health line warns about the mismatch.
    expect((await check(inProcess({ MENTION_HANDLE: "@Agent-Think" }))).status).toMatchObject({ ok: true, slug: "their-app", mentionHandle: "@agent-think", handleSet: true });
  });

  it.each([
    ["401: a JWT GitHub refuses (a wrong App id, or another App's key)", status(401, GITHUB_DETAIL), "app_auth", /^GitHub refused the App's JWT for GET \/app: check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY/],
    ["404: no App there", status(404, GITHUB_DETAIL), "not_found", /^GitHub answered 404 to GET \/app: check GITHUB_API_URL .* and GITHUB_APP_ID$/],
    ["500, asked once", status(500, GITHUB_DETAIL), "github", /^GitHub answered 500 to GET \/app: check GITHUB_API_URL and GitHub's status/],
    ["no answer", () => HttpResponse.error(), "github", /^GitHub could not be reached to GET \/app/],
    ["an answer with no slug", () => HttpResponse.json({ id: 1, name: GITHUB_DETAIL }), "bad_answer", /names no usable slug/]
  ] as const)("%s: a tagged failure naming what to check, logged, kept a minute too", async (_name, answer, code, error) => {
    github({ app: answer });
    const { status: first, events } = await check(inProcess({ MENTION_HANDLE: "" }));
    expect(first).toMatchObject({ ok: false, code, error: expect.stringMatching(error), mentionHandle: "", handleSet: false });
    expect(events).toContainEqual(expect.objectContaining({ event: "app:check-failed", code }));
    expect(calls).toHaveLength(1);
    await check();
    expect(calls).toHaveLength(1);
  });

  it("a key that is not the App's: the recorded GitHub's own JWT check answers 401, and the check says app_auth", async () => {
    github();
    // A usable key that is not this App's: the handler checks the JWT against the App's public key, as GitHub does.
    const pem = toPem("PRIVATE KEY", await generatedPkcs8());
    const { result } = await captureConsole(async () => await inProcess({ GITHUB_APP_PRIVATE_KEY: pem }).appStatus());
    expect(result).toMatchObject({ ok: false, code: "app_auth" });
    expect(JSON.stringify(result)).not.toContain(pem.split("\n")[1]!);
  });

  it("refuses unusable credentials or settings without asking GitHub, naming the variable", async () => {
    github();
    expect((await check(inProcess({ GITHUB_APP_PRIVATE_KEY: "not a key" }))).status).toMatchObject({
      ok: false,
      code: "config",
      error: "GITHUB_APP_PRIVATE_KEY is not a PEM private key"
    });
    forgetAppCheck();
    // PEM armour around something that is not a key: it would fail only inside the signer, and read as GitHub not answering.
    expect((await check(inProcess({ GITHUB_APP_PRIVATE_KEY: "-----BEGIN PRIVATE KEY-----\nAAAAAAAAAAAAAAAAAAAAAAAA\n-----END PRIVATE KEY-----" }))).status).toMatchObject({
      ok: false,
      code: "config",
      error: expect.stringMatching(/^GITHUB_APP_PRIVATE_KEY is not a usable RSA private key/)
    });
    forgetAppCheck();
    expect((await check(inProcess({ GITHUB_APP_ID: "agent-think" }))).status).toMatchObject({ ok: false, code: "config", error: expect.stringContaining("GITHUB_APP_ID") });
    expect((await check(inProcess({ ALLOWED_REPOS: "acme" }))).status).toMatchObject({ ok: false, code: "config", error: expect.stringMatching(/^the webhook app's ALLOWED_REPOS /) });
    expect(calls).toEqual([]);
  });
});
