import { describe, expect, it } from "vitest";
import {
  MAX_OWNER_UNREACHABLE,
  MAX_WARM_ATTEMPTS,
  PoolBook,
  POOL_STATE_KEY,
  RECLAIM_GRACE_MS,
  STOP_RETRY_MAX_MS,
  stopRetryDelayMs,
  type PoolState
} from "../../src/pool/pool-book";
import { MemoryStore } from "../pool/fakes";

const MINUTE = 60_000;
const LIFETIME_MS = 4 * 60 * MINUTE;

function book(maxLifetimeMs = LIFETIME_MS) {
  let n = 0;
  let clock = 1_000;
  const store = new MemoryStore();
  const pool = new PoolBook(store, { now: () => clock, createId: () => `sb-${++n}`, maxLifetimeMs });
  return { pool, store, advance: (ms: number) => void (clock += ms), now: () => clock };
}

const idle = () => false;

describe("PoolBook", () => {
  it("starts empty and fills the warm slot on prime", () => {
    const { pool } = book();
    expect(pool.stats()).toEqual({ warm: 0, assigned: 0, total: 0, retiring: 0, target: 1 });
    expect(pool.prime(idle)).toEqual({ warm: ["sb-1"], stop: [] });
    expect(pool.snapshot().warm).toMatchObject({ sandboxId: "sb-1", status: "starting" });
    expect(pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, retiring: 0, target: 1 });
  });

  it("hands out the warm Sandbox and starts its replacement in the same transition", () => {
    const { pool, store } = book();
    pool.prime(idle);
    pool.warmSucceeded("sb-1");
    const claim = pool.claim("s:1");
    expect(claim.result).toEqual({ sandboxId: "sb-1", reused: false });
    expect(claim.source).toBe("warm");
    expect(claim.effects).toEqual({ warm: ["sb-2"], stop: [] });
    // Bookkeeping is persisted by the claim itself.
    const stored = store.get<PoolState>(POOL_STATE_KEY)!;
    expect(stored.assigned["s:1"]?.sandboxId).toBe("sb-1");
    expect(stored.warm?.sandboxId).toBe("sb-2");
    expect(pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, retiring: 0, target: 1 });
  });

  it("hands out a warm Sandbox that is still starting", () => {
    const { pool } = book();
    pool.prime(idle);
    const claim = pool.claim("s:1");
    expect(claim).toMatchObject({ result: { sandboxId: "sb-1", reused: false }, source: "starting" });
    // The late warm() result for sb-1 no longer touches the slot.
    expect(pool.warmSucceeded("sb-1")).toBe(false);
    expect(pool.snapshot().warm).toMatchObject({ sandboxId: "sb-2", status: "starting" });
  });

  it("creates a Sandbox when the pool was never primed", () => {
    const { pool } = book();
    const claim = pool.claim("s:1");
    expect(claim).toMatchObject({ result: { sandboxId: "sb-1", reused: false }, source: "fresh" });
    // The claimer's backend starts sb-1 itself; only the new warm slot is warmed.
    expect(claim.effects).toEqual({ warm: ["sb-2"], stop: [] });
  });

  it("never gives two owners the same Sandbox", () => {
    const { pool } = book();
    pool.prime(idle);
    const ids = Array.from({ length: 20 }, (_, i) => pool.claim(`s:${i}`).result.sandboxId);
    expect(new Set(ids).size).toBe(20);
    expect(ids).not.toContain(pool.snapshot().warm?.sandboxId);
    expect(pool.stats()).toEqual({ warm: 1, assigned: 20, total: 21, retiring: 0, target: 1 });
  });

  it("is idempotent per owner", () => {
    const { pool } = book();
    pool.prime(idle);
    const first = pool.claim("s:1");
    const again = pool.claim("s:1");
    expect(again.result).toEqual({ sandboxId: first.result.sandboxId, reused: true });
    expect(again.source).toBe("reused");
    expect(again.effects).toEqual({ warm: [], stop: [] });
    expect(pool.stats().assigned).toBe(1);
  });

  it("releases an owner's Sandbox for stopping and keeps the warm slot", () => {
    const { pool } = book();
    pool.prime(idle);
    const { result } = pool.claim("s:1");
    const release = pool.release("s:1");
    expect(release.result).toEqual({ released: true, sandboxId: result.sandboxId });
    expect(release.effects).toEqual({ warm: [], stop: [result.sandboxId] });
    expect(pool.snapshot().retiring[result.sandboxId]).toMatchObject({ reason: "released", failures: 0 });
    expect(pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, retiring: 1, target: 1 });
    pool.stopSucceeded(result.sandboxId);
    expect(pool.snapshot().retiring).toEqual({});
    // A released Sandbox is never handed out again, even to the same owner.
    expect(pool.claim("s:1").result.sandboxId).not.toBe(result.sandboxId);
  });

  it("treats releasing an unknown owner as a no-op", () => {
    const { pool } = book();
    pool.prime(idle);
    const before = pool.snapshot();
    expect(pool.release("nobody")).toEqual({ result: { released: false }, effects: { warm: [], stop: [] } });
    expect(pool.snapshot()).toEqual(before);
  });

  it("marks a failed warm, never hands it out, and retries it on prime", () => {
    const { pool } = book();
    pool.prime(idle);
    expect(pool.warmFailed("sb-1", "boom")).toBe(true);
    expect(pool.stats().warm).toBe(0);
    expect(pool.snapshot().warm).toMatchObject({ status: "failed", failures: 1, error: "boom" });
    // Prime retries the same Sandbox.
    expect(pool.prime(idle)).toEqual({ warm: ["sb-1"], stop: [] });
    expect(pool.snapshot().warm).toMatchObject({ sandboxId: "sb-1", status: "starting", failures: 1 });
    pool.warmSucceeded("sb-1");
    expect(pool.snapshot().warm).toMatchObject({ status: "ready", failures: 0 });
  });

  it("gives a claimer a fresh Sandbox instead of a failed warm one, and stops the failed one", () => {
    const { pool } = book();
    pool.prime(idle);
    pool.warmFailed("sb-1", "boom");
    const claim = pool.claim("s:1");
    expect(claim).toMatchObject({ result: { sandboxId: "sb-2", reused: false }, source: "fresh" });
    expect(claim.effects).toEqual({ warm: ["sb-3"], stop: ["sb-1"] });
  });

  it(`replaces a warm Sandbox after ${MAX_WARM_ATTEMPTS} failed warms`, () => {
    const { pool } = book();
    pool.prime(idle);
    for (let i = 1; i < MAX_WARM_ATTEMPTS; i++) {
      pool.warmFailed("sb-1", "boom");
      expect(pool.prime(idle).warm).toEqual(["sb-1"]);
    }
    pool.warmFailed("sb-1", "boom");
    expect(pool.prime(idle)).toEqual({ warm: ["sb-2"], stop: ["sb-1"] });
  });

  it("re-warms an orphaned starting slot and checks a ready one, unless a call is in flight", () => {
    const { pool } = book();
    pool.prime(idle);
    // A warm issued by an isolate that was evicted: nothing in flight now.
    expect(pool.prime(idle).warm).toEqual(["sb-1"]);
    expect(pool.prime((id) => id === "sb-1").warm).toEqual([]);
    pool.warmSucceeded("sb-1");
    expect(pool.prime(idle).warm).toEqual(["sb-1"]);
  });

  it("keeps a failed stop retiring forever, retrying after min(2^failures minutes, 60 minutes)", () => {
    // A long lifetime, so the warm slot does not age out over these hours.
    const { pool, advance } = book(24 * 60 * MINUTE);
    pool.prime(idle);
    const { sandboxId } = pool.claim("s:1").result;
    pool.release("s:1");
    for (let failures = 1; failures <= 10; failures++) {
      const delay = stopRetryDelayMs(failures);
      expect(delay).toBe(Math.min(2 ** failures * MINUTE, 60 * MINUTE));
      expect(pool.stopFailed(sandboxId, "nope")).toMatchObject({ failures, reason: "released" });
      expect(pool.snapshot().retiring[sandboxId]).toMatchObject({ failures, error: "nope" });
      // Not before its time...
      advance(delay - 1);
      expect(pool.prime(idle).stop).toEqual([]);
      // ...then once, and not while that attempt is in flight.
      advance(1);
      expect(pool.prime((id) => id === sandboxId).stop).toEqual([]);
      expect(pool.prime(idle).stop).toEqual([sandboxId]);
      expect(pool.stats().retiring).toBe(1);
    }
    expect(stopRetryDelayMs(1_000)).toBe(STOP_RETRY_MAX_MS);
    expect(pool.stopSucceeded(sandboxId)).toEqual({ reason: "released" });
    expect(pool.snapshot().retiring).toEqual({});
    expect(pool.stats().retiring).toBe(0);
  });

  it("replaces a warm Sandbox past half the container lifetime, so a claimer gets at least half", () => {
    const { pool, advance } = book(60 * MINUTE);
    pool.prime(idle);
    advance(10 * MINUTE);
    pool.warmSucceeded("sb-1");
    advance(19 * MINUTE);
    expect(pool.prime(idle)).toEqual({ warm: ["sb-1"], stop: [] }); // 29 minutes old: a liveness check
    advance(MINUTE);
    expect(pool.prime(idle)).toEqual({ warm: ["sb-2"], stop: ["sb-1"] });
    expect(pool.snapshot().retiring["sb-1"]).toMatchObject({ reason: "warm-expired" });
    expect(pool.snapshot().warm).toMatchObject({ sandboxId: "sb-2", status: "starting" });
  });

  it("checks an assignment with its owner only after the grace period", () => {
    const { pool, advance } = book();
    pool.prime(idle);
    pool.claim("s:1");
    advance(RECLAIM_GRACE_MS - 1);
    pool.claim("s:2");
    expect(pool.reclaimCandidates()).toEqual([]);
    advance(1);
    expect(pool.reclaimCandidates()).toEqual([{ owner: "s:1", sandboxId: "sb-1" }]);
  });

  it("reclaims an assignment whose owner no longer holds it, exactly as a release", () => {
    const { pool } = book();
    pool.prime(idle);
    pool.claim("s:1");
    const outcome = pool.ownerAnswered("s:1", "sb-1", { holds: false });
    expect(outcome).toEqual({ verdict: "reclaimed", reason: "turn-over", failures: 0, effects: { warm: [], stop: ["sb-1"] } });
    expect(pool.snapshot().assigned).toEqual({});
    expect(pool.snapshot().retiring["sb-1"]).toMatchObject({ reason: "reclaimed" });
    expect(pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, retiring: 1, target: 1 });
  });

  it("keeps an assignment its owner holds, and ignores an answer about a Sandbox it no longer has", () => {
    const { pool } = book();
    pool.prime(idle);
    pool.claim("s:1");
    expect(pool.ownerAnswered("s:1", "sb-1", { holds: true })).toMatchObject({ verdict: "kept", effects: { stop: [] } });
    // Released (and claimed again) while the question was out: the old answer changes nothing.
    pool.release("s:1");
    const again = pool.claim("s:1").result.sandboxId;
    expect(pool.ownerAnswered("s:1", "sb-1", { holds: false })).toMatchObject({ verdict: "stale", effects: { stop: [] } });
    expect(pool.snapshot().assigned["s:1"]?.sandboxId).toBe(again);
  });

  it(`stops an unreachable owner's Sandbox after ${MAX_OWNER_UNREACHABLE} failures in a row; an answer starts the count over`, () => {
    const { pool } = book();
    pool.prime(idle);
    pool.claim("s:1");
    for (let failures = 1; failures < MAX_OWNER_UNREACHABLE; failures++) {
      expect(pool.ownerAnswered("s:1", "sb-1", { unreachable: "reset" })).toMatchObject({ verdict: "unreachable", failures });
    }
    expect(pool.snapshot().assigned["s:1"]).toMatchObject({ unreachable: MAX_OWNER_UNREACHABLE - 1, error: "reset" });
    pool.ownerAnswered("s:1", "sb-1", { holds: true });
    expect(pool.snapshot().assigned["s:1"]).toEqual({ sandboxId: "sb-1", claimedAt: expect.any(Number) });
    for (let failures = 1; failures < MAX_OWNER_UNREACHABLE; failures++) pool.ownerAnswered("s:1", "sb-1", { unreachable: "reset" });
    expect(pool.ownerAnswered("s:1", "sb-1", { unreachable: "reset" })).toMatchObject({
      verdict: "reclaimed",
      reason: "unreachable",
      failures: MAX_OWNER_UNREACHABLE,
      effects: { stop: ["sb-1"] }
    });
    expect(pool.snapshot().assigned).toEqual({});
  });

  it("stops an unreachable owner's Sandbox at once when the assignment outlived the container lifetime", () => {
    const { pool, advance } = book();
    pool.prime(idle);
    pool.claim("s:1");
    advance(LIFETIME_MS - 1);
    expect(pool.ownerAnswered("s:1", "sb-1", { unreachable: "timeout" })).toMatchObject({ verdict: "unreachable", failures: 1 });
    advance(1);
    expect(pool.ownerAnswered("s:1", "sb-1", { unreachable: "timeout" })).toMatchObject({
      verdict: "reclaimed",
      reason: "lifetime",
      effects: { stop: ["sb-1"] }
    });
  });
});
