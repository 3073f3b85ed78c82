/**
 * The reporter tier (docs/ingress.md, "The reporter tier"), on GitHub's own
 * `issue_comment.created` example with GitHub through MSW: with `reporters:
 * reproduce` in `.github/agent-think.yml`, the issue's author without
 * write access gets a reproduction dispatched as `tier: "reporter"`, once
 * per issue per UTC day; anything else they ask gets 😕 and at most one
 * polite comment per issue per day; anyone else without write access is
 * refused silently as before; a REPORTER_DAILY_BUDGET refusal from the
 * agent is answered once per repository per day.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { ReporterBudgetError } from "../../src/shared/reporter-budget";
import { reporterBudgetNoticeClaim } from "../src/reporter-tier";
import { contentsAnswer, githubServer, type GitHubOverrides } from "./support/github";
import { agentRefusingWith, captureConsole, commentPayload, dispatchesFor, logEvents, marker, outcome, send, sign } from "./support/ingress";

const github = githubServer();
const { calls } = github;

const WIDGETS = { owner: "acme", name: "widgets" };
const ON = { contents: contentsAnswer(".github/agent-think.yml", "version: 1\nreporters: reproduce\n") };
const OFF = { contents: contentsAnswer(".github/agent-think.yml", "version: 1\n") };

/** An issue no other test uses: the tier's claims are per issue per day. */
const newIssue = () => 10_000 + Math.floor(Math.random() * 1_000_000);
const newLogin = () => `reporter-${crypto.randomUUID().slice(0, 8)}`;
const newUserId = () => 5_000_000 + Math.floor(Math.random() * 1_000_000);

type Author = { login: string; id: number };
const author = (): Author => ({ login: newLogin(), id: newUserId() });

/** A comment by `by` on `issue`, which `issueAuthor` opened. */
function comment(issue: number, by: Author, body: string, issueAuthor: Author = by) {
  const payload = commentPayload({ issueNumber: issue, login: by.login, userId: by.id, association: "NONE", body });
  return { ...payload, issue: { ...payload.issue, user: { ...(payload.issue as { user?: object }).user, login: issueAuthor.login, id: issueAuthor.id } } };
}

async function deliver(payload: object, overrides: GitHubOverrides, agentEnv: Env = env) {
  github.reset();
  github.use(overrides);
  const { result: response, lines } = await captureConsole(async () => send(await sign(payload), { env: agentEnv }));
  return { response, events: logEvents(lines) };
}

const posted = () => calls.filter((call) => call.method === "POST" && /\/issues\/\d+\/comments$/.test(call.path));
const bodyOf = (call: { body: unknown }) => (call.body as { body: string }).body;
const reactionsOn = (payload: ReturnType<typeof comment>) =>
  calls.filter((call) => call.path === `/repos/acme/widgets/issues/comments/${payload.comment.id}/reactions`).map((call) => (call.body as { content: string }).content);
const refusal = (login: string) => `@${login} thanks — on this repository the bot can only reproduce an issue for its author, once a day; a maintainer can ask for more.`;

beforeEach(() => {
  calls.length = 0;
});

describe("the issue's author without write access", () => {
  it("asking for a reproduction on a `reporters: reproduce` repository starts a run with tier reporter", async () => {
    const reporter = author();
    const payload = comment(newIssue(), reporter, "@agent-think reproduce this issue");
    const { response, events } = await deliver(payload, ON);
    expect(response.status).toBe(202);
    const [dispatched, ...more] = dispatchesFor(payload.comment.id);
    expect(more).toEqual([]);
    expect(dispatched).toMatchObject({ tier: "reporter", instruction: "reproduce this issue", requestedBy: { login: reporter.login }, issueNumber: payload.issue.number });
    expect(reactionsOn(payload)).toEqual(["eyes"]);
    expect(posted()).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:claimed", trustedBy: "reporter" }));
    expect(await marker(payload.comment.id)).toMatchObject({ state: "dispatched" });
  });

  it("a maintainer's dispatch carries no tier", async () => {
    const payload = commentPayload({ issueNumber: newIssue() });
    await deliver(payload, ON);
    const [dispatched] = dispatchesFor(payload.comment.id);
    expect(dispatched).toBeDefined();
    expect(dispatched).not.toHaveProperty("tier");
  });

  it("asking for anything else is refused with one polite comment and 😕, and nothing is dispatched", async () => {
    const reporter = author();
    const payload = comment(newIssue(), reporter, "@agent-think open a PR fixing this");
    const { response } = await deliver(payload, ON);
    expect(response.status).toBe(202);
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(reactionsOn(payload)).toEqual(["confused"]);
    expect(posted().map(bodyOf)).toEqual([`<!-- agent-think-ingress:not-started comment=${payload.comment.id} -->\n${refusal(reporter.login)}`]);
    expect(bodyOf(posted()[0]!)).not.toMatch(/https?:|\]\(/);
    expect(await marker(payload.comment.id)).toMatchObject({ state: "refused", reason: "not_a_reproduction" });
  });

  it("a second reproduction the same day gets one refusal comment and no run; a third only 😕", async () => {
    const reporter = author();
    const issue = newIssue();
    const first = comment(issue, reporter, "@agent-think reproduce");
    await deliver(first, ON);
    expect(dispatchesFor(first.comment.id)).toHaveLength(1);

    const second = comment(issue, reporter, "@agent-think please reproduce this issue");
    await deliver(second, ON);
    expect(dispatchesFor(second.comment.id)).toEqual([]);
    expect(reactionsOn(second)).toEqual(["confused"]);
    expect(posted().map(bodyOf)).toEqual([`<!-- agent-think-ingress:not-started comment=${second.comment.id} -->\n${refusal(reporter.login)}`]);
    expect(await marker(second.comment.id)).toMatchObject({ state: "refused", reason: "reporter_daily_limit" });

    calls.length = 0;
    const third = comment(issue, reporter, "@agent-think open a PR fixing this");
    await deliver(third, ON);
    expect(dispatchesFor(third.comment.id)).toEqual([]);
    expect(reactionsOn(third)).toEqual(["confused"]);
    expect(posted()).toEqual([]);
  });

  it("on a repository without the setting is refused, politely, once a day", async () => {
    const reporter = author();
    const issue = newIssue();
    const first = comment(issue, reporter, "@agent-think reproduce this");
    await deliver(first, OFF);
    const again = comment(issue, reporter, "@agent-think reproduce this");
    await deliver(again, {});
    expect([...dispatchesFor(first.comment.id), ...dispatchesFor(again.comment.id)]).toEqual([]);
    expect(posted().map(bodyOf)).toEqual([`<!-- agent-think-ingress:not-started comment=${first.comment.id} -->\n${refusal(reporter.login)}`]);
    expect([...reactionsOn(first), ...reactionsOn(again)]).toEqual(["confused", "confused"]);
    expect(await marker(again.comment.id)).toMatchObject({ state: "refused", reason: "reporters_off" });
  });
});

describe("the day's claim", () => {
  it("that cannot be asked refuses the reporter run (fail closed) and leaves 😕 only", async () => {
    const claims = env.COMMENT_CLAIMS;
    const failing = {
      ...env,
      COMMENT_CLAIMS: {
        getByName: (name: string) => (name.startsWith("reporter-") ? { claim: () => Promise.reject(new Error("claim object unreachable")) } : claims.getByName(name))
      } as unknown as Env["COMMENT_CLAIMS"]
    };
    const payload = comment(newIssue(), author(), "@agent-think reproduce this issue");
    const { events } = await deliver(payload, ON, failing);
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(reactionsOn(payload)).toEqual(["confused"]);
    expect(posted()).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ event: "report:claim-failed", error: "Error: claim object unreachable" }));
    expect(await marker(payload.comment.id)).toMatchObject({ state: "refused", reason: "reporter_daily_limit" });
  });
});

describe("anyone else without write access", () => {
  it("is refused silently, as before: 204, nothing claimed, posted or dispatched", async () => {
    const someone = author();
    const payload = comment(newIssue(), someone, "@agent-think reproduce this issue", author());
    const { response, events } = await deliver(payload, ON);
    expect(response.status).toBe(204);
    expect(outcome(response)).toBe("ignored:not_trusted");
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(posted()).toEqual([]);
    expect(reactionsOn(payload)).toEqual([]);
    expect(await marker(payload.comment.id)).toBeNull();
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:ignored", reason: "not_trusted" }));
  });

  it("the author of a pull request asking in its conversation is refused silently too", async () => {
    const reporter = author();
    const base = commentPayload({ issueNumber: newIssue(), login: reporter.login, userId: reporter.id, association: "NONE", pullRequest: true });
    const payload = { ...base, issue: { ...base.issue, user: { login: reporter.login, id: reporter.id } } };
    const { response } = await deliver(payload, ON);
    expect(outcome(response)).toBe("ignored:not_trusted");
    expect(posted()).toEqual([]);
  });
});

describe("a reporter run refused by REPORTER_DAILY_BUDGET", () => {
  beforeEach(async () => {
    await runInDurableObject(env.COMMENT_CLAIMS.getByName(reporterBudgetNoticeClaim(WIDGETS, Date.now())), (_instance, state) => state.storage.deleteAll());
  });

  it("gets 😕 and one comment per repository per day saying reporter runs are paused; later ones only 😕", async () => {
    const agentEnv = agentRefusingWith(() => new ReporterBudgetError("$5.00 of REPORTER_DAILY_BUDGET $5.00 spent today in acme/widgets").message);
    const first = comment(newIssue(), author(), "@agent-think reproduce this issue");
    const { events } = await deliver(first, ON, agentEnv);
    const other = comment(newIssue(), author(), "@agent-think reproduce");
    await deliver(other, ON, agentEnv);

    for (const payload of [first, other]) {
      expect(dispatchesFor(payload.comment.id)).toMatchObject([{ tier: "reporter" }]);
      expect(reactionsOn(payload)).toEqual(["eyes", "confused"]);
      expect(await marker(payload.comment.id)).toMatchObject({ state: "refused", reason: "reporter_budget" });
    }
    expect(posted()).toHaveLength(1);
    const body = bodyOf(posted()[0]!);
    expect(body).toContain(`@${first.comment.user.login} thanks — reporter runs on this repository are paused for today (UTC)`);
    expect(body).not.toContain("$");
    expect(body).not.toMatch(/https?:|\]\(/);
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:refused", reason: "reporter_budget" }));
    expect(events.map((event) => event.event)).not.toContain("dispatch:failed");
  });
});
