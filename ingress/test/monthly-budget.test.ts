/**
 * A dispatch the agent Worker refuses because the month's spend reached
 * MONTHLY_COST_BUDGET, as the refusal arrives over RPC (its message only):
 * 😕 on every such mention, and one comment per issue per calendar month
 * (UTC) saying so, claimed atomically; the marker says `refused`,
 * `reason: monthly_budget`. Other refusals keep their generic comment
 * (start-run.test.ts).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { MonthlyBudgetReachedError } from "../../src/shared/monthly-budget";
import { BUDGET_NOTICE_RETENTION_MS, budgetNoticeClaim } from "../src/wiring";
import type { ClaimRecord } from "../src/comment-claim";
import { githubServer } from "./support/github";
import { agentRefusingWith, captureConsole, commentPayload, dispatchesFor, logEvents, marker, send, sign } from "./support/ingress";

const { calls, use: github } = githubServer();

const DAY_MS = 24 * 60 * 60 * 1000;
const WIDGETS = { owner: "acme", name: "widgets" };
const ISSUES = [31, 32, 33] as const;

/** The refusal as the agent Worker builds it, reduced to what crosses RPC: its message. */
const budgetRefusal = () =>
  agentRefusingWith(() => new MonthlyBudgetReachedError(10, { month: thisMonth(), spent: { usd: 10.4, complete: false } }, Date.now()).message);

/** The calendar month (UTC) and the first day of the next, computed here apart from the Worker's code. */
const thisMonth = () => new Date().toISOString().slice(0, 7);
function nextMonthFirst(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}

async function deliver(payload: ReturnType<typeof commentPayload>, agentEnv: Env) {
  const { result: response, lines } = await captureConsole(async () => send(await sign(payload), { env: agentEnv }));
  return { response, events: logEvents(lines) };
}

const posted = () => calls.filter((call) => call.method === "POST" && /\/issues\/\d+\/comments$/.test(call.path));
const reactions = () => calls.filter((call) => call.path.endsWith("/reactions")).map((call) => `${call.path} ${(call.body as { content: string }).content}`);
const reactionsOn = (payload: ReturnType<typeof commentPayload>, ...contents: string[]) =>
  contents.map((content) => `/repos/${payload.repository.full_name}/issues/comments/${payload.comment.id}/reactions ${content}`);

describe("a dispatch refused by the monthly cost budget", () => {
  beforeEach(async () => {
    // Each test starts with no notice posted this month on its issues.
    for (const issue of ISSUES) {
      await runInDurableObject(env.COMMENT_CLAIMS.getByName(budgetNoticeClaim(WIDGETS, issue, Date.now())), (_instance, state) => state.storage.deleteAll());
    }
    github();
    calls.length = 0;
  });

  it("gets 😕 and one comment saying so on the issue's first mention this month; a second mention only 😕; another issue its own comment", async () => {
    const agentEnv = budgetRefusal();
    const first = commentPayload({ issueNumber: 31 });
    const { response, events } = await deliver(first, agentEnv);
    expect(response.status).toBe(202);
    const second = commentPayload({ issueNumber: 31 });
    const { events: secondEvents } = await deliver(second, agentEnv);
    const other = commentPayload({ issueNumber: 32 });
    await deliver(other, agentEnv);

    // Each mention was handed to the agent, which refused it.
    for (const payload of [first, second, other]) expect(dispatchesFor(payload.comment.id)).toHaveLength(1);
    expect(reactions()).toEqual([...reactionsOn(first, "eyes", "confused"), ...reactionsOn(second, "eyes", "confused"), ...reactionsOn(other, "eyes", "confused")]);
    expect(posted().map((call) => call.path)).toEqual(["/repos/acme/widgets/issues/31/comments", "/repos/acme/widgets/issues/32/comments"]);

    const body = (posted()[0]!.body as { body: string }).body;
    expect(body).toBe(
      `<!-- agent-think-ingress:not-started comment=${first.comment.id} -->\n` +
        `❌ @octocat agent-think did not start a run: it has spent its cost budget for this month (${thisMonth()}, UTC). Nothing is running for this comment. ` +
        `New runs start again on the 1st (${nextMonthFirst()}, 00:00 UTC), or sooner if whoever runs agent-think raises \`MONTHLY_COST_BUDGET\`: ask them. ` +
        "Then mention `@agent-think` again to retry. This note is posted once a month per issue; later mentions this month get only 😕."
    );
    // The refusal's figures stay in the log; the comment mentions only who asked, and links nowhere.
    expect(body).not.toContain("$");
    expect(body.replace("@octocat", "")).not.toMatch(/(^|[^`\w])@\w/);
    expect(body).not.toMatch(/https?:|\]\(/);
    expect((posted()[1]!.body as { body: string }).body).toContain(`<!-- agent-think-ingress:not-started comment=${other.comment.id} -->`);

    expect(events).toContainEqual(
      expect.objectContaining({ event: "delivery:refused", reason: "monthly_budget", commentId: first.comment.id, error: expect.stringContaining("Error: monthly cost budget reached: at least $10.40") })
    );
    expect(events.map((event) => event.event)).not.toContain("dispatch:failed");
    expect(events.map((event) => event.event)).toContain("report:commented");
    expect(secondEvents.map((event) => event.event)).not.toContain("report:commented");
    for (const payload of [first, second, other]) expect(await marker(payload.comment.id)).toMatchObject({ state: "refused", reason: "monthly_budget" });
  });

  it("keeps the month's claim past the end of the longest month, so a mention on the 31st is not told again", async () => {
    await deliver(commentPayload({ issueNumber: 33 }), budgetRefusal());
    const kept = await runInDurableObject(env.COMMENT_CLAIMS.getByName(budgetNoticeClaim(WIDGETS, 33, Date.now())), async (_instance, state) => ({
      alarm: await state.storage.getAlarm(),
      claimedAt: state.storage.kv.get<ClaimRecord>("claim")?.claimedAt ?? 0
    }));
    expect(kept.claimedAt).toBeGreaterThan(0);
    expect(kept.alarm).toBe(kept.claimedAt + BUDGET_NOTICE_RETENTION_MS);
    expect(BUDGET_NOTICE_RETENTION_MS).toBeGreaterThan(31 * DAY_MS);
  });

  it("is told apart by its message only: any other refusal keeps the generic comment, and no month's claim is taken", async () => {
    const payload = commentPayload({ issueNumber: 33 });
    await deliver(payload, agentRefusingWith(() => "invalid input: monthly cost budget reached: is no refusal of ours"));
    expect((posted()[0]!.body as { body: string }).body).toContain("could not start a run for this comment. Nothing is running for it");
    expect(await marker(payload.comment.id)).toMatchObject({ state: "failed", reason: "dispatch" });
    const claimed = await runInDurableObject(env.COMMENT_CLAIMS.getByName(budgetNoticeClaim(WIDGETS, 33, Date.now())), (_instance, state) =>
      state.storage.kv.get<ClaimRecord>("claim")
    );
    expect(claimed).toBeUndefined();
  });

  it("gets only 😕 when the month's claim cannot be asked, rather than a comment per mention", async () => {
    const base = budgetRefusal();
    const claims = base.COMMENT_CLAIMS;
    const failingNotices = {
      ...base,
      COMMENT_CLAIMS: {
        getByName: (name: string) =>
          name.startsWith("budget-notice:") ? { claim: () => Promise.reject(new Error("claim object unreachable")) } : claims.getByName(name)
      } as unknown as Env["COMMENT_CLAIMS"]
    };
    const payload = commentPayload({ issueNumber: 31 });
    const { events } = await deliver(payload, failingNotices);
    expect(reactions()).toEqual(reactionsOn(payload, "eyes", "confused"));
    expect(posted()).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ event: "report:claim-failed", error: "Error: claim object unreachable" }));
    expect(await marker(payload.comment.id)).toMatchObject({ state: "refused", reason: "monthly_budget" });
  });
});

describe("CommentClaim's retention", () => {
  it("refuses one that is not a positive whole number of milliseconds, and claims nothing", async () => {
    const stub = env.COMMENT_CLAIMS.getByName(`budget-notice:test-${crypto.randomUUID()}`);
    await runInDurableObject(stub, async (instance, state) => {
      for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(instance.claim("x", bad), String(bad)).rejects.toThrow(`retentionMs must be a positive whole number of milliseconds; got ${String(bad)}`);
      }
      expect(state.storage.kv.get("claim")).toBeUndefined();
      expect(await state.storage.getAlarm()).toBeNull();
      expect(await instance.claim("x", 1_000)).toBe(true);
    });
  });
});
