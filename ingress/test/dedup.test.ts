/**
 * Exactly one run per comment, however often and however concurrently
 * GitHub delivers it: the claim object decides atomically, the KV marker
 * records it, and both are kept longer than a delivery of the comment is
 * accepted at all (the window: stale-delivery.test.ts).
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CLAIM_RETENTION_MS, claimName, type ClaimRecord } from "../src/comment-claim";
import { DELIVERY_WINDOW_MS, MAX_CLOCK_SKEW_MS } from "../src/freshness";
import { MARKER_TTL_SECONDS } from "../src/http/accepted";
import { githubServer } from "./support/github";
import { commentPayload, dispatchesFor, marker, outcome, send, sign } from "./support/ingress";

const github = githubServer();

const REDELIVERIES = 100;

describe("dedup", () => {
  it(`dispatches once for ${REDELIVERIES} concurrent deliveries of one comment`, async () => {
    github.use();
    const { calls, minted } = github;
    // The commenter has mentioned the bot before, so their permission is kept and no delivery asks GitHub before answering.
    expect(outcome(await send(await sign(commentPayload())))).toBe("accepted");
    calls.length = 0;
    minted.length = 0;
    const payload = commentPayload();
    // Redeliveries carry the same body and signature under new delivery ids.
    const deliveries = await Promise.all(Array.from({ length: REDELIVERIES }, () => sign(payload)));
    const responses = await Promise.all(deliveries.map((delivery) => send(delivery)));

    const outcomes = responses.map(outcome);
    expect(outcomes.filter((value) => value === "accepted")).toHaveLength(1);
    expect(outcomes.filter((value) => value === "ignored:duplicate")).toHaveLength(REDELIVERIES - 1);
    expect(dispatchesFor(payload.comment.id)).toHaveLength(1);
    expect(minted).toHaveLength(1);
    expect(calls.filter((call) => call.path.endsWith("/reactions"))).toHaveLength(1);
    const winner = deliveries[outcomes.indexOf("accepted")]!.headers["x-github-delivery"];
    expect(await marker(payload.comment.id)).toMatchObject({ state: "dispatched", deliveryId: winner });
  });

  it("keeps different comments apart: concurrent deliveries of distinct comments all dispatch", async () => {
    github.use();
    const payloads = Array.from({ length: 20 }, () => commentPayload());
    const responses = await Promise.all(payloads.map(async (payload) => send(await sign(payload))));
    expect(responses.map(outcome)).toEqual(payloads.map(() => "accepted"));
    for (const payload of payloads) expect(dispatchesFor(payload.comment.id)).toHaveLength(1);
  });

  it("keeps a claim and its marker longer than any delivery of the comment is accepted (freshness.ts)", () => {
    // Claimed at the earliest when the comment's time is MAX_CLOCK_SKEW_MS ahead of ours; accepted at the latest DELIVERY_WINDOW_MS after it.
    const lastAcceptedAfterClaim = DELIVERY_WINDOW_MS + MAX_CLOCK_SKEW_MS;
    expect(CLAIM_RETENTION_MS).toBeGreaterThan(lastAcceptedAfterClaim);
    expect(MARKER_TTL_SECONDS * 1000).toBeGreaterThan(lastAcceptedAfterClaim);
  });

  it("forgets a claim after its retention, through the object's alarm", async () => {
    const stub = env.COMMENT_CLAIMS.getByName(claimName({ kind: "comment", id: 4242 }));
    expect(await stub.claim("first")).toBe(true);
    expect(await stub.claim("second")).toBe(false);
    const alarm = await runInDurableObject(stub, async (_instance, state) => {
      const record = state.storage.kv.get<ClaimRecord>("claim");
      return { at: await state.storage.getAlarm(), claimedAt: record?.claimedAt ?? 0 };
    });
    expect(alarm.at).toBe(alarm.claimedAt + CLAIM_RETENTION_MS);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.claim("after retention")).toBe(true);
  });
});
