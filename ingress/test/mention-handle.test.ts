/**
 * The handle that starts a run: MENTION_HANDLE when set, else the App's own
 * `@<slug>` as GitHub names it (`GET /app` before the answer, once; then the
 * slug kept with the identity, in the isolate and KV), and a delivery
 * refused with 502 `app_unknown` when GitHub will not say, so it can be
 * redelivered.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { forgetAppIdentities } from "../src/github/app-identity";
import { appAnswer, githubServer, permissionCall, status, type GitHubCall } from "./support/github";
import { captureConsole, commentPayload, dispatchesFor, EXAMPLE_INSTALLATION_ID, logEvents, marker, outcome, send, sign } from "./support/ingress";

const { calls, use: github } = githubServer();
const route = (call: GitHubCall) => `${call.method} ${call.path}`;

/** The test worker's environment as ingress/wrangler.jsonc deploys it: no MENTION_HANDLE, no BOT_LOGIN. */
function unsetHandle(): Env {
  const { BOT_LOGIN: _login, ...rest } = env as Env & { BOT_LOGIN?: string };
  return { ...rest, MENTION_HANDLE: "" } as Env;
}

async function deliver(payload: ReturnType<typeof commentPayload>, testEnv: Env = unsetHandle()) {
  const { result: response, lines } = await captureConsole(async () => send(await sign(payload), { env: testEnv }));
  return { response, events: logEvents(lines) };
}

describe("with MENTION_HANDLE unset", () => {
  it("answers mentions of the App's own @<slug>, learned with GET /app before the answer, and of no other handle", async () => {
    github({ app: appAnswer("their-app") });
    const first = commentPayload({ body: "@their-app reproduce this" });
    const { response } = await deliver(first);
    expect(outcome(response)).toBe("accepted");
    expect(calls.map(route)).toEqual([
      "GET /app",
      `POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`,
      permissionCall("acme/widgets"),
      // The identity uses the slug just learned: only its bot user is asked.
      "GET /users/their-app%5Bbot%5D",
      `POST /repos/acme/widgets/issues/comments/${first.comment.id}/reactions`
    ]);
    expect(dispatchesFor(first.comment.id)).toEqual([expect.objectContaining({ instruction: "reproduce this", bot: expect.objectContaining({ login: "their-app[bot]" }) })]);

    // The template's old handle is someone else now.
    calls.length = 0;
    const old = commentPayload({ body: "@agent-think reproduce this" });
    expect(outcome((await deliver(old)).response)).toBe("ignored:no_mention");
    expect(calls).toEqual([]);

    // A fresh isolate reads the slug from the identity kept in KV: nothing is asked before the answer.
    forgetAppIdentities();
    const again = commentPayload({ body: "@Their-App fix it" });
    expect(outcome((await deliver(again)).response)).toBe("accepted");
    expect(calls.map(route)).not.toContain("GET /app");
    expect(dispatchesFor(again.comment.id)).toHaveLength(1);
  });

  it.each([
    ["refuses the App's JWT (401)", status(401)],
    ["answers 404", status(404)]
  ])("when GitHub %s: 502 app_unknown, logged, nothing claimed or marked, so a redelivery can start it", async (_name, answer) => {
    github({ app: answer });
    const payload = commentPayload({ body: "@agent-think reproduce" });
    const { response, events } = await deliver(payload);
    expect(response.status).toBe(502);
    expect(outcome(response)).toBe("app_unknown");
    expect(calls.map(route)).toEqual(["GET /app"]);
    expect(events).toContainEqual(expect.objectContaining({ event: "handle:failed", repo: "acme/widgets", error: expect.stringContaining("GET /app") }));
    expect(await marker(payload.comment.id)).toBeNull();
    expect(dispatchesFor(payload.comment.id)).toEqual([]);

    // GitHub answers again: the redelivery runs.
    github();
    expect(outcome((await deliver(payload)).response)).toBe("accepted");
    expect(dispatchesFor(payload.comment.id)).toHaveLength(1);
  });

  it("asks nothing for a repository off the allowlist, or for a comment that mentions no one", async () => {
    github();
    const { response } = await deliver(commentPayload({ repo: "someone/else", body: "@agent-think reproduce" }));
    expect(outcome(response)).toBe("ignored:repo_not_allowed");
    const chatter = await deliver(commentPayload({ body: "Thanks, that fixed it for me." }));
    expect(outcome(chatter.response)).toBe("ignored:no_mention");
    expect(calls).toEqual([]);
  });
});

describe("with MENTION_HANDLE set", () => {
  it("answers that handle only, and asks GitHub nothing for it", async () => {
    github({ app: appAnswer("their-app") });
    const payload = commentPayload({ body: "@their-app reproduce" });
    expect(outcome((await deliver(payload, env)).response)).toBe("ignored:no_mention");
    expect(calls).toEqual([]);
  });
});
