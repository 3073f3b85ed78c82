/**
 * CommentClaim: the atomic "first delivery of this comment wins", one tiny
 * Durable Object per comment, review comment or review, whose read and
 * write happen in one synchronous step (a KV marker cannot: two concurrent
 * redeliveries would both read "not handled"). A claim is forgotten after
 * CLAIM_RETENTION_MS, which outlives every delivery the webhook could still
 * accept (dedup.test.ts holds it to that); a claim may name its own
 * retention, a pull request's CI follow-ups share one, and a claim naming
 * no comment can be released. docs/ingress.md, "Exactly one run per comment".
 */
import { DurableObject } from "cloudflare:workers";

export const CLAIM_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const CLAIM_KEY = "claim";

export type ClaimRecord = { deliveryId: string; claimedAt: number };

const CI_HEADS_KEY = "ci-heads";
/** One head of a pull request a CI follow-up was started for. */
export type CiHeadRecord = { headSha: string; deliveryId: string; claimedAt: number };
export type CiFixClaim = { ok: true; count: number } | { ok: false; reason: "duplicate" | "limit"; count: number };

/** `comment:<id>`, `review-comment:<id>` or `review:<id>` (trigger.ts): the three kinds' ids are not promised distinct. */
export { claimName } from "./trigger";

export class CommentClaim extends DurableObject<Env> {
  /** True for the first claim of this comment; false for every later one. Kept `retentionMs` (a positive whole number of ms). */
  async claim(deliveryId: string, retentionMs: number = CLAIM_RETENTION_MS): Promise<boolean> {
    if (!Number.isSafeInteger(retentionMs) || retentionMs <= 0) throw new TypeError(`retentionMs must be a positive whole number of milliseconds; got ${String(retentionMs)}`);
    const { storage } = this.ctx;
    if (storage.kv.get<ClaimRecord>(CLAIM_KEY) !== undefined) return false;
    const claimedAt = Date.now();
    storage.kv.put<ClaimRecord>(CLAIM_KEY, { deliveryId, claimedAt });
    // After the claim is taken: awaiting here cannot let a second claim in first.
    await storage.setAlarm(claimedAt + retentionMs);
    return true;
  }

  /**
   * Gives the claim back if `holder` (what it was claimed with) still holds
   * it: true then, false if another holds it or none. Read and delete in one
   * synchronous step, as `claim` is; the alarm stays, and a later claim
   * moves it.
   */
  async release(holder: string): Promise<boolean> {
    const { storage } = this.ctx;
    const record = storage.kv.get<ClaimRecord>(CLAIM_KEY);
    if (record === undefined || record.deliveryId !== holder) return false;
    storage.kv.delete(CLAIM_KEY);
    return true;
  }

  /**
   * A CI follow-up's claim, on the pull request's own object
   * (`ci-fix:<owner>/<name>#<n>`): the first for `headSha` wins (a check
   * suite and a workflow run for one head start one run), and only while
   * the pull request has had fewer than `limit` follow-ups, whatever their
   * heads. Read and write in one synchronous step, as `claim` is. Kept
   * CLAIM_RETENTION_MS after the latest.
   */
  async claimCiFix(headSha: string, deliveryId: string, limit: number): Promise<CiFixClaim> {
    if (!Number.isSafeInteger(limit) || limit < 0) throw new TypeError(`limit must be a whole number; got ${String(limit)}`);
    const { storage } = this.ctx;
    const heads = storage.kv.get<CiHeadRecord[]>(CI_HEADS_KEY) ?? [];
    if (heads.some((head) => head.headSha === headSha)) return { ok: false, reason: "duplicate", count: heads.length };
    if (heads.length >= limit) return { ok: false, reason: "limit", count: heads.length };
    const claimedAt = Date.now();
    storage.kv.put<CiHeadRecord[]>(CI_HEADS_KEY, [...heads, { headSha, deliveryId, claimedAt }]);
    await storage.setAlarm(claimedAt + CLAIM_RETENTION_MS);
    return { ok: true, count: heads.length + 1 };
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
