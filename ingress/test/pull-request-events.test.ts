/**
 * A change to one of the App's own pull requests (`pull_request` opened,
 * reopened, closed merged or not) is verified as every delivery is, read,
 * and handed to the agent Worker's `recordPullRequest` before the answer:
 * 200 `recorded`, a redelivery 204 `ignored:duplicate`. Nothing else is
 * asked of GitHub but the App's slug, no token is minted, nothing is posted
 * or dispatched. Any other action, a person's pull request, a fork's, a
 * branch that is not the App's, a repository off the allowlist: a logged
 * 204 that records nothing. Each delivery is GitHub's published example for
 * its action (`pullRequestPayload`, scripts/lib/github-delivery.ts).
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { pullRequestPayload, type PullRequestDeliveryOptions } from "../../scripts/lib/github-delivery";
import type { PullRequestEvent } from "../../src/shared/command-center-events";
import { pullRequestExample } from "./support/examples";
import { githubServer, status, type GitHubCall } from "./support/github";
import { captureConsole, logEvents, outcome, send, sign, storedState } from "./support/ingress";
import { RecordingAgentThink } from "./worker";

const github = githubServer();
const route = (call: GitHubCall) => `${call.method} ${call.path}`;

const REPO = "acme/widgets";
const OPENED = "2026-12-01T09:00:00Z";
const CHANGED = "2026-12-02T10:30:00Z";
let pull = 500;
beforeEach(() => {
  pull += 1;
  RecordingAgentThink.pullRequests.length = 0;
});

const payload = (options: Partial<PullRequestDeliveryOptions> & Pick<PullRequestDeliveryOptions, "action">) =>
  pullRequestPayload({ repo: REPO, pullNumber: pull, createdAt: OPENED, changedAt: CHANGED, ...options }, pullRequestExample(options.action));

async function deliver(body: unknown, options: { env?: Env } = {}) {
  const { result: response, lines } = await captureConsole(async () => send(await sign(body, { event: "pull_request" }), options.env ? { env: options.env } : {}));
  return { response, events: logEvents(lines) };
}

const change = (state: PullRequestEvent["state"], at: string, fields: Partial<PullRequestEvent> = {}): PullRequestEvent => ({
  type: "pull-request",
  repo: REPO,
  number: pull,
  issueNumber: pull,
  state,
  openedAt: Date.parse(OPENED),
  at: Date.parse(at),
  ...fields
});

describe("a change to one of the App's pull requests", () => {
  it("merged: is recorded with its merge time before the answer, and a redelivery is a duplicate; nothing is minted, posted or dispatched", async () => {
    github.use();
    const before = await storedState();
    const merged = payload({ action: "closed", merged: true });
    const { response, events } = await deliver(merged);
    expect(response.status).toBe(200);
    expect(outcome(response)).toBe("recorded");
    expect(RecordingAgentThink.pullRequests).toEqual([change("merged", CHANGED)]);
    expect(events).toContainEqual(expect.objectContaining({ event: "pull-request:recorded", repo: REPO, number: pull, state: "merged" }));

    const again = await deliver(merged);
    expect(again.response.status).toBe(204);
    expect(outcome(again.response)).toBe("ignored:duplicate");
    // GitHub was asked at most the App's slug; no claim, marker or dispatch was made.
    expect(github.calls.map(route).filter((call) => call !== "GET /app")).toEqual([]);
    expect(github.minted).toEqual([]);
    expect(await storedState()).toEqual(before);
  });

  it("closed without merging, opened and reopened: each recorded as it stands, at GitHub's time of the change", async () => {
    github.use();
    expect(outcome((await deliver(payload({ action: "opened", changedAt: OPENED }))).response)).toBe("recorded");
    expect(outcome((await deliver(payload({ action: "closed", merged: false }))).response)).toBe("recorded");
    expect(outcome((await deliver(payload({ action: "reopened", changedAt: "2026-12-03T08:00:00Z" }))).response)).toBe("recorded");
    expect(RecordingAgentThink.pullRequests).toEqual([change("open", OPENED), change("closed", CHANGED), change("open", "2026-12-03T08:00:00Z")]);
  });

  it("names its repository as the payload spells it, and the issue its branch is for", async () => {
    github.use();
    const body = payload({ action: "closed", merged: true, repo: "Acme/Gadgets", headRef: "agent-think/issue-12" });
    expect(outcome((await deliver(body)).response)).toBe("recorded");
    expect(RecordingAgentThink.pullRequests).toEqual([change("merged", CHANGED, { repo: "Acme/Gadgets", issueNumber: 12 })]);
  });
});

describe("what is not one of the App's pull requests, or not a change kept", () => {
  it.each([
    ["another action", payload({ action: "opened" }), "ignored:action", (body: ReturnType<typeof payload>) => ({ ...body, action: "synchronize" })],
    ["a person's pull request", payload({ action: "closed", merged: true, pullAuthor: "octocat" }), "ignored:not_app_pull_request", undefined],
    ["a pull request by another App's bot", payload({ action: "closed", merged: true, pullAuthor: "other-app[bot]" }), "ignored:not_app_pull_request", undefined],
    ["the App's login on an account that is not a Bot", payload({ action: "closed", merged: true, pullAuthorType: "User" }), "ignored:not_app_pull_request", undefined],
    ["a fork's head", payload({ action: "closed", merged: true, headRepo: "mallory/widgets" }), "ignored:fork", undefined],
    ["a branch that is not the App's", payload({ action: "closed", merged: true, headRef: "fix-parser" }), "ignored:not_app_branch", undefined],
    ["a repository off the allowlist", payload({ action: "closed", merged: true, repo: "someone/else" }), "ignored:repo_not_allowed", undefined]
  ])("%s: a logged 204, nothing recorded", async (_name, built, expected, edit) => {
    github.use();
    const body = edit ? edit(built) : built;
    const { response, events } = await deliver(body);
    expect(response.status).toBe(204);
    expect(outcome(response)).toBe(expected);
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:ignored", githubEvent: "pull_request", reason: expected.slice("ignored:".length) }));
    expect(RecordingAgentThink.pullRequests).toEqual([]);
    expect(github.minted).toEqual([]);
  });

  it("GitHub's published pull_request.closed example, as sent: read, and not the App's", async () => {
    github.use();
    const published = pullRequestExample("closed");
    const allowed = { ...env, ALLOWED_REPOS: published.repository.full_name };
    const { response } = await deliver(published, { env: allowed });
    expect(outcome(response)).toBe("ignored:not_app_branch");
    expect(RecordingAgentThink.pullRequests).toEqual([]);
  });

  it("is refused as any delivery is without its signature, and a payload that does not read is a 400", async () => {
    github.use();
    const signed = await sign(payload({ action: "closed", merged: true }), { event: "pull_request" });
    const forged = await send(signed, { headers: { "x-hub-signature-256": `sha256=${"0".repeat(64)}` } });
    expect(forged.status).toBe(401);
    expect(outcome(forged)).toBe("bad_signature");
    const body = payload({ action: "closed", merged: true });
    const unreadable = await deliver({ ...body, pull_request: { ...body.pull_request, closed_at: "yesterday-ish" } });
    expect(unreadable.response.status).toBe(400);
    expect(unreadable.events).toContainEqual(expect.objectContaining({ event: "delivery:rejected", outcome: "bad_payload", field: "pull_request.closed_at" }));
    expect(RecordingAgentThink.pullRequests).toEqual([]);
  });
});

describe("when the change cannot be kept", () => {
  it("answers 502 when the agent Worker fails, so GitHub's redelivery tries again; its refusal is a logged 204", async () => {
    github.use();
    const failing = { ...env, AGENT_THINK: { recordPullRequest: async () => Promise.reject(new Error("the command center is down")) } as unknown as Env["AGENT_THINK"] };
    const { response, events } = await deliver(payload({ action: "closed", merged: true }), { env: failing });
    expect(response.status).toBe(502);
    expect(outcome(response)).toBe("record_failed");
    expect(events).toContainEqual(expect.objectContaining({ event: "pull-request:record-failed", error: expect.stringContaining("the command center is down") }));

    const refusing = { ...env, AGENT_THINK: { recordPullRequest: async () => ({ applied: false, reason: "repo_not_allowed" }) } as unknown as Env["AGENT_THINK"] };
    expect(outcome((await deliver(payload({ action: "closed", merged: true }), { env: refusing })).response)).toBe("ignored:repo_not_allowed");
  });

  it("answers 502 app_unknown when GitHub will not name the App, and records nothing", async () => {
    github.use({ app: status(404) });
    const unset = { ...env, GITHUB_APP_ID: "515151" };
    const { response } = await deliver(payload({ action: "closed", merged: true }), { env: unset });
    expect(response.status).toBe(502);
    expect(outcome(response)).toBe("app_unknown");
    expect(github.calls.map(route)).toEqual(["GET /app"]);
    expect(RecordingAgentThink.pullRequests).toEqual([]);
  });
});
