/**
 * The App's own identity: learned from GitHub on the first accepted comment
 * (`GET /app` as the App for the slug, `GET /users/<slug>[bot]` with the
 * run's token for the id), kept in the isolate and in KV for an hour, sent
 * with every dispatch; GitHub's answer wins over a BOT_LOGIN that differs;
 * the own-bot gate uses it once known; and when GitHub will not say, the
 * run does not start and says so, with nothing of GitHub's answer in it.
 */
import { env } from "cloudflare:workers";
import { HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { forgetAppIdentities, IDENTITY_TTL_SECONDS, identityKey } from "../src/github/app-identity";
import {
  appAnswer,
  BOT_LOGIN,
  BOT_USER_ID,
  githubServer,
  IDENTITY_CALLS,
  permissionCall,
  status,
  userAnswer,
  verifyAppJwt,
  type GitHubCall,
  type GitHubOverrides
} from "./support/github";
import { captureConsole, commentPayload, dispatchesFor, EXAMPLE_INSTALLATION_ID, logEvents, marker, outcome, send, sign, type SendOptions } from "./support/ingress";

const { calls, minted, use: github, reset } = githubServer();
const route = (call: GitHubCall) => `${call.method} ${call.path}`;
const identityCalls = () => calls.map(route).filter((call) => IDENTITY_CALLS.includes(call) || call.startsWith("GET /users/"));

async function deliver(payload: ReturnType<typeof commentPayload>, options: SendOptions = {}) {
  const { result: response, lines } = await captureConsole(async () => send(await sign(payload), options));
  return { response, events: logEvents(lines), lines };
}

/** The test worker's environment without BOT_LOGIN, as ingress/wrangler.jsonc deploys. */
function withoutBotLogin(): Env {
  const { BOT_LOGIN: _configured, ...rest } = env as Env & { BOT_LOGIN?: string };
  return rest as Env;
}

describe("learning the App's identity", () => {
  it("asks GitHub once (GET /app as the App, GET /users with the run's token), keeps it, and sends it with every dispatch", async () => {
    github();
    const first = commentPayload();
    const { response, events } = await deliver(first);
    expect(response.status).toBe(202);
    expect(calls.map(route)).toEqual([
      `POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`,
      permissionCall("acme/widgets"),
      ...IDENTITY_CALLS,
      `POST /repos/acme/widgets/issues/comments/${first.comment.id}/reactions`
    ]);
    // The slug is asked as the App (a JWT that verifies with its key), the bot user with the installation token.
    expect(String((await verifyAppJwt(calls[2]!.authorization)).payload.iss)).toBe(env.GITHUB_APP_ID);
    expect(calls[3]!.authorization).toBe(`token ${minted[0]}`);
    expect(dispatchesFor(first.comment.id)).toEqual([expect.objectContaining({ bot: { login: BOT_LOGIN, id: BOT_USER_ID } })]);
    expect(events).toContainEqual(expect.objectContaining({ event: "identity:learned", login: BOT_LOGIN, id: BOT_USER_ID }));
    // BOT_LOGIN (test/wrangler.jsonc) agrees with GitHub: nothing to report.
    expect(events.map((event) => event.event)).not.toContain("identity:mismatch");

    // Kept in KV for an hour, with where it came from.
    const stored = await env.EVENT_STATE.getWithMetadata(identityKey(env.GITHUB_APP_ID), "json");
    expect(stored.value).toMatchObject({ login: BOT_LOGIN, id: BOT_USER_ID, apiUrl: "https://api.github.test" });
    const listed = (await env.EVENT_STATE.list({ prefix: "app-identity:" })).keys.find((key) => key.name === identityKey(env.GITHUB_APP_ID));
    expect(listed?.expiration).toBeGreaterThan(Date.now() / 1000 + IDENTITY_TTL_SECONDS - 60);
    expect(listed?.expiration).toBeLessThanOrEqual(Date.now() / 1000 + IDENTITY_TTL_SECONDS + 1);

    // A second comment: no identity call, the same identity.
    calls.length = 0;
    const second = commentPayload();
    await deliver(second);
    expect(identityCalls()).toEqual([]);
    expect(dispatchesFor(second.comment.id)).toEqual([expect.objectContaining({ bot: { login: BOT_LOGIN, id: BOT_USER_ID } })]);

    // A fresh isolate reads KV instead of asking GitHub.
    forgetAppIdentities();
    calls.length = 0;
    const third = commentPayload();
    await deliver(third);
    expect(identityCalls()).toEqual([]);
    expect(dispatchesFor(third.comment.id)).toEqual([expect.objectContaining({ bot: { login: BOT_LOGIN, id: BOT_USER_ID } })]);
  });

  it("asks again when KV holds an identity past its hour, or one for another GitHub", async () => {
    github();
    const stale = [
      { login: "old-name[bot]", id: 5, apiUrl: "https://api.github.test", learnedAt: Date.now() - IDENTITY_TTL_SECONDS * 1000 - 1 },
      { login: "other-ghes[bot]", id: 6, apiUrl: "https://ghes.example/api/v3", learnedAt: Date.now() }
    ];
    for (const entry of stale) {
      forgetAppIdentities();
      await env.EVENT_STATE.put(identityKey(env.GITHUB_APP_ID), JSON.stringify(entry));
      calls.length = 0;
      const payload = commentPayload();
      await deliver(payload);
      expect(identityCalls(), entry.login).toEqual(IDENTITY_CALLS);
      expect(dispatchesFor(payload.comment.id)[0]?.bot).toEqual({ login: BOT_LOGIN, id: BOT_USER_ID });
    }
  });

  it("uses GitHub's identity over a BOT_LOGIN that differs, and logs identity:mismatch with both", async () => {
    github({ app: appAnswer("agent-think-staging") });
    const payload = commentPayload();
    const { events } = await deliver(payload);
    expect(dispatchesFor(payload.comment.id)).toEqual([expect.objectContaining({ bot: { login: "agent-think-staging[bot]", id: BOT_USER_ID } })]);
    expect(events).toContainEqual(
      expect.objectContaining({ event: "identity:mismatch", configured: "agent-think[bot]", github: "agent-think-staging[bot]", using: "agent-think-staging[bot]" })
    );
    // Once learned, the own-bot gate names GitHub's login; the configured one is still refused, as a bot.
    for (const [login, expected] of [
      ["agent-think-staging[bot]", "ignored:own_bot"],
      ["agent-think[bot]", "ignored:bot"]
    ] as const) {
      const { response } = await deliver(commentPayload({ login, userType: "Bot", association: "OWNER" }));
      expect(outcome(response), login).toBe(expected);
    }
  });

  it("needs no BOT_LOGIN: every bot is refused before the identity is known, and the App's own by name after", async () => {
    github();
    const options = { env: withoutBotLogin() };
    const own = () => commentPayload({ login: BOT_LOGIN, userType: "Bot", association: "OWNER" });
    expect(outcome((await deliver(own(), options)).response)).toBe("ignored:bot");
    // The refusal asked GitHub nothing, not even who the App is.
    expect(calls).toEqual([]);

    const payload = commentPayload();
    const { events } = await deliver(payload, options);
    expect(dispatchesFor(payload.comment.id)).toEqual([expect.objectContaining({ bot: { login: BOT_LOGIN, id: BOT_USER_ID } })]);
    expect(events.map((event) => event.event)).not.toContain("identity:mismatch");
    expect(outcome((await deliver(own(), options)).response)).toBe("ignored:own_bot");
  });
});

describe("when GitHub will not say who the App is", () => {
  const GITHUB_DETAIL = "detail-from-github-that-must-not-be-posted";
  /** A 5xx or no answer is tried twice more (@octokit/plugin-retry, github/octokit.ts); a 4xx or a bad answer once. */
  const thrice = (call: string) => [call, call, call];
  const cases: [string, GitHubOverrides, string[], RegExp][] = [
    ["GET /app answers 500", { app: status(500, GITHUB_DETAIL) }, thrice("GET /app"), /GitHub answered 500 to GET \/app: check GITHUB_API_URL/],
    [
      "GET /app refuses the JWT",
      { app: status(401, GITHUB_DETAIL) },
      ["GET /app"],
      /GitHub refused the App's JWT for GET \/app: check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY/
    ],
    ["GET /app cannot be reached", { app: () => HttpResponse.error() }, thrice("GET /app"), /GitHub could not be reached to GET \/app/],
    ["GET /app names no slug", { app: () => HttpResponse.json({ id: 1, name: GITHUB_DETAIL }) }, ["GET /app"], /names no usable slug/],
    ["GET /users answers 404", { user: status(404, GITHUB_DETAIL) }, IDENTITY_CALLS, /GitHub has no user agent-think\[bot\]/],
    ["GET /users answers 500", { user: status(500, GITHUB_DETAIL) }, [IDENTITY_CALLS[0]!, ...thrice(IDENTITY_CALLS[1]!)], /GitHub answered 500 to GET \/users\/agent-think\[bot\]/],
    ["GET /users says it is not a Bot", { user: userAnswer(BOT_LOGIN, { type: "User" }) }, IDENTITY_CALLS, /is not the App's bot user/],
    ["GET /users names another login", { user: userAnswer("someone-else[bot]") }, IDENTITY_CALLS, /is not the App's bot user/]
  ];

  it.each(cases)("%s: nothing is dispatched; 😕, the not-started comment, marker failed (identity)", async (_name, overrides, asked, error) => {
    github(overrides);
    const payload = commentPayload({ issueNumber: 31 });
    const { response, events, lines } = await deliver(payload);
    // The answer went out before any of this.
    expect(response.status).toBe(202);
    expect(outcome(response)).toBe("accepted");
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    // No 👀: the run never started.
    expect(calls.map(route)).toEqual([
      `POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`,
      permissionCall("acme/widgets"),
      ...asked,
      `POST /repos/acme/widgets/issues/comments/${payload.comment.id}/reactions`,
      "POST /repos/acme/widgets/issues/31/comments"
    ]);
    const [reaction, comment] = calls.slice(-2);
    expect(reaction!.body).toEqual({ content: "confused" });
    const body = (comment!.body as { body: string }).body;
    expect(body).toContain(`<!-- agent-think-ingress:not-started comment=${payload.comment.id} -->`);
    expect(body).toContain("@octocat agent-think could not start a run for this comment: the GitHub App could not learn its own identity from GitHub.");
    expect(body).toContain("GITHUB_APP_ID");
    expect(body).not.toContain(GITHUB_DETAIL);
    expect(body).not.toMatch(/answered|refused|GET \//);
    expect(await marker(payload.comment.id)).toMatchObject({ state: "failed", reason: "identity" });
    const failed = events.find((event) => event.event === "identity:failed");
    expect(failed).toMatchObject({ code: "identity", repo: "acme/widgets", commentId: payload.comment.id });
    expect(String(failed?.error)).toMatch(error);
    expect(lines.join("\n")).not.toContain(GITHUB_DETAIL);
    expect(lines.join("\n")).not.toContain(minted[0]!);
    // No identity was kept: the next comment asks again (only GET /users when GET /app had answered: its slug is kept), and runs once GitHub answers.
    expect(await env.EVENT_STATE.get(identityKey(env.GITHUB_APP_ID))).toBeNull();
    reset();
    github();
    calls.length = 0;
    const retry = commentPayload();
    await deliver(retry);
    expect(identityCalls()).toEqual(asked.includes(IDENTITY_CALLS[1]!) ? [IDENTITY_CALLS[1]] : IDENTITY_CALLS);
    expect(dispatchesFor(retry.comment.id)).toEqual([expect.objectContaining({ bot: { login: BOT_LOGIN, id: BOT_USER_ID } })]);
  });
});
