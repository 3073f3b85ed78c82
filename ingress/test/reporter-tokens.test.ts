/**
 * Which tokens a reporter's delivery uses (docs/ingress.md, "The reporter
 * tier"; Tokens), as the test GitHub saw them minted and used: the run gets
 * a read-only token (READ_ONLY_TOKEN_PERMISSIONS), minted only once the
 * issue's day is taken, never the bot's write token; everything the webhook
 * app posts for the delivery (👀, 😕, the refusals) uses one that may only
 * comment and react (REPORT_TOKEN_PERMISSIONS), for that repository alone;
 * with the commenter's permission already known, no write token is minted
 * at all. A failed read-only mint gives the day back.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HttpResponse, type HttpResponseResolver } from "msw";
import { beforeEach, describe, expect, it } from "vitest";
import { READ_ONLY_TOKEN_PERMISSIONS, REPORT_TOKEN_PERMISSIONS, TOKEN_PERMISSIONS } from "../src/github/app-client";
import { reporterRunClaim } from "../src/reporter-tier";
import { setupReportClaim } from "../src/wiring";
import { githubServer, IDENTITY_CALLS, type GitHubCall } from "./support/github";
import { dispatchesFor, marker } from "./support/ingress";
import { author, bodyOf, comment, newIssue, ON, seen, WIDGETS } from "./support/reporters";

const github = githubServer();
const { calls, minted } = github;
const { deliver, posted, reactions, mints } = seen(github);
const route = (call: GitHubCall) => `${call.method} ${call.path}`;

/** The token of the one mint GitHub was asked with `permissions`, as an Authorization header. */
function tokenFor(permissions: object): string {
  const matching = mints().filter((mint) => JSON.stringify(mint.permissions) === JSON.stringify(permissions));
  expect(matching, JSON.stringify(mints())).toHaveLength(1);
  return `token ${matching[0]!.token}`;
}

const CONFIG_READ = "GET /repos/acme/widgets/contents/.github%2Fagent-think.yml";

describe("a reporter's reproduction", () => {
  it("dispatches with a read-only token; 👀 and the identity use a token that may only report; the write token stays here", async () => {
    const reporter = author();
    const payload = comment(newIssue(), reporter, "@agent-think reproduce this issue");
    const { response, lines } = await deliver(payload, ON);
    expect(response.status).toBe(202);

    // Before the answer: the permission check's token (the one a maintainer's run would get) read the config too.
    // After it: a token to post with, then the run's read-only token.
    expect(mints().map((mint) => mint.permissions)).toEqual([TOKEN_PERMISSIONS, REPORT_TOKEN_PERMISSIONS, READ_ONLY_TOKEN_PERMISSIONS]);
    for (const call of calls.filter((entry) => entry.path.endsWith("/access_tokens"))) expect((call.body as { repositories: string[] }).repositories).toEqual(["widgets"]);
    const [write, report, read] = [tokenFor(TOKEN_PERMISSIONS), tokenFor(REPORT_TOKEN_PERMISSIONS), tokenFor(READ_ONLY_TOKEN_PERMISSIONS)];
    expect(calls.find((call) => route(call) === CONFIG_READ)?.authorization).toBe(write);

    const [dispatched, ...more] = dispatchesFor(payload.comment.id);
    expect(more).toEqual([]);
    expect(dispatched).toMatchObject({ tier: "reporter", installationToken: read.slice("token ".length), installationTokenExpiresAt: expect.any(String) });

    // 👀 with the report token; the bot's user read with it too; nothing after the answer used the write token.
    expect(reactions(payload).map((call) => [(call.body as { content: string }).content, call.authorization])).toEqual([["eyes", report]]);
    expect(calls.find((call) => route(call) === IDENTITY_CALLS[1])?.authorization).toBe(report);
    const reportMint = calls.findIndex((call) => call.path.endsWith("/access_tokens") && JSON.stringify((call.body as { permissions: object }).permissions) === JSON.stringify(REPORT_TOKEN_PERMISSIONS));
    expect(reportMint).toBeGreaterThan(0);
    expect(calls.slice(reportMint).filter((call) => call.authorization === write)).toEqual([]);
    expect(await marker(payload.comment.id)).toMatchObject({ state: "dispatched" });
    for (const token of minted) expect(lines.join("\n")).not.toContain(token);
  });

  it("with the commenter's permission already known, mints no write token at all: the config is read with the run's read-only token", async () => {
    const reporter = author();
    // A first comment of theirs, refused, leaves GitHub's answer about them kept (permission.ts).
    await deliver(comment(newIssue(), reporter, "@agent-think open a PR fixing this"), ON);
    calls.length = 0;
    minted.length = 0;

    const payload = comment(newIssue(), reporter, "@agent-think reproduce this issue");
    await deliver(payload, ON);
    expect(mints().map((mint) => mint.permissions)).toEqual([READ_ONLY_TOKEN_PERMISSIONS, REPORT_TOKEN_PERMISSIONS]);
    const [read, report] = [tokenFor(READ_ONLY_TOKEN_PERMISSIONS), tokenFor(REPORT_TOKEN_PERMISSIONS)];
    expect(calls.filter((call) => call.path.endsWith("/permission"))).toEqual([]);
    expect(calls.find((call) => route(call) === CONFIG_READ)?.authorization).toBe(read);
    // The run gets the token the config was read with: one read-only mint in all.
    expect(dispatchesFor(payload.comment.id)).toMatchObject([{ tier: "reporter", installationToken: read.slice("token ".length) }]);
    expect(reactions(payload).map((call) => call.authorization)).toEqual([report]);
  });
});

describe("a reporter's refused request", () => {
  it("is answered with the report token, and no read-only token is minted for it", async () => {
    const reporter = author();
    const payload = comment(newIssue(), reporter, "@agent-think open a PR fixing this");
    await deliver(payload, ON);
    expect(mints().map((mint) => mint.permissions)).toEqual([TOKEN_PERMISSIONS, REPORT_TOKEN_PERMISSIONS]);
    const report = tokenFor(REPORT_TOKEN_PERMISSIONS);
    expect(reactions(payload).map((call) => [(call.body as { content: string }).content, call.authorization])).toEqual([["confused", report]]);
    expect(posted().map((call) => call.authorization)).toEqual([report]);
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(await marker(payload.comment.id)).toMatchObject({ state: "refused", reason: "not_a_reproduction" });
  });

  it("the day's second reproduction is refused with the report token, before any read-only mint", async () => {
    const reporter = author();
    const issue = newIssue();
    await deliver(comment(issue, reporter, "@agent-think reproduce"), ON);
    calls.length = 0;
    minted.length = 0;
    const second = comment(issue, reporter, "@agent-think reproduce");
    await deliver(second, ON);
    // Their permission is kept now: the config is read with a read-only token, and the run it was minted for never comes.
    expect(mints().map((mint) => mint.permissions)).toEqual([READ_ONLY_TOKEN_PERMISSIONS, REPORT_TOKEN_PERMISSIONS]);
    expect(reactions(second).map((call) => call.authorization)).toEqual([tokenFor(REPORT_TOKEN_PERMISSIONS)]);
    expect(await marker(second.comment.id)).toMatchObject({ state: "refused", reason: "reporter_daily_limit" });
  });
});

describe("when a reporter's token cannot be minted", () => {
  beforeEach(async () => {
    await runInDurableObject(env.COMMENT_CLAIMS.getByName(setupReportClaim(WIDGETS, Date.now())), (_instance, state) => state.storage.deleteAll());
  });

  /** GitHub mints every token but those asking for `refused`'s permissions (422: not granted to the installation). */
  const refusing = (refused: object): { resolver: HttpResponseResolver; tokens: Array<{ permissions: unknown; token: string }> } => {
    const tokens: Array<{ permissions: unknown; token: string }> = [];
    const resolver: HttpResponseResolver = async ({ request }) => {
      const { permissions } = (await request.clone().json()) as { permissions: Record<string, string> };
      if (JSON.stringify(permissions) === JSON.stringify(refused)) return HttpResponse.json({ message: "The permissions requested are not granted to this installation." }, { status: 422 });
      const token = `ghs_${crypto.randomUUID().replaceAll("-", "")}`;
      tokens.push({ permissions, token });
      return HttpResponse.json({ token, expires_at: new Date(Date.now() + 3_600_000).toISOString() }, { status: 201 });
    };
    return { resolver, tokens };
  };

  it("the run's read-only one: reported with the report token, marked failed, and the issue's day given back", async () => {
    const reporter = author();
    const issue = newIssue();
    const { resolver, tokens } = refusing(READ_ONLY_TOKEN_PERMISSIONS);
    const payload = comment(issue, reporter, "@agent-think reproduce this issue");
    const { response, events } = await deliver(payload, { ...ON, accessToken: resolver });
    expect(response.status).toBe(202);
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ event: "token:failed", access: "read", code: "not_installed" }));
    expect(events).toContainEqual(expect.objectContaining({ event: "reporter:released", released: true }));
    expect(await marker(payload.comment.id)).toMatchObject({ state: "failed", reason: "token" });
    const report = `token ${tokens.find((entry) => JSON.stringify(entry.permissions) === JSON.stringify(REPORT_TOKEN_PERMISSIONS))!.token}`;
    // No 👀 (the run never started): 😕 and the hour's note, both with the report token.
    expect(reactions(payload).map((call) => [(call.body as { content: string }).content, call.authorization])).toEqual([["confused", report]]);
    expect(posted().map((call) => call.authorization)).toEqual([report]);
    expect(bodyOf(posted()[0]!)).toContain("the GitHub App could not get a token for this repository");
    const claim = await runInDurableObject(env.COMMENT_CLAIMS.getByName(reporterRunClaim(WIDGETS, issue, Date.now())), (_instance, state) => state.storage.kv.get("claim"));
    expect(claim).toBeUndefined();

    // Given back: once GitHub mints it, the author's next ask today runs.
    const again = comment(issue, reporter, "@agent-think reproduce this issue");
    await deliver(again, ON);
    expect(dispatchesFor(again.comment.id)).toMatchObject([{ tier: "reporter" }]);
  });

  it("the report token: logged and marked, nothing posted, no read-only token minted", async () => {
    const reporter = author();
    const { resolver, tokens } = refusing(REPORT_TOKEN_PERMISSIONS);
    const payload = comment(newIssue(), reporter, "@agent-think reproduce this issue");
    const { events } = await deliver(payload, { ...ON, accessToken: resolver });
    // Only the permission check's token was ever granted; the report token was asked for once.
    expect(tokens.map((entry) => entry.permissions)).toEqual([TOKEN_PERMISSIONS]);
    expect(calls.filter((call) => call.path.endsWith("/access_tokens")).map((call) => (call.body as { permissions: unknown }).permissions)).toEqual([
      TOKEN_PERMISSIONS,
      REPORT_TOKEN_PERMISSIONS
    ]);
    expect(events).toContainEqual(expect.objectContaining({ event: "token:failed", access: "report", code: "not_installed" }));
    expect(events).toContainEqual(expect.objectContaining({ event: "report:impossible" }));
    expect(calls.filter((call) => call.method === "POST" && call.path.startsWith("/repos/"))).toEqual([]);
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(await marker(payload.comment.id)).toMatchObject({ state: "failed", reason: "token" });
  });
});
