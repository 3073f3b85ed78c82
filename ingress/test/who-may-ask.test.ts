/**
 * Who may ask, on GitHub's own published `issue_comment.created` payload
 * (@octokit/webhooks-examples), changed only where a case needs it:
 *
 * - every commenter's permission is asked from GitHub, whatever the
 *   payload's author_association says: a MEMBER (any organization member,
 *   a read-only base role included) or a COLLABORATOR (an outside
 *   collaborator with read or triage) is refused when GitHub says read or
 *   triage, exactly as a passer-by is; an OWNER or MEMBER GitHub says may
 *   write or administer is dispatched, and so is a private org member
 *   (CONTRIBUTOR or NONE on the payload) GitHub says may write;
 * - an Enterprise Managed User (`mona_acme`) on their own repository
 *   (`octocat_acme/widgets`) is dispatched like anyone else;
 * - a 404 refuses, whatever the association (webhook.test.ts, "gates"),
 *   and so does a failed check (fail closed, 502, nothing claimed);
 * - the answer is kept for five minutes by the app's clock (a test's
 *   `vi.setSystemTime` moves it), so the next comments do not ask again
 *   and a comment after five minutes does; a failure is not kept;
 * - bots are refused before anything is asked.
 */
import { TOKEN_PERMISSIONS } from "../src/github/app-client";
import { env } from "cloudflare:workers";
import { HttpResponse } from "msw";
import { afterEach, describe, expect, it, vi } from "vitest";
import { githubServer, IDENTITY_CALLS, permissionAnswer, permissionCall, status, type GitHubOverrides } from "./support/github";
import { captureConsole, commentPayload, dispatchesFor, EXAMPLE_INSTALLATION_ID, logEvents, marker, outcome, send, sign } from "./support/ingress";

const github = githubServer();
const { calls, minted } = github;
const route = (call: { method: string; path: string }) => `${call.method} ${call.path}`;

/** A login no other test uses, so no cached answer carries over. */
const newLogin = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** GitHub's example (support/payloads.ts), with the commenter, their association and the repository this case needs. */
function payload(options: { login: string; association: string; repo?: string; userType?: string }) {
  return commentPayload(options);
}

async function deliver(body: ReturnType<typeof payload>, overrides: GitHubOverrides = {}) {
  github.reset();
  github.use(overrides);
  calls.length = 0;
  minted.length = 0;
  const allowed = body.repository.full_name;
  const { result: response, lines } = await captureConsole(async () => send(await sign(body), { env: { ...env, ALLOWED_REPOS: allowed } }));
  return { response, events: logEvents(lines) };
}

const permissionKeyOf = (repo: string, login: string) => `permission:${repo}:${login}`.toLowerCase();

afterEach(() => {
  vi.useRealTimers();
});
/** How long an answer is kept (permission.ts). */
const FIVE_MINUTES_S = 300;

describe("Enterprise Managed Users", () => {
  it("dispatches mona_acme's mention on octocat_acme/widgets, names unchanged from the token to the dispatch", async () => {
    const body = payload({ login: "mona_acme", association: "OWNER", repo: "octocat_acme/widgets" });
    const { response } = await deliver(body, { permission: permissionAnswer("admin", "admin") });
    expect(response.status).toBe(202);
    expect(outcome(response)).toBe("accepted");
    expect(calls.map(route)).toEqual([
      `POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`,
      permissionCall("octocat_acme/widgets", "mona_acme"),
      ...IDENTITY_CALLS,
      `POST /repos/octocat_acme/widgets/issues/comments/${body.comment.id}/reactions`
    ]);
    expect(calls[0]!.body).toEqual({ repositories: ["widgets"], permissions: TOKEN_PERMISSIONS });
    expect(dispatchesFor(body.comment.id)).toEqual([
      expect.objectContaining({ repo: "octocat_acme/widgets", requestedBy: expect.objectContaining({ login: "mona_acme" }) })
    ]);
    expect(await marker(body.comment.id)).toMatchObject({ state: "dispatched", repo: "octocat_acme/widgets", requestedBy: "mona_acme" });
  });

  it("refuses a payload naming what GitHub never would, naming the field", async () => {
    for (const [login, field] of [
      ["mona_a", "comment.user.login"],
      ["mona acme", "comment.user.login"]
    ] as const) {
      const { response, events } = await deliver(payload({ login, association: "OWNER" }));
      expect(response.status).toBe(400);
      expect(events).toContainEqual(expect.objectContaining({ event: "delivery:rejected", outcome: "bad_payload", field }));
      expect(calls).toEqual([]);
    }
  });
});

describe("a commenter the association seems to vouch for", () => {
  it.each([
    ["MEMBER", "read", "read"],
    ["MEMBER", "none", "none"],
    ["COLLABORATOR", "read", "triage"],
    ["COLLABORATOR", "read", "read"],
    ["OWNER", "read", "read"]
  ])("is refused as %s when GitHub says permission %s, role %s: what a passer-by gets, nothing claimed, reacted, commented or dispatched", async (association, permission, roleName) => {
    const login = newLogin("member");
    const body = payload({ login, association });
    const { response, events } = await deliver(body, { permission: permissionAnswer(permission, roleName) });
    expect(response.status).toBe(204);
    expect(outcome(response)).toBe("ignored:not_trusted");
    // Only the token to ask with and the question: no 👀, no 😕, no comment.
    expect(calls.map(route)).toEqual([`POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`, permissionCall("acme/widgets", login)]);
    expect(events).toContainEqual(
      expect.objectContaining({ event: "delivery:ignored", reason: "not_trusted", check: "insufficient_permission", login, association, permission, roleName, source: "github" })
    );
    expect(events.map((event) => event.event)).not.toContain("delivery:claimed");
    expect(dispatchesFor(body.comment.id)).toEqual([]);
    expect(await marker(body.comment.id)).toBeNull();
  });

  it.each([
    ["OWNER", "admin", "admin"],
    ["OWNER", "write", "write"],
    ["MEMBER", "write", "write"],
    ["MEMBER", "admin", "admin"],
    ["COLLABORATOR", "write", "maintain"]
  ])("is dispatched as %s when GitHub says permission %s, role %s, and the log says GitHub decided", async (association, permission, roleName) => {
    const login = newLogin("maintainer");
    const body = payload({ login, association });
    const { response, events } = await deliver(body, { permission: permissionAnswer(permission, roleName) });
    expect(response.status).toBe(202);
    expect(outcome(response)).toBe("accepted");
    expect(calls.map(route).slice(0, 2)).toEqual([`POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`, permissionCall("acme/widgets", login)]);
    expect(minted).toHaveLength(1);
    expect(dispatchesFor(body.comment.id)).toEqual([expect.objectContaining({ installationToken: minted[0], requestedBy: expect.objectContaining({ login }) })]);
    expect(events).toContainEqual(
      expect.objectContaining({ event: "delivery:claimed", login, trustedBy: "permission", association, permission, roleName, source: "github" })
    );
  });
});

describe("a commenter the association does not vouch for", () => {
  it.each([
    ["CONTRIBUTOR", "write", "write"],
    ["NONE", "write", "maintain"],
    ["CONTRIBUTOR", "admin", "admin"],
    ["NONE", "write", "release-manager"]
  ])("is dispatched when the association is %s and GitHub says permission %s, role %s", async (association, permission, roleName) => {
    const login = newLogin("private-member");
    const body = payload({ login, association });
    const { response, events } = await deliver(body, { permission: permissionAnswer(permission, roleName) });
    expect(response.status).toBe(202);
    expect(outcome(response)).toBe("accepted");
    // One token, minted once for the payload's installation: the permission check's is the run's.
    expect(calls.map(route)).toEqual([
      `POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`,
      `GET /repos/acme/widgets/collaborators/${login}/permission`,
      ...IDENTITY_CALLS,
      `POST /repos/acme/widgets/issues/comments/${body.comment.id}/reactions`
    ]);
    expect(minted).toHaveLength(1);
    expect(calls[1]!.authorization).toBe(`token ${minted[0]}`);
    expect(dispatchesFor(body.comment.id)).toEqual([
      expect.objectContaining({ repo: "acme/widgets", installationToken: minted[0], requestedBy: expect.objectContaining({ login }) })
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({ event: "delivery:claimed", login, trustedBy: "permission", association, permission, roleName, source: "github" })
    );
  });

  it("dispatches an Enterprise Managed User whose org membership is private", async () => {
    const body = payload({ login: "mona-cat_octo", association: "NONE" });
    const { response } = await deliver(body, { permission: permissionAnswer("write", "maintain") });
    expect(response.status).toBe(202);
    expect(calls.map(route)).toContain("GET /repos/acme/widgets/collaborators/mona-cat_octo/permission");
    expect(dispatchesFor(body.comment.id)).toHaveLength(1);
  });

  it.each([
    ["read", "read"],
    ["read", "triage"],
    ["none", "none"]
  ])("is refused when GitHub says permission %s, role %s: nothing claimed, marked or dispatched", async (permission, roleName) => {
    const login = newLogin("reader");
    const body = payload({ login, association: "CONTRIBUTOR" });
    const { response, events } = await deliver(body, { permission: permissionAnswer(permission, roleName) });
    expect(response.status).toBe(204);
    expect(outcome(response)).toBe("ignored:not_trusted");
    expect(calls.map(route).at(-1)).toBe(`GET /repos/acme/widgets/collaborators/${login}/permission`);
    expect(events).toContainEqual(
      expect.objectContaining({ event: "delivery:ignored", reason: "not_trusted", check: "insufficient_permission", login, permission, roleName })
    );
    expect(dispatchesFor(body.comment.id)).toEqual([]);
    expect(await marker(body.comment.id)).toBeNull();
  });

  it("is refused, fail closed, when GitHub cannot say: 502, logged with the reason, nothing claimed, and the answer not kept", async () => {
    const login = newLogin("unlucky");
    const failing = [
      [{ permission: status(500, "Internal Server Error") }, "GitHub answered 500"],
      [{ permission: status(403, "Resource not accessible by integration") }, "GitHub answered 403"],
      [{ permission: () => HttpResponse.json({ role_name: "admin" }) }, "names none"],
      [{ accessToken: status(404, "Not Found") }, "no installation token to ask with: the GitHub App's installation for acme/widgets is gone"],
      // Before the answer every call is tried once (BEFORE_ANSWER): a retry would not fit in GitHub's ten seconds.
      [{ accessToken: status(500, "Internal Server Error") }, "no installation token to ask with: GitHub answered 500 while minting a token for acme/widgets"]
    ] as const;
    for (const [overrides, reason] of failing) {
      const body = payload({ login, association: "CONTRIBUTOR" });
      const { response, events } = await deliver(body, overrides);
      expect(response.status).toBe(502);
      expect(outcome(response)).toBe("permission_check_failed");
      const failed = events.find((event) => event.event === "permission:failed");
      expect(failed).toMatchObject({ login, association: "CONTRIBUTOR", commentId: body.comment.id });
      expect(failed?.error).toContain(reason);
      expect(calls.length, reason).toBeLessThanOrEqual(2);
      expect(dispatchesFor(body.comment.id)).toEqual([]);
      expect(await marker(body.comment.id)).toBeNull();
      expect(await env.EVENT_STATE.get(permissionKeyOf("acme/widgets", login))).toBeNull();
    }
    // Never claimed, so a redelivery once GitHub answers again starts the run.
    const body = payload({ login, association: "CONTRIBUTOR" });
    const first = await deliver(body, { permission: status(502, "Bad Gateway") });
    expect(first.response.status).toBe(502);
    const again = await deliver(body, { permission: permissionAnswer("write", "write") });
    expect(again.response.status).toBe(202);
    expect(dispatchesFor(body.comment.id)).toHaveLength(1);
  });

  it("keeps GitHub's answer for five minutes by the app's clock: two deliveries within them ask once, one after them asks again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.parse("2026-11-02T09:00:00Z");
    vi.setSystemTime(start);
    const login = newLogin("regular");
    const asks = () => calls.filter((call) => route(call) === permissionCall("acme/widgets", login)).length;

    const first = await deliver(payload({ login, association: "MEMBER" }), { permission: permissionAnswer("write", "write") });
    expect(first.response.status).toBe(202);
    expect(asks()).toBe(1);

    // A second comment 4:59 later: the kept answer decides, even though GitHub would now say read.
    vi.setSystemTime(start + 5 * 60_000 - 1_000);
    const second = await deliver(payload({ login, association: "MEMBER" }), { permission: permissionAnswer("read", "read") });
    expect(outcome(second.response)).toBe("accepted");
    expect(asks()).toBe(0);
    expect(second.events).toContainEqual(expect.objectContaining({ event: "delivery:claimed", login, source: "cache", permission: "write" }));

    // Five minutes after the answer (KV may still hold it: its own expiry runs on the real clock): GitHub is asked again, and its new answer refuses.
    vi.setSystemTime(start + 5 * 60_000);
    const third = await deliver(payload({ login, association: "MEMBER" }), { permission: permissionAnswer("read", "read") });
    expect(asks()).toBe(1);
    expect(outcome(third.response)).toBe("ignored:not_trusted");
    expect(third.events).toContainEqual(expect.objectContaining({ event: "delivery:ignored", login, source: "github", permission: "read" }));
  });

  it("keeps GitHub's answer for five minutes: the next comments do not ask again", async () => {
    const login = newLogin("burst");
    const first = await deliver(payload({ login, association: "CONTRIBUTOR" }), { permission: permissionAnswer("write", "maintain") });
    expect(first.response.status).toBe(202);
    const { keys } = await env.EVENT_STATE.list({ prefix: permissionKeyOf("acme/widgets", login) });
    expect(keys).toHaveLength(1);
    const expiresInSeconds = keys[0]!.expiration! - Date.now() / 1000;
    expect(expiresInSeconds).toBeGreaterThan(FIVE_MINUTES_S - 30);
    expect(expiresInSeconds).toBeLessThanOrEqual(FIVE_MINUTES_S + 1);

    // The API would now refuse; the kept answer decides, and GitHub is not asked.
    const second = payload({ login, association: "CONTRIBUTOR" });
    const { response, events } = await deliver(second, { permission: permissionAnswer("read", "read") });
    expect(response.status).toBe(202);
    expect(calls.map(route)).not.toContain(`GET /repos/acme/widgets/collaborators/${login}/permission`);
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:claimed", trustedBy: "permission", source: "cache" }));
    expect(dispatchesFor(second.comment.id)).toHaveLength(1);

    // A refusal is kept too: a passer-by's next mention costs GitHub nothing.
    const stranger = newLogin("stranger");
    await deliver(payload({ login: stranger, association: "NONE" }));
    const { response: refused } = await deliver(payload({ login: stranger, association: "NONE" }));
    expect(outcome(refused)).toBe("ignored:not_trusted");
    expect(calls).toEqual([]);
  });

  it("is never asked about for an empty instruction or a bot", async () => {
    const empty = payload({ login: newLogin("quiet"), association: "NONE" });
    const { response } = await deliver({ ...empty, comment: { ...empty.comment, body: "@agent-think" } });
    expect(outcome(response)).toBe("ignored:empty_instruction");
    expect(calls).toEqual([]);
    for (const [login, userType, reason] of [
      ["dependabot[bot]", "Bot", "ignored:bot"],
      ["agent-think[bot]", "Bot", "ignored:own_bot"],
      ["release-robot", "Bot", "ignored:bot"]
    ] as const) {
      const bot = await deliver(payload({ login, userType, association: "NONE" }), { permission: permissionAnswer("admin", "admin") });
      expect(outcome(bot.response)).toBe(reason);
      expect(calls, login).toEqual([]);
    }
  });
});
