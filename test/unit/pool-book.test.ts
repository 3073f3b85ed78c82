import { describe, expect, it } from "vitest";
import { MAX_STOP_ATTEMPTS, MAX_WARM_ATTEMPTS, PoolBook, POOL_STATE_KEY, type PoolState } from "../../src/pool/pool-book";
import { MemoryStore } from "../pool/fakes";

function book() {
  let n = 0;
  let clock = 1_000;
  const store = new MemoryStore();
  const pool = new PoolBook(store, { now: () => clock++, createId: () => `sb-${++n}` });
  return { pool, store };
}

const idle = () => false;

describe("PoolBook", () => {
  it("starts empty and fills the warm slot on prime", () => {
    const { pool } = book();
    expect(pool.stats()).toEqual({ warm: 0, assigned: 0, total: 0, target: 1 });
    expect(pool.prime(idle)).toEqual({ warm: ["sb-1"], stop: [] });
    expect(pool.snapshot().warm).toMatchObject({ sandboxId: "sb-1", status: "starting" });
    expect(pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, target: 1 });
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
    expect(pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, target: 1 });
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
    expect(pool.stats()).toEqual({ warm: 1, assigned: 20, total: 21, target: 1 });
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
    expect(pool.snapshot().retiring[result.sandboxId]).toBeDefined();
    expect(pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, target: 1 });
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

  it(`retries failed stops on prime and gives up after ${MAX_STOP_ATTEMPTS}`, () => {
    const { pool } = book();
    pool.prime(idle);
    const { sandboxId } = pool.claim("s:1").result;
    pool.release("s:1");
    for (let i = 1; i < MAX_STOP_ATTEMPTS; i++) {
      expect(pool.stopFailed(sandboxId, "nope")).toEqual({ abandoned: false, failures: i });
      expect(pool.prime(idle).stop).toEqual([sandboxId]);
    }
    expect(pool.stopFailed(sandboxId, "nope")).toEqual({ abandoned: true, failures: MAX_STOP_ATTEMPTS });
    expect(pool.prime(idle).stop).toEqual([]);
  });
});
