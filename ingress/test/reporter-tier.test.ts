/**
 * The reporter tier (docs/ingress.md, "The reporter tier"), on GitHub's own
 * `issue_comment.created` example with GitHub through MSW: with `reporters:
 * reproduce` in `.github/agent-think.yml`, the issue's author without
 * write access gets a reproduction dispatched as `tier: "reporter"`, once
 * per issue per UTC day; anything else they ask gets 😕 and at most one
 * polite comment per issue per day; anyone else without write access is
 * refused silently as before; a REPORTER_DAILY_BUDGET refusal from the
 * agent is answered once per repository per day and keeps the issue's day;
 * a "reporter runs busy" refusal once per issue per day, and gives the
 * issue's day back. Which tokens all this uses: reporter-tokens.test.ts.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { ReporterBudgetError, ReporterBusyError } from "../../src/shared/reporter-budget";
import { reporterBudgetNoticeClaim } from "../src/reporter-tier";
import { githubServer } from "./support/github";
import { agentRefusingWith, commentPayload, dispatchesFor, marker, outcome } from "./support/ingress";
import { author, bodyOf, comment, newIssue, OFF, ON, refusal, seen, WIDGETS } from "./support/reporters";

const github = githubServer();
const { calls } = github;
const { deliver, posted, reactionsOn } = seen(github);

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

  it("keeps the issue's day: the budget is the day's, so the author's next reproduction today is the daily limit's", async () => {
    const agentEnv = agentRefusingWith(() => new ReporterBudgetError("$5.00 of REPORTER_DAILY_BUDGET $5.00 spent today in acme/widgets").message);
    const reporter = author();
    const issue = newIssue();
    const first = comment(issue, reporter, "@agent-think reproduce this issue");
    await deliver(first, ON, agentEnv);
    const again = comment(issue, reporter, "@agent-think reproduce this issue");
    const { events } = await deliver(again, ON);
    expect(dispatchesFor(again.comment.id)).toEqual([]);
    expect(await marker(again.comment.id)).toMatchObject({ state: "refused", reason: "reporter_daily_limit" });
    expect(events.map((event) => event.event)).not.toContain("reporter:released");
  });
});

describe("a reporter run refused because the repository has its most reporter runs going", () => {
  const busy = () => agentRefusingWith(() => new ReporterBusyError("2 reporter runs are going in acme/widgets, as many as REPORTER_MAX_RUNNING 2 allows").message);
  const busyBody = (login: string) => `@${login} thanks — other reproductions are running on this repository right now; ask again in a little while.`;

  it("gets 😕 and one comment in its own words, is marked reporter_busy, and gives the issue's day back", async () => {
    const reporter = author();
    const issue = newIssue();
    const first = comment(issue, reporter, "@agent-think reproduce this issue");
    const { response, events } = await deliver(first, ON, busy());
    expect(response.status).toBe(202);
    expect(dispatchesFor(first.comment.id)).toMatchObject([{ tier: "reporter" }]);
    expect(reactionsOn(first)).toEqual(["eyes", "confused"]);
    expect(posted().map(bodyOf)).toEqual([`<!-- agent-think-ingress:not-started comment=${first.comment.id} -->\n${busyBody(reporter.login)}`]);
    // Its own words, not the agent's: no figure, no link.
    expect(bodyOf(posted()[0]!).split("\n")[1]!.replace(`@${reporter.login}`, "")).not.toMatch(/https?:|\]\(|\d|@/);
    expect(await marker(first.comment.id)).toMatchObject({ state: "refused", reason: "reporter_busy" });
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:refused", reason: "reporter_busy" }));
    expect(events).toContainEqual(expect.objectContaining({ event: "reporter:released", released: true, commentId: first.comment.id }));
    expect(events.map((event) => event.event)).not.toContain("dispatch:failed");

    // The day was given back: asking again the same day, once the agent has room, starts the run.
    calls.length = 0;
    const again = comment(issue, reporter, "@agent-think reproduce");
    await deliver(again, ON);
    expect(dispatchesFor(again.comment.id)).toMatchObject([{ tier: "reporter", instruction: "reproduce" }]);
    expect(await marker(again.comment.id)).toMatchObject({ state: "dispatched" });
    expect(posted()).toEqual([]);

    // And that run holds the day: a third ask today is the daily limit's.
    const third = comment(issue, reporter, "@agent-think reproduce");
    await deliver(third, ON);
    expect(dispatchesFor(third.comment.id)).toEqual([]);
    expect(await marker(third.comment.id)).toMatchObject({ state: "refused", reason: "reporter_daily_limit" });
  });

  it("says so once per issue per day: a second busy refusal on the issue gets only 😕, another issue its own comment", async () => {
    const reporter = author();
    const issue = newIssue();
    const first = comment(issue, reporter, "@agent-think reproduce this issue");
    await deliver(first, ON, busy());
    const second = comment(issue, reporter, "@agent-think reproduce this issue");
    const { events } = await deliver(second, ON, busy());
    const other = comment(newIssue(), reporter, "@agent-think reproduce this issue");
    await deliver(other, ON, busy());
    // Each was dispatched (the day given back each time) and refused.
    for (const payload of [first, second, other]) {
      expect(dispatchesFor(payload.comment.id)).toHaveLength(1);
      expect(reactionsOn(payload)).toEqual(["eyes", "confused"]);
      expect(await marker(payload.comment.id)).toMatchObject({ state: "refused", reason: "reporter_busy" });
    }
    expect(events).toContainEqual(expect.objectContaining({ event: "reporter:released", released: true }));
    expect(posted().map((call) => call.path)).toEqual([`/repos/acme/widgets/issues/${issue}/comments`, `/repos/acme/widgets/issues/${other.issue.number}/comments`]);
  });

  it("gives back only the day its own delivery holds", async () => {
    // The claim object's own rule, asked directly: a holder that does not hold it releases nothing.
    const name = `reporter-run:test:${crypto.randomUUID()}`;
    const claim = env.COMMENT_CLAIMS.getByName(name);
    expect(await claim.claim("comment:1", 60_000)).toBe(true);
    expect(await claim.release("comment:2")).toBe(false);
    expect(await claim.claim("comment:3", 60_000)).toBe(false);
    expect(await claim.release("comment:1")).toBe(true);
    expect(await claim.release("comment:1")).toBe(false);
    expect(await claim.claim("comment:3", 60_000)).toBe(true);
    // Given back, then asked for by many at once: exactly one gets it.
    expect(await claim.release("comment:3")).toBe(true);
    const wins = await Promise.all(Array.from({ length: 12 }, (_, index) => claim.claim(`comment:${10 + index}`, 60_000)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    await runInDurableObject(claim, (_instance, state) => state.storage.deleteAll());
  });
});
