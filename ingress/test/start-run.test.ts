/**
 * An accepted comment: answered 202 as soon as it is claimed and marked,
 * then, in the background, the token minted for its repository only (for
 * the payload's installation; minted before the answer when the
 * commenter's permission had to be asked with it), the App's identity, 👀
 * as the App, the dispatch the agent Worker receives (with the digest of the
 * issue's body as the mention saw it), and every way that can fail (token,
 * reaction, dispatch, an instruction too long), each reported once and
 * never with a secret; a failed mint with 😕 and one comment an hour per
 * repository where a token that may write issues can still be had. The identity's own cases are in app-identity.test.ts.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { REPORT_TOKEN_PERMISSIONS, TOKEN_PERMISSIONS } from "../src/github/app-client";
import { setupReportClaim } from "../src/wiring";
import { dispatchInputSchema } from "../../src/shared/dispatch";
import { HttpResponse, type HttpResponseResolver } from "msw";
import { beforeEach, describe, expect, it } from "vitest";
import { SOMETHING_RUNNING } from "./support/recording";
import { BOT_LOGIN, BOT_USER_ID, githubServer, IDENTITY_CALLS, INSTALLATION_ID, permissionCall, status, type GitHubCall } from "./support/github";
import {
  captureConsole,
  commentPayload,
  dispatchesFor,
  EXAMPLE_INSTALLATION_ID,
  logEvents,
  marker,
  outcome,
  refusingAgentEnv,
  send,
  sign
} from "./support/ingress";

const { calls, minted, use: github } = githubServer();
const route = (call: GitHubCall) => `${call.method} ${call.path}`;

/** Send a signed delivery for `payload` (to the Worker with `env`, if given), capturing the Worker's log events. */
async function deliver(payload: ReturnType<typeof commentPayload>, env?: Env) {
  const delivery = await sign(payload);
  const { result: response, lines } = await captureConsole(() => send(delivery, { env }));
  return { response, events: logEvents(lines), lines };
}

/**
 * A first comment from the default commenter, so GitHub's answer about their
 * permission is kept (permission.ts) and the next delivery's token is minted
 * after the answer, as a maintainer's usually is.
 */
async function permissionKnown() {
  github();
  expect((await deliver(commentPayload())).response.status).toBe(202);
  calls.length = 0;
  minted.length = 0;
}

/** Hex SHA-256 of `text`'s UTF-8 bytes, computed here apart from the Worker's code. */
async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The payload without GitHub's `installation` (as a delivery not sent to an App would come). */
function withoutInstallation(payload: ReturnType<typeof commentPayload>): ReturnType<typeof commentPayload> {
  const copy: Record<string, unknown> = { ...payload };
  delete copy.installation;
  return copy as ReturnType<typeof commentPayload>;
}

describe("an accepted comment", () => {
  it("mints a token for that repository only, for the payload's installation, learns the App's identity, reacts 👀 with the token, then dispatches", async () => {
    github();
    const payload = commentPayload({ issueNumber: 41, issueTitle: "Crash on start", body: "@agent-think reproduce this\nOn Node 22." });
    const { response } = await deliver(payload);
    expect(response.status).toBe(202);
    const commentId = payload.comment.id;
    // GitHub's example names its installation, so it is not looked up.
    expect(EXAMPLE_INSTALLATION_ID).toBeGreaterThan(0);
    // The commenter's permission is asked with the token that then becomes the run's: one mint.
    expect(calls.map(route)).toEqual([
      `POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`,
      permissionCall("acme/widgets"),
      ...IDENTITY_CALLS,
      `POST /repos/acme/widgets/issues/comments/${commentId}/reactions`
    ]);
    expect(minted).toHaveLength(1);
    expect(calls[0]!.body).toEqual({ repositories: ["widgets"], permissions: TOKEN_PERMISSIONS });
    expect(calls[1]!.authorization).toBe(`token ${minted[0]}`);
    expect(calls[4]!.body).toEqual({ content: "eyes" });
    expect(calls[4]!.authorization).toBe(`token ${minted[0]}`);
    expect(dispatchesFor(commentId)).toEqual([
      {
        repo: "acme/widgets",
        issueNumber: 41,
        instruction: "reproduce this\nOn Node 22.",
        installationToken: minted[0],
        installationTokenExpiresAt: expect.any(String),
        commentId,
        issueTitle: "Crash on start",
        // The issue's body as the payload had it (GitHub's example's), digested.
        issueBodySha256: await sha256(payload.issue.body ?? ""),
        // GitHub's example repository states visibility "public".
        repoVisibility: "public",
        requestedBy: { login: "octocat", avatarUrl: "https://avatars.githubusercontent.com/u/583231?v=4" },
        // Who the run's commits and comments are by, as GitHub named the App's bot.
        bot: { login: BOT_LOGIN, id: BOT_USER_ID }
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

  it("looks the installation up only when the payload names none", async () => {
    github();
    const payload = withoutInstallation(commentPayload());
    const { response } = await deliver(payload);
    expect(response.status).toBe(202);
    expect(calls.map(route)).toEqual([
      "GET /repos/acme/widgets/installation",
      `POST /app/installations/${INSTALLATION_ID}/access_tokens`,
      permissionCall("acme/widgets"),
      ...IDENTITY_CALLS,
      `POST /repos/acme/widgets/issues/comments/${payload.comment.id}/reactions`
    ]);
    expect(dispatchesFor(payload.comment.id)).toEqual([expect.objectContaining({ installationToken: minted[0] })]);
  });

  it("answers before GitHub does: for a commenter whose permission is known, a token mint GitHub has not answered delays the run, not the answer", async () => {
    await permissionKnown();
    // GitHub answers the mint only once the webhook has answered: an answer that waited for the mint would never come
    // (the mint would time out and the run fail). One mint is expected; another (a retry of one that timed out) is
    // refused at once, so such a webhook fails the test in seconds.
    let answered!: () => void;
    const answer = new Promise<void>((resolve) => (answered = resolve));
    const order: string[] = [];
    const token = `ghs_${crypto.randomUUID().replaceAll("-", "")}`;
    github({
      accessToken: async () => {
        order.push("mint asked");
        if (order.filter((step) => step === "mint asked").length > 1) return HttpResponse.json({ message: "a second mint" }, { status: 500 });
        await answer;
        order.push("mint answered");
        return HttpResponse.json({ token, expires_at: new Date(Date.now() + 3_600_000).toISOString() }, { status: 201 });
      }
    });
    const payload = commentPayload();
    const response = await send(await sign(payload), {
      onAnswer: () => {
        order.push("webhook answered");
        answered();
      }
    });
    expect(response.status).toBe(202);
    expect(outcome(response)).toBe("accepted");
    // The answer waited for the claim and the marker only; the mint (asked before or after it) was answered after it.
    expect(order.filter((step) => step !== "mint asked")).toEqual(["webhook answered", "mint answered"]);
    expect(order.filter((step) => step === "mint asked")).toHaveLength(1);
    // The run started once GitHub answered, with that token.
    expect(dispatchesFor(payload.comment.id)).toEqual([expect.objectContaining({ installationToken: token })]);
    expect(await marker(payload.comment.id)).toMatchObject({ state: "dispatched" });
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

describe("the issue's body at the mention", () => {
  it("is sent to the agent as the SHA-256 of the body the payload had, one the agent's schema accepts", async () => {
    github();
    const body = "Crashes on start.\r\nSteps: run `app --ünïcode` 🚀";
    const cases = [
      [commentPayload({ issueBody: body }), await sha256(body)],
      // GitHub sends null for an issue without a body: the empty string's digest.
      [commentPayload({ issueBody: null }), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
      [commentPayload({ issueBody: "" }), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"]
    ] as const;
    for (const [payload, digest] of cases) {
      expect((await deliver(payload)).response.status).toBe(202);
      const [input] = dispatchesFor(payload.comment.id);
      expect(input?.issueBodySha256, String(payload.issue.body)).toBe(digest);
      expect(dispatchInputSchema.parse(input)).toMatchObject({ issueBodySha256: digest });
    }
    // The body is digested as GitHub sent it, byte for byte: no line endings or spaces normalised.
    expect(cases[0][1]).not.toBe(await sha256(body.replace("\r\n", "\n")));
  });
});

describe("when the run cannot start", () => {
  it("reacts 😕 and leaves one short comment when dispatch fails, with nothing of the error in it", async () => {
    github();
    const payload = commentPayload({ issueNumber: 9, body: "@agent-think reproduce" });
    const { response, events, lines } = await deliver(payload, refusingAgentEnv());
    // The webhook was answered before dispatch ran: the failure cannot change it.
    expect(response.status).toBe(202);
    const commentId = payload.comment.id;
    expect(dispatchesFor(commentId)).toHaveLength(1);
    // After the token, the permission, the identity and 👀:
    const after = calls.slice(3 + IDENTITY_CALLS.length);
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
    const payload = commentPayload({ body: "@agent-think reproduce" });
    await deliver(payload, refusingAgentEnv());
    const callsAfterFirst = calls.length;
    const { response } = await deliver(payload, refusingAgentEnv());
    expect(outcome(response)).toBe("ignored:duplicate");
    expect(calls).toHaveLength(callsAfterFirst);
    expect(dispatchesFor(payload.comment.id)).toHaveLength(1);
  });

  it("refuses an instruction longer than the agent accepts, naming the limit, without dispatching", async () => {
    github();
    const payload = commentPayload({ body: `@agent-think reproduce\n${"log line\n".repeat(1_000)}` });
    const { response, events } = await deliver(payload);
    // Refusing means commenting, which needs the token: it happens after the answer.
    expect(response.status).toBe(202);
    expect(outcome(response)).toBe("accepted");
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:refused", reason: "instruction_too_long" }));
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    const posted = calls.filter((call) => call.method === "POST" && call.path.endsWith("/issues/7/comments"));
    expect(posted).toHaveLength(1);
    expect((posted[0]!.body as { body: string }).body).toMatch(/the instruction is 9,0\d\d characters and the limit is 8,000/);
    expect(calls.find((call) => call.path.endsWith("/reactions"))?.body).toEqual({ content: "confused" });
    expect(await marker(payload.comment.id)).toMatchObject({ state: "refused", reason: "instruction_too_long" });
  });

  it("logs, and does not throw, when even the report cannot be posted", async () => {
    github({ comment: () => HttpResponse.error(), reaction: status(500) });
    const payload = commentPayload({ body: "@agent-think reproduce" });
    const { response, events } = await deliver(payload, refusingAgentEnv());
    expect(response.status).toBe(202);
    expect(events.map((event) => event.event)).toEqual(expect.arrayContaining(["dispatch:failed", "react:failed", "report:failed"]));
    expect(events.find((event) => event.event === "report:failed")?.error).toMatch(/^GitHub could not be reached: /);
    expect(events.find((event) => event.event === "react:failed")?.error).toMatch(/^GitHub answered 500: /);
  });
});

describe("when the run's token cannot be minted", () => {
  const tokenMints = () => calls.filter((call) => call.method === "POST" && call.path.endsWith("/access_tokens"));
  const posted = () => calls.filter((call) => call.method === "POST" && /\/issues\/\d+\/comments$/.test(call.path));
  /** GitHub refuses the bot's full set (422: the installation has not accepted a permission) and mints the report's issues: write. */
  const refuseFullSet: HttpResponseResolver = async ({ request }) => {
    const { permissions } = (await request.json()) as { permissions: Record<string, string> };
    if (permissions.contents !== undefined) return HttpResponse.json({ message: "permissions not granted" }, { status: 422 });
    const token = `ghs_${crypto.randomUUID().replaceAll("-", "")}`;
    minted.push(token);
    return HttpResponse.json({ token, expires_at: new Date(Date.now() + 3_600_000).toISOString() }, { status: 201 });
  };

  beforeEach(async () => {
    // Each test gets the hour's one report for each repository afresh.
    for (const repo of [{ owner: "acme", name: "widgets" }, { owner: "acme", name: "gadgets" }]) {
      await runInDurableObject(env.COMMENT_CLAIMS.getByName(setupReportClaim(repo, Date.now())), (_instance, state) => state.storage.deleteAll());
    }
  });

  it("an installation that has not accepted a permission (422): 😕 and one comment naming what to check, with a token that may only write issues", async () => {
    // The commenter's permission is known, so the mint comes after the answer (before it, a failed mint is a 502: who-may-ask.test.ts).
    await permissionKnown();
    // GitHub refuses the bot's full set, and grants the report's issues: write.
    github({ accessToken: refuseFullSet });
    const payload = commentPayload({ issueNumber: 14 });
    const { response, events, lines } = await deliver(payload);
    // The answer went out before the mint: the failure cannot change it.
    expect(response.status).toBe(202);
    expect(outcome(response)).toBe("accepted");
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(tokenMints().map((call) => call.body)).toEqual([
      { repositories: ["widgets"], permissions: TOKEN_PERMISSIONS },
      { repositories: ["widgets"], permissions: REPORT_TOKEN_PERMISSIONS }
    ]);
    expect(REPORT_TOKEN_PERMISSIONS).toEqual({ issues: "write", metadata: "read" });
    // No 👀, no identity: the run never started.
    expect(calls.slice(2).map(route)).toEqual([`POST /repos/acme/widgets/issues/comments/${payload.comment.id}/reactions`, "POST /repos/acme/widgets/issues/14/comments"]);
    expect(calls[2]!.body).toEqual({ content: "confused" });
    expect(calls.slice(2).every((call) => call.authorization === `token ${minted[0]}`)).toBe(true);
    const body = (posted()[0]!.body as { body: string }).body;
    expect(body).toContain(`<!-- agent-think-ingress:not-started comment=${payload.comment.id} -->`);
    expect(body).toContain("@octocat agent-think could not start a run for this comment: the GitHub App could not get a token for this repository.");
    expect(body).toContain("installed on `acme/widgets`");
    expect(body).toContain("Issues, Contents and Pull requests (read and write), Metadata (read)");
    expect(body).toContain("mention `@agent-think` again");
    expect(body).toContain("at most once an hour per repository");
    // Nothing of GitHub's answer, no other mention and no link.
    expect(body).not.toContain("permissions not granted");
    expect(body.replace("@octocat", "")).not.toMatch(/(^|[^`\w])@\w/);
    expect(body).not.toMatch(/https?:|\]\(/);
    expect(events).toContainEqual(expect.objectContaining({ event: "token:failed", code: "not_installed" }));
    expect(events).toContainEqual(expect.objectContaining({ event: "report:commented", commentId: payload.comment.id }));
    expect(await marker(payload.comment.id)).toMatchObject({ state: "failed", reason: "token" });
    expect(lines.join("\n")).not.toContain(minted[0]!);
  });

  it("on a first mention, whose commenter's permission is asked before the answer, asks it with the report's token, then reports the same way", async () => {
    github({ accessToken: refuseFullSet });
    const payload = commentPayload({ issueNumber: 18 });
    const { response } = await deliver(payload);
    // Claimed only once GitHub said the commenter may write: an unknown commenter's mention gets nothing.
    expect(outcome(response)).toBe("accepted");
    expect(calls.map(route)).toEqual([
      `POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`,
      `POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`,
      permissionCall("acme/widgets"),
      // After the answer: the run's token is asked again, and refused again.
      `POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`,
      `POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`,
      `POST /repos/acme/widgets/issues/comments/${payload.comment.id}/reactions`,
      "POST /repos/acme/widgets/issues/18/comments"
    ]);
    expect(calls[2]!.authorization).toBe(`token ${minted[0]}`);
    expect(tokenMints().map((call) => (call.body as { permissions: object }).permissions)).toEqual([TOKEN_PERMISSIONS, REPORT_TOKEN_PERMISSIONS, TOKEN_PERMISSIONS, REPORT_TOKEN_PERMISSIONS]);
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(await marker(payload.comment.id)).toMatchObject({ state: "failed", reason: "token" });

    // Someone GitHub says may not write gets no reaction and no comment.
    calls.length = 0;
    const stranger = commentPayload({ issueNumber: 19, login: "passer-by" });
    expect(outcome((await deliver(stranger)).response)).toBe("ignored:not_trusted");
    expect(calls.map(route).filter((call) => call.includes("/issues/"))).toEqual([]);
  });

  it("comments once an hour per repository: a second failure on it gets only 😕, another repository its own comment", async () => {
    await permissionKnown();
    // The commenter's permission on the other repository too, so its mint also comes after the answer.
    await deliver(commentPayload({ repo: "Acme/Gadgets" }));
    calls.length = 0;
    minted.length = 0;
    github({ accessToken: refuseFullSet });
    const first = commentPayload({ issueNumber: 15 });
    await deliver(first);
    const second = commentPayload({ issueNumber: 16 });
    const { events } = await deliver(second);
    const other = commentPayload({ issueNumber: 17, repo: "Acme/Gadgets" });
    await deliver(other);
    expect(posted().map((call) => call.path)).toEqual(["/repos/acme/widgets/issues/15/comments", "/repos/Acme/Gadgets/issues/17/comments"]);
    const confused = calls.filter((call) => call.path.endsWith("/reactions")).map((call) => `${call.path} ${(call.body as { content: string }).content}`);
    expect(confused).toEqual([first, second, other].map((payload) => `/repos/${payload.repository.full_name}/issues/comments/${payload.comment.id}/reactions confused`));
    expect(events.map((event) => event.event)).not.toContain("report:commented");
    for (const payload of [first, second, other]) expect(await marker(payload.comment.id)).toMatchObject({ state: "failed", reason: "token" });
  });

  it("an installation that is gone (404) leaves no token to post with: logged, marked, nothing posted", async () => {
    await permissionKnown();
    github({ accessToken: status(404, "Not Found") });
    const payload = commentPayload();
    const { response, events } = await deliver(payload);
    expect(response.status).toBe(202);
    expect(calls.map(route)).toEqual([`POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`, `POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`]);
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(events).toContainEqual(
      expect.objectContaining({ event: "token:failed", code: "not_installed", error: "TokenMintError: the GitHub App's installation for acme/widgets is gone" })
    );
    expect(events).toContainEqual(expect.objectContaining({ event: "report:impossible", code: "not_installed", why: "no token that may write issues either" }));
    expect(await marker(payload.comment.id)).toMatchObject({ state: "failed", reason: "token" });
  });

  it("logs an installation lookup that fails the same way, when the payload names no installation", async () => {
    await permissionKnown();
    github({ installation: status(404, "Not Found") });
    const payload = withoutInstallation(commentPayload());
    const { response, events } = await deliver(payload);
    expect(response.status).toBe(202);
    expect(calls.map(route)).toEqual(["GET /repos/acme/widgets/installation", "GET /repos/acme/widgets/installation"]);
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(events).toContainEqual(
      expect.objectContaining({ event: "token:failed", code: "not_installed", error: "TokenMintError: the GitHub App is not installed on acme/widgets" })
    );
    expect(await marker(payload.comment.id)).toMatchObject({ state: "failed", reason: "token" });
  });

  it("credentials GitHub refuses (401) leave nothing to post with: no second mint, report:impossible, nothing posted", async () => {
    await permissionKnown();
    github({ accessToken: status(401, "A JSON web token could not be decoded") });
    const payload = commentPayload();
    const { response, events } = await deliver(payload);
    expect(response.status).toBe(202);
    expect(calls.map(route)).toEqual([`POST /app/installations/${EXAMPLE_INSTALLATION_ID}/access_tokens`]);
    expect(events).toContainEqual(expect.objectContaining({ event: "token:failed", code: "app_auth" }));
    expect(events).toContainEqual(expect.objectContaining({ event: "report:impossible", code: "app_auth" }));
    expect(await marker(payload.comment.id)).toMatchObject({ state: "failed", reason: "token" });
  });
});

describe("a stop", () => {
  it("with nothing running gets one short comment saying so, after the 👀", async () => {
    github();
    const payload = commentPayload({ issueNumber: 12, body: "@agent-think Stop.\nnever mind" });
    const { response, events } = await deliver(payload);
    expect(response.status).toBe(202);
    const commentId = payload.comment.id;
    expect(dispatchesFor(commentId)).toHaveLength(1);
    // After the token, the permission and the identity:
    const after = calls.slice(2 + IDENTITY_CALLS.length);
    expect(after.map(route)).toEqual([`POST /repos/acme/widgets/issues/comments/${commentId}/reactions`, "POST /repos/acme/widgets/issues/12/comments"]);
    expect(after[0]!.body).toEqual({ content: "eyes" });
    const body = (after[1]!.body as { body: string }).body;
    expect(body).toBe(`<!-- agent-think-ingress:nothing-to-stop comment=${commentId} -->\n@octocat nothing was running on this issue, so there was nothing to stop.`);
    expect(await marker(commentId)).toMatchObject({ state: "dispatched", submissionId: "", reason: "nothing_running" });
    expect(events.some((event) => event.event === "stop:nothing-running")).toBe(true);
  });

  it("that stopped a run, and an instruction that only starts with the word, post nothing of the kind", async () => {
    github();
    const stopped = commentPayload({ issueNumber: 13, body: `@agent-think please stop\n${SOMETHING_RUNNING}` });
    await deliver(stopped);
    const work = commentPayload({ issueNumber: 14, body: "@agent-think stop the server from crashing on empty input" });
    await deliver(work);
    expect(calls.filter((call) => call.method === "POST" && call.path.endsWith("/comments"))).toEqual([]);
    expect(await marker(stopped.comment.id)).toMatchObject({ state: "dispatched", submissionId: `submission-${stopped.comment.id}` });
    expect(await marker(work.comment.id)).not.toHaveProperty("reason");
  });
});
