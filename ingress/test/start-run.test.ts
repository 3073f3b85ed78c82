/**
 * An accepted comment: the token minted for its repository only, 👀 as the
 * App, the dispatch the agent Worker receives, and every way that can fail
 * (token, reaction, dispatch, an instruction too long), each reported once
 * and never with a secret.
 */
import { TOKEN_PERMISSIONS } from "../src/github/app-client";
import { HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { FAIL_DISPATCH } from "./support/recording";
import { githubServer, INSTALLATION_ID, status, type GitHubCall } from "./support/github";
import { captureConsole, commentPayload, dispatchesFor, logEvents, marker, outcome, send, sign } from "./support/ingress";

const { calls, minted, use: github } = githubServer();
const route = (call: GitHubCall) => `${call.method} ${call.path}`;

/** Send a signed delivery for `payload`, capturing the Worker's log events. */
async function deliver(payload: ReturnType<typeof commentPayload>) {
  const delivery = await sign(payload);
  const { result: response, lines } = await captureConsole(() => send(delivery));
  return { response, events: logEvents(lines), lines };
}

describe("an accepted comment", () => {
  it("mints a token for that repository only, reacts 👀 with it, then dispatches", async () => {
    github();
    const payload = commentPayload({ issueNumber: 41, issueTitle: "Crash on start", body: "@agent-think reproduce this\nOn Node 22." });
    const { response } = await deliver(payload);
    expect(response.status).toBe(202);
    const commentId = payload.comment.id;
    expect(calls.map(route)).toEqual([
      "GET /repos/acme/widgets/installation",
      `POST /app/installations/${INSTALLATION_ID}/access_tokens`,
      `POST /repos/acme/widgets/issues/comments/${commentId}/reactions`
    ]);
    expect(calls[1]!.body).toEqual({ repositories: ["widgets"], permissions: TOKEN_PERMISSIONS });
    expect(calls[2]!.body).toEqual({ content: "eyes" });
    expect(calls[2]!.authorization).toBe(`token ${minted[0]}`);
    expect(dispatchesFor(commentId)).toEqual([
      {
        repo: "acme/widgets",
        issueNumber: 41,
        instruction: "reproduce this\nOn Node 22.",
        installationToken: minted[0],
        installationTokenExpiresAt: expect.any(String),
        commentId,
        issueTitle: "Crash on start",
        // GitHub's example repository states visibility "public".
        repoVisibility: "public",
        requestedBy: { login: "octocat", avatarUrl: "https://avatars.githubusercontent.com/u/583231?v=4" }
      }
    ]);
    // The token's expiry, as GitHub answered it: an hour after it was minted.
    const expiresAt = Date.parse(dispatchesFor(commentId)[0]!.installationTokenExpiresAt!);
    expect(expiresAt - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(60 * 60_000);
  });

  it("tells the agent when the token expires, as GitHub said, or leaves it out when GitHub's answer does not parse", async () => {
    const answering = (expiresAt: string) => () =>
      HttpResponse.json({ token: `ghs_${crypto.randomUUID().replaceAll("-", "")}`, expires_at: expiresAt }, { status: 201 });
    const expiryOf = async (expiresAt: string) => {
      github({ accessToken: answering(expiresAt) });
      const payload = commentPayload();
      expect((await deliver(payload)).response.status).toBe(202);
      const [dispatched] = dispatchesFor(payload.comment.id);
      expect(dispatched).toBeDefined();
      return dispatched!.installationTokenExpiresAt;
    };
    expect(await expiryOf("2031-05-04T03:02:01Z")).toBe("2031-05-04T03:02:01.000Z");
    expect(await expiryOf("2031-05-04T05:02:01+02:00")).toBe("2031-05-04T03:02:01.000Z");
    expect(await expiryOf("sometime soon")).toBeUndefined();
  });

  it("still dispatches when the 👀 reaction is refused, and logs why", async () => {
    github({ reaction: status(403, "Resource not accessible by integration") });
    const payload = commentPayload();
    const { response, events } = await deliver(payload);
    expect(response.status).toBe(202);
    expect(dispatchesFor(payload.comment.id)).toHaveLength(1);
    expect(events).toContainEqual(expect.objectContaining({ event: "react:failed", content: "eyes", error: "GitHub answered 403: Resource not accessible by integration" }));
  });
});

describe("when the run cannot start", () => {
  it("reacts 😕 and leaves one short comment when dispatch fails, with nothing of the error in it", async () => {
    github();
    const payload = commentPayload({ issueNumber: 9, body: `@agent-think reproduce ${FAIL_DISPATCH}` });
    const { response, events, lines } = await deliver(payload);
    // The webhook was answered before dispatch ran: the failure cannot change it.
    expect(response.status).toBe(202);
    const commentId = payload.comment.id;
    expect(dispatchesFor(commentId)).toHaveLength(1);
    const after = calls.slice(3);
    expect(after.map(route)).toEqual([`POST /repos/acme/widgets/issues/comments/${commentId}/reactions`, "POST /repos/acme/widgets/issues/9/comments"]);
    expect(after[0]!.body).toEqual({ content: "confused" });
    const body = (after[1]!.body as { body: string }).body;
    expect(body).toContain("@octocat agent-think could not start a run for this comment");
    expect(body).toContain(`<!-- agent-think-ingress:not-started comment=${commentId} -->`);
    expect(body).not.toContain("refused");
    expect(body).not.toContain(minted[0]!);
    expect(after.every((call) => call.authorization === `token ${minted[0]}`)).toBe(true);
    expect(await marker(commentId)).toMatchObject({ state: "failed", reason: "dispatch" });
    // The agent's error named the token; the log line carries the error without it.
    const failed = events.find((event) => event.event === "dispatch:failed");
    expect(failed?.error).toContain("agent refused the run for token [redacted]");
    expect(lines.join("\n")).not.toContain(minted[0]!);
  });

  it("is not retried by a redelivery: the comment stays handled and nothing is posted twice", async () => {
    github();
    const payload = commentPayload({ body: `@agent-think reproduce ${FAIL_DISPATCH}` });
    await deliver(payload);
    const callsAfterFirst = calls.length;
    const { response } = await deliver(payload);
    expect(outcome(response)).toBe("ignored:duplicate");
    expect(calls).toHaveLength(callsAfterFirst);
    expect(dispatchesFor(payload.comment.id)).toHaveLength(1);
  });

  it("answers 502 when no token can be minted, and dispatches and posts nothing", async () => {
    github({ installation: status(404, "Not Found") });
    const payload = commentPayload();
    const { response, events } = await deliver(payload);
    expect(response.status).toBe(502);
    expect(outcome(response)).toBe("token_failed");
    expect(calls.map(route)).toEqual(["GET /repos/acme/widgets/installation"]);
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(events).toContainEqual(
      expect.objectContaining({ event: "token:failed", code: "not_installed", error: "TokenMintError: the GitHub App is not installed on acme/widgets" })
    );
    expect(await marker(payload.comment.id)).toMatchObject({ state: "failed", reason: "token" });
  });

  it("refuses an instruction longer than the agent accepts, naming the limit, without dispatching", async () => {
    github();
    const payload = commentPayload({ body: `@agent-think reproduce\n${"log line\n".repeat(1_000)}` });
    const { response } = await deliver(payload);
    expect(response.status).toBe(200);
    expect(outcome(response)).toBe("refused:instruction_too_long");
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    const posted = calls.filter((call) => call.method === "POST" && call.path.endsWith("/issues/7/comments"));
    expect(posted).toHaveLength(1);
    expect((posted[0]!.body as { body: string }).body).toMatch(/the instruction is 9,0\d\d characters and the limit is 8,000/);
    expect(calls.find((call) => call.path.endsWith("/reactions"))?.body).toEqual({ content: "confused" });
    expect(await marker(payload.comment.id)).toMatchObject({ state: "refused", reason: "instruction_too_long" });
  });

  it("logs, and does not throw, when even the report cannot be posted", async () => {
    github({ comment: () => HttpResponse.error(), reaction: status(500) });
    const payload = commentPayload({ body: `@agent-think reproduce ${FAIL_DISPATCH}` });
    const { response, events } = await deliver(payload);
    expect(response.status).toBe(202);
    expect(events.map((event) => event.event)).toEqual(expect.arrayContaining(["dispatch:failed", "react:failed", "report:failed"]));
    expect(events.find((event) => event.event === "report:failed")?.error).toMatch(/^GitHub could not be reached: /);
    expect(events.find((event) => event.event === "react:failed")?.error).toMatch(/^GitHub answered 500: /);
  });
});
