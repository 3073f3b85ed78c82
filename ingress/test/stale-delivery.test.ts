/**
 * Old deliveries are refused. GitHub's signature has no timestamp, so a
 * signed delivery kept somewhere could be sent again long after; the
 * webhook app takes one only within a day of its comment's time, as the
 * payload says (`comment.created_at`; a review's `submitted_at`), by the
 * app's clock (a test's `vi.setSystemTime` moves it). Outside the window a
 * delivery is ignored (`ignored:stale_delivery`), logged like every ignore,
 * and changes nothing: no GitHub call, no claim, no marker, no dispatch.
 * On GitHub's published examples, dated as each case needs.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CLAIM_RETENTION_MS, type ClaimRecord } from "../src/comment-claim";
import { claimName } from "../src/trigger";
import { DELIVERY_WINDOW_MS, MAX_CLOCK_SKEW_MS } from "../src/freshness";
import { pickReviewCommentExample, pickReviewExample, type Delivery } from "../../scripts/lib/github-delivery";
import { DOTCOM_EXAMPLES, ISSUE_COMMENT_EXAMPLE } from "./support/examples";
import { githubServer } from "./support/github";
import { captureConsole, commentPayload, dispatchesFor, logEvents, marker, outcome, send, sign, storedState } from "./support/ingress";
import { githubTime, testPayloads } from "./support/payloads";

const github = githubServer();
const { calls } = github;
beforeEach(() => github.use());
afterEach(() => {
  vi.useRealTimers();
});

const definitions = JSON.parse(DOTCOM_EXAMPLES) as unknown;
const { reviewCommentDelivery, reviewDelivery } = testPayloads(ISSUE_COMMENT_EXAMPLE, {
  reviewComment: pickReviewCommentExample(definitions),
  review: pickReviewExample(definitions)
});

const SECOND_MS = 1_000;
/**
 * The real clock at load, in whole seconds (GitHub's times have no more): what
 * the Worker stores (a claim's alarm, a marker's expiry) is kept by the real
 * clock, so the app's clock stays near it; a fixed date would fall behind it.
 */
const NOW = Math.floor(Date.now() / SECOND_MS) * SECOND_MS;

/** The app's clock (and so every `Date.now()` in this isolate) at `at`. */
function clockAt(at: number) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(at);
}

/** Sends and checks that the Worker changed nothing anywhere and asked GitHub nothing. */
async function expectNothingDone(delivery: Delivery) {
  const before = await storedState();
  const { result: response, lines } = await captureConsole(() => send(delivery));
  expect(await storedState()).toEqual(before);
  expect(calls).toEqual([]);
  return { response, events: logEvents(lines) };
}

describe("a delivery outside the window", () => {
  it("is ignored when its comment was made more than a day ago: 204 ignored:stale_delivery, logged with the comment's time and age, nothing done", async () => {
    clockAt(NOW);
    const createdAt = githubTime(NOW - DELIVERY_WINDOW_MS - SECOND_MS);
    const payload = commentPayload({ createdAt });
    const { response, events } = await expectNothingDone(await sign(payload, { deliveryId: "stale-delivery-1" }));
    expect(response.status).toBe(204);
    expect(outcome(response)).toBe("ignored:stale_delivery");
    expect(events).toEqual([
      expect.objectContaining({
        event: "delivery:ignored",
        reason: "stale_delivery",
        deliveryId: "stale-delivery-1",
        repo: "acme/widgets",
        commentId: payload.comment.id,
        createdAt,
        ageSeconds: DELIVERY_WINDOW_MS / SECOND_MS + 1
      })
    ]);
    expect(dispatchesFor(payload.comment.id)).toEqual([]);
    expect(await marker(payload.comment.id)).toBeNull();
  });

  it("is ignored as GitHub published it: the example's comment is from 2019", async () => {
    const payload = commentPayload({ createdAt: String(ISSUE_COMMENT_EXAMPLE.comment.created_at) });
    expect(payload.comment.created_at).toBe("2019-05-15T15:20:21Z");
    const { response } = await expectNothingDone(await sign(payload));
    expect(outcome(response)).toBe("ignored:stale_delivery");
  });

  it("is ignored when its time is further ahead of the app's clock than clock skew explains, or unreadable", async () => {
    clockAt(NOW);
    for (const createdAt of [githubTime(NOW + MAX_CLOCK_SKEW_MS + SECOND_MS), "yesterday", ""]) {
      const { response, events } = await expectNothingDone(await sign(commentPayload({ createdAt })));
      expect(outcome(response), createdAt).toBe("ignored:stale_delivery");
      expect(events[0]?.ageSeconds, createdAt).toBe(createdAt.startsWith("2026") ? -(MAX_CLOCK_SKEW_MS / SECOND_MS + 1) : null);
    }
  });

  it("is ignored for a line comment or a review by their own times, and for a review GitHub sent without one", async () => {
    clockAt(NOW);
    const old = githubTime(NOW - 2 * DELIVERY_WINDOW_MS);
    const undated = reviewDelivery();
    for (const [payload, event] of [
      [reviewCommentDelivery({ createdAt: old }), "pull_request_review_comment"],
      [reviewDelivery({ createdAt: old }), "pull_request_review"],
      [{ ...undated, review: { ...undated.review, submitted_at: null } }, "pull_request_review"]
    ] as const) {
      const { response } = await expectNothingDone(await sign(payload, { event }));
      expect(outcome(response), event).toBe("ignored:stale_delivery");
    }
  });

  it("starts nothing when a delivery that ran is sent again after the window, even once its claim and marker are gone", async () => {
    // Sent by the real clock: the claim object's alarm is set by the app's clock and fired by workerd's real one, so a
    // claim taken under a clock set back could be cleared before the test looks (a date 30 days behind: at once).
    const payload = commentPayload();
    const delivery = await sign(payload);
    expect(outcome(await send(delivery))).toBe("accepted");
    expect(dispatchesFor(payload.comment.id)).toHaveLength(1);

    // The claim object's alarm, still pending CLAIM_RETENTION_MS after the claim, has run and the marker expired (both
    // are kept far longer than the window: dedup.test.ts).
    const claim = env.COMMENT_CLAIMS.getByName(claimName({ kind: "comment", id: payload.comment.id }));
    const { claimedAt, alarm } = await runInDurableObject(claim, async (_instance, state) => ({
      claimedAt: state.storage.kv.get<ClaimRecord>("claim")?.claimedAt,
      alarm: await state.storage.getAlarm()
    }));
    expect(alarm).toBe(claimedAt! + CLAIM_RETENTION_MS);
    expect(await runDurableObjectAlarm(claim)).toBe(true);
    expect(await runInDurableObject(claim, (_instance, state) => state.storage.kv.get("claim"))).toBeUndefined();
    await env.EVENT_STATE.delete(`handled:comments:${payload.comment.id}`);
    clockAt(Date.parse(payload.comment.created_at) + DELIVERY_WINDOW_MS + SECOND_MS);
    calls.length = 0;
    const { response, events } = await expectNothingDone(delivery);
    expect(outcome(response)).toBe("ignored:stale_delivery");
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:ignored", reason: "stale_delivery", commentId: payload.comment.id }));
    expect(dispatchesFor(payload.comment.id)).toHaveLength(1);
  });
});

describe("a delivery inside the window", () => {
  it("is accepted up to a day after its comment, and a little ahead of the app's clock", async () => {
    clockAt(NOW);
    for (const createdAt of [githubTime(NOW - DELIVERY_WINDOW_MS), githubTime(NOW - 3 * 60 * 60 * SECOND_MS), githubTime(NOW + MAX_CLOCK_SKEW_MS)]) {
      const payload = commentPayload({ createdAt });
      expect(outcome(await send(await sign(payload))), createdAt).toBe("accepted");
      expect(dispatchesFor(payload.comment.id), createdAt).toHaveLength(1);
    }
  });

  it("takes a review by its submitted_at and a line comment by its created_at", async () => {
    clockAt(NOW);
    const recent = githubTime(NOW - 60 * SECOND_MS);
    expect(outcome(await send(await sign(reviewCommentDelivery({ createdAt: recent }), { event: "pull_request_review_comment" })))).toBe("accepted");
    expect(outcome(await send(await sign(reviewDelivery({ createdAt: recent }), { event: "pull_request_review" })))).toBe("accepted");
  });
});
