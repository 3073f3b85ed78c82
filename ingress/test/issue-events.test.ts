/**
 * Asking without a comment: assigning the App's bot to an issue, or adding
 * the repository's label, starts a run with the instruction its
 * `.github/agent-think.yml` names (the defaults without one); unassigning
 * it, or removing the label, stops the run as `@agent-think stop` does.
 * Each is gated as a mention is: the sender's permission from GitHub, one
 * claim per delivery (a redelivery keeps GitHub's delivery id, so it starts
 * nothing new), 👀 on the issue itself. Every delivery is GitHub's own
 * published `issues` example, changed only where a case needs it (the bot as
 * the assignee, the label's name, the issue's time: the examples are from 2019).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HttpResponse, type HttpResponseResolver } from "msw";
import { setupReportClaim } from "../src/wiring";
import { describe, expect, it } from "vitest";
import { RecordingAgentThink } from "./worker";
import { assignTheBot as assignTheBotTo, issuesPayload, withLabel } from "./support/issue-payloads";
import { BOT_LOGIN, BOT_USER_ID, contentsAnswer, githubServer, IDENTITY_CALLS, permissionAnswer, permissionCall, type GitHubCall } from "./support/github";
import { captureConsole, logEvents, outcome, send, sign } from "./support/ingress";

const { calls, use: github } = githubServer();
const route = (call: GitHubCall) => `${call.method} ${call.path}`;

/** The examples' repository, allowed here; its owner, Codertocat, sends them (GitHub answers admin for an owner). */
const REPO = "Codertocat/Hello-World";
const ISSUE = 1;
const CONFIG_CALL = `GET /repos/${REPO}/contents/.github%2Fagent-think.yml`;
const testEnv = () => ({ ...env, ALLOWED_REPOS: REPO });

const assignTheBot = (action: "assigned" | "unassigned" = "assigned") => assignTheBotTo({ login: BOT_LOGIN, id: BOT_USER_ID }, action);
const label = withLabel;

const configFile = (text: string) => ({ contents: contentsAnswer(".github/agent-think.yml", text) });

async function deliver(payload: unknown, options: { deliveryId?: string } = {}) {
  const delivery = await sign(payload, { event: "issues", ...options });
  const before = RecordingAgentThink.calls.length;
  const { result: response, lines } = await captureConsole(() => send(delivery, { env: testEnv() }));
  return { response, events: logEvents(lines), dispatches: RecordingAgentThink.calls.slice(before), deliveryId: delivery.headers["x-github-delivery"] };
}

describe("assigning the App's bot", () => {
  it("by a maintainer starts one run with the config's instruction: 👀 on the issue, no comment id, the sender as who asked", async () => {
    github(configFile("version: 1\ntriggers:\n  assign: find the cause of this crash\n"));
    const { response, dispatches, deliveryId } = await deliver(assignTheBot());

    expect(response.status).toBe(202);
    expect(outcome(response)).toBe("accepted");
    expect(dispatches).toHaveLength(1);
    const input = dispatches[0]!;
    expect(input).toMatchObject({ repo: REPO, issueNumber: ISSUE, instruction: "find the cause of this crash", requestedBy: { login: "Codertocat" }, bot: { login: BOT_LOGIN, id: BOT_USER_ID } });
    expect(input.commentId).toBeUndefined();
    expect(input.pullRequest).toBeUndefined();
    const routes = calls.map(route);
    // The bot is named by GitHub before anyone is asked; the config is read only once the sender may ask.
    expect(routes.indexOf("GET /app")).toBeLessThan(routes.indexOf(permissionCall(REPO, "Codertocat")));
    expect(routes.indexOf(permissionCall(REPO, "Codertocat"))).toBeLessThan(routes.indexOf(CONFIG_CALL));
    expect(routes).toContain(IDENTITY_CALLS[1]);
    const reaction = calls.find((call) => call.path === `/repos/${REPO}/issues/${ISSUE}/reactions`);
    expect(reaction?.body).toEqual({ content: "eyes" });
    expect(routes.filter((path) => path.endsWith("/comments"))).toEqual([]);
    // One token for the delivery, the one the config was read with.
    expect(routes.filter((path) => path.endsWith("/access_tokens"))).toHaveLength(1);
    const marker = await env.EVENT_STATE.get(`handled:issues-assigned:${REPO.toLowerCase()}#${ISSUE}:${deliveryId}`, "json");
    expect(marker).toMatchObject({ state: "dispatched", issueEvent: "assigned", repo: REPO, issueNumber: ISSUE, deliveryId, requestedBy: "Codertocat" });
  });

  it("without a config file, asks the default instruction", async () => {
    github();
    const { response, dispatches } = await deliver(assignTheBot());
    expect(response.status).toBe(202);
    expect(dispatches.map((input) => input.instruction)).toEqual(["reproduce this issue"]);
  });

  it("by a reader is refused: nothing claimed, dispatched, read or reacted, and the log says why", async () => {
    github({ permission: permissionAnswer("read", "read") });
    const { response, events, dispatches } = await deliver(assignTheBot());
    expect(response.status).toBe(204);
    expect(outcome(response)).toBe("ignored:not_trusted");
    expect(dispatches).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:ignored", reason: "not_trusted", check: "insufficient_permission", permission: "read", login: "Codertocat", issueEvent: "assigned" }));
    expect(calls.map(route)).not.toContain(CONFIG_CALL);
    expect(calls.map(route).filter((path) => path.startsWith("POST /repos/"))).toEqual([]);
  });

  it("of someone else, as GitHub's example has it, is ignored without asking GitHub anything", async () => {
    github();
    const { response, events, dispatches } = await deliver(issuesPayload("assigned"));
    expect(outcome(response)).toBe("ignored:not_the_bot");
    expect(dispatches).toEqual([]);
    expect(calls).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:ignored", reason: "not_the_bot", assignee: "Codertocat" }));
  });

  it("of another App's bot is ignored", async () => {
    github();
    const payload = assignTheBotTo({ login: "dependabot[bot]", id: 49_699_333 });
    const { response, dispatches } = await deliver(payload);
    expect(outcome(response)).toBe("ignored:not_the_bot");
    expect(dispatches).toEqual([]);
  });

  it("starts nothing where the config says `assign: false`", async () => {
    github(configFile("version: 1\ntriggers:\n  assign: false\n"));
    const { response, dispatches } = await deliver(assignTheBot());
    expect(outcome(response)).toBe("ignored:trigger_off");
    expect(dispatches).toEqual([]);
    expect(calls.map(route).filter((path) => path.startsWith("POST /repos/"))).toEqual([]);
  });

  it("redelivered (the same X-GitHub-Delivery) starts nothing new", async () => {
    github();
    const payload = assignTheBot();
    const first = await deliver(payload);
    expect(first.response.status).toBe(202);
    const again = await deliver(payload, { deliveryId: first.deliveryId });
    expect(outcome(again.response)).toBe("ignored:duplicate");
    expect(again.dispatches).toEqual([]);
    // A second assignment is another event, another delivery id: it asks again.
    const second = await deliver(assignTheBot());
    expect(second.dispatches).toHaveLength(1);
  });

  it("with a config that does not parse starts nothing: 😕 on the issue and one comment naming the file's errors", async () => {
    github(configFile("version: 1\ntriggers:\n  asign: fix it\n"));
    const { response, events, dispatches } = await deliver(assignTheBot());
    expect(response.status).toBe(202);
    expect(dispatches).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ event: "repo-config:invalid", errors: ["triggers.asign: is not a field this version knows"] }));
    const reaction = calls.find((call) => call.path === `/repos/${REPO}/issues/${ISSUE}/reactions`);
    expect(reaction?.body).toEqual({ content: "confused" });
    const comment = calls.find((call) => call.path === `/repos/${REPO}/issues/${ISSUE}/comments`);
    const body = (comment?.body as { body: string }).body;
    expect(body).toContain("❌ @Codertocat agent-think did not start a run: `.github/agent-think.yml` on the default branch is not valid");
    expect(body).toContain("```text\ntriggers.asign: is not a field this version knows\n```");
    expect(body).toContain("Nothing is running for this assignment. Fix the file on the default branch, then unassign `agent-think[bot]` and assign it again to retry.");
  });

  it("reads the defaults when GitHub will not give the file, and logs why", async () => {
    github({ contents: () => HttpResponse.json({ message: "Server Error" }, { status: 500 }) });
    const { response, events, dispatches } = await deliver(assignTheBot());
    expect(response.status).toBe(202);
    expect(dispatches.map((input) => input.instruction)).toEqual(["reproduce this issue"]);
    expect(events).toContainEqual(expect.objectContaining({ event: "repo-config:unreadable", using: "defaults" }));
  });
});

describe("an installation that has not accepted a permission the bot needs", () => {
  it("is not asked twice before the answer: the config is not read, the defaults decide, and the issue gets 😕 and the not-started comment", async () => {
    await runInDurableObject(env.COMMENT_CLAIMS.getByName(setupReportClaim({ owner: "Codertocat", name: "Hello-World" }, Date.now())), (_instance, state) => state.storage.deleteAll());
    const refuseFullSet: HttpResponseResolver = async ({ request }) => {
      const { permissions } = (await request.json()) as { permissions: Record<string, string> };
      if (permissions.contents !== undefined) return HttpResponse.json({ message: "permissions not granted" }, { status: 422 });
      return HttpResponse.json({ token: `ghs_${crypto.randomUUID().replaceAll("-", "")}`, expires_at: new Date(Date.now() + 3_600_000).toISOString() }, { status: 201 });
    };
    github({ accessToken: refuseFullSet });
    const { response, events, dispatches } = await deliver(assignTheBot());
    expect(outcome(response)).toBe("accepted");
    expect(dispatches).toEqual([]);
    const routes = calls.map(route);
    expect(routes).not.toContain(CONFIG_CALL);
    // Before the answer: the refused mint, the report's, the permission; after it, the run's again and the report's.
    expect(routes.filter((path) => path.endsWith("/access_tokens"))).toHaveLength(4);
    expect(events).toContainEqual(expect.objectContaining({ event: "repo-config:unreadable", using: "defaults" }));
    expect(calls.find((call) => call.path === `/repos/${REPO}/issues/${ISSUE}/reactions`)?.body).toEqual({ content: "confused" });
    const comment = calls.find((call) => call.path === `/repos/${REPO}/issues/${ISSUE}/comments`);
    expect((comment?.body as { body: string }).body).toContain("agent-think could not start a run for this assignment: the GitHub App could not get a token for this repository.");
  });
});

describe("unassigning the App's bot", () => {
  it("during a run dispatches a stop, as `@agent-think stop` does, and posts nothing else", async () => {
    github();
    const { response, dispatches } = await deliver(assignTheBot("unassigned"));
    expect(response.status).toBe(202);
    expect(dispatches).toHaveLength(1);
    expect(dispatches[0]).toMatchObject({ repo: REPO, issueNumber: ISSUE, instruction: "stop", requestedBy: { login: "Codertocat" } });
    expect(dispatches[0]!.commentId).toBeUndefined();
    // Nothing was running (the recording agent answers ""): an unassignment after the run is no reason to comment.
    expect(calls.map(route).filter((path) => path.endsWith("/comments"))).toEqual([]);
  });

  it("by a reader stops nothing", async () => {
    github({ permission: permissionAnswer("triage", "triage") });
    const { response, dispatches } = await deliver(assignTheBot("unassigned"));
    expect(outcome(response)).toBe("ignored:not_trusted");
    expect(dispatches).toEqual([]);
  });
});

describe("the label", () => {
  it("`agent-think` (the default) starts a run with the default instruction", async () => {
    github();
    const { response, dispatches } = await deliver(label("agent-think"));
    expect(response.status).toBe(202);
    expect(dispatches.map((input) => input.instruction)).toEqual(["reproduce this issue"]);
    expect(calls.find((call) => call.path === `/repos/${REPO}/issues/${ISSUE}/reactions`)?.body).toEqual({ content: "eyes" });
  });

  it("the config names starts its instruction; any other, as GitHub's example (`bug`), is ignored", async () => {
    github(configFile("version: 1\ntriggers:\n  label:\n    name: needs-repro\n    instruction: write a failing test\n"));
    const other = await deliver(label("bug"));
    expect(outcome(other.response)).toBe("ignored:other_label");
    expect(other.dispatches).toEqual([]);
    expect((await deliver(label("agent-think"))).dispatches).toEqual([]);
    const named = await deliver(label("Needs-Repro"));
    expect(named.dispatches.map((input) => input.instruction)).toEqual(["write a failing test"]);
  });

  it("removed during a run dispatches a stop", async () => {
    github();
    const { dispatches } = await deliver(label("agent-think", "unlabeled"));
    expect(dispatches.map((input) => input.instruction)).toEqual(["stop"]);
  });

  it("turned off (`label: false`) starts nothing", async () => {
    github(configFile("version: 1\ntriggers:\n  label: false\n"));
    const { response, dispatches } = await deliver(label("agent-think"));
    expect(outcome(response)).toBe("ignored:trigger_off");
    expect(dispatches).toEqual([]);
  });

  it("on a repository whose config does not parse: another label is only logged", async () => {
    github(configFile("version: 2\n"));
    const { response, events, dispatches } = await deliver(label("bug"));
    expect(outcome(response)).toBe("ignored:repo_config_invalid");
    expect(dispatches).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ event: "repo-config:invalid" }));
    expect(calls.map(route).filter((path) => path.startsWith("POST /repos/"))).toEqual([]);
  });
});

describe("an issue event without GitHub's delivery id", () => {
  it("is refused: the id is its key", async () => {
    github();
    const delivery = await sign(assignTheBot(), { event: "issues" });
    const { result: response } = await captureConsole(() => send(delivery, { env: testEnv(), headers: { "x-github-delivery": null } }));
    expect(response.status).toBe(400);
    expect(outcome(response)).toBe("bad_payload");
  });
});
