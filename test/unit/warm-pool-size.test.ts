import { describe, expect, it } from "vitest";
import { PoolBook } from "../../src/pool/pool-book";
import { WarmPoolManager } from "../../src/pool/warm-pool-manager";
import { parseWarmPoolSize } from "../../src/pool/warm-pool-size";
import { MemoryStore, RecordingFleet } from "../pool/fakes";

describe("parseWarmPoolSize", () => {
  it("takes 0 and 1, and blank as the default of 1", () => {
    expect(parseWarmPoolSize("0")).toEqual({ ok: true, size: 0 });
    expect(parseWarmPoolSize(" 1 ")).toEqual({ ok: true, size: 1 });
    expect(parseWarmPoolSize("")).toEqual({ ok: true, size: 1 });
    expect(parseWarmPoolSize(undefined)).toEqual({ ok: true, size: 1 });
  });

  it("refuses anything else, naming the variable and the value", () => {
    for (const bad of ["2", "-1", "one", "0.5", "01x"]) {
      expect(parseWarmPoolSize(bad)).toEqual({
        ok: false,
        error: `WARM_POOL_SIZE must be 0 (no warm container) or 1 (one kept warm); got ${JSON.stringify(bad)}`
      });
    }
  });
});

function book(target: { value: number }) {
  let n = 0;
  return new PoolBook(new MemoryStore(), { now: () => 1_000, createId: () => `sb-${++n}`, maxLifetimeMs: 4 * 3_600_000, warmTarget: () => target.value });
}

describe("PoolBook with a warm target of 0", () => {
  it("fills nothing on prime, claim or release", () => {
    const pool = book({ value: 0 });
    expect(pool.prime(() => false)).toEqual({ warm: [], stop: [] });
    const claim = pool.claim("s:1");
    expect(claim).toMatchObject({ source: "fresh", effects: { warm: [], stop: [] } });
    expect(pool.release("s:1").effects).toEqual({ warm: [], stop: [claim.result.sandboxId] });
    expect(pool.stats()).toEqual({ warm: 0, assigned: 0, total: 0, retiring: 1, target: 0 });
  });

  it("stops a warm slot left from a target of 1, unless a call for it is in flight", () => {
    const target = { value: 1 };
    const pool = book(target);
    pool.prime(() => false);
    target.value = 0;
    expect(pool.prime(() => true)).toEqual({ warm: [], stop: [] });
    expect(pool.prime(() => false)).toEqual({ warm: [], stop: ["sb-1"] });
    expect(pool.snapshot()).toMatchObject({ warm: null, retiring: { "sb-1": { reason: "warm-unwanted" } } });
  });
});

describe("WarmPoolManager and WARM_POOL_SIZE", () => {
  it("logs a size that does not parse on each prime and keeps the default", async () => {
    const lines: Array<[string, Record<string, unknown>]> = [];
    let n = 0;
    const fleet = new RecordingFleet();
    const manager = new WarmPoolManager({
      store: new MemoryStore(),
      fleet: () => fleet,
      owners: { holds: async () => true },
      maxLifetimeMs: 4 * 3_600_000,
      log: (event, fields = {}) => void lines.push([event, fields]),
      now: () => 1_000,
      createId: () => `sb-${++n}`,
      background: () => {},
      size: () => parseWarmPoolSize("three")
    });
    expect(await manager.prime()).toMatchObject({ warm: 1, target: 1 });
    expect(lines.find(([event]) => event === "pool:config")?.[1]).toEqual({
      error: 'WARM_POOL_SIZE must be 0 (no warm container) or 1 (one kept warm); got "three"',
      size: 1
    });
  });
});
