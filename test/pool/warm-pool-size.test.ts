/**
 * WARM_POOL_SIZE on the real WarmPool Durable Object, with a recording fleet
 * behind the real ContainerFleet interface: at 0 the cron's prime warms
 * nothing, a claim gets a fresh container that its backend starts on demand
 * and nothing replaces it, a warm container left from size 1 is stopped; a
 * value that does not parse keeps one warm and each prime logs why.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { poolOwner } from "../../src/pool/pool-types";
import { LOG_PREFIX } from "../../src/run/log";
import type { WarmPool } from "../../src/warm-pool";
import { captureConsole, eventually } from "../helpers";
import { RecordingFleet } from "./fakes";
import { poolWithFleet } from "./seams";

const owner = () => poolOwner(`acme-size${crypto.randomUUID().slice(0, 8)}-1`, crypto.randomUUID());

async function sized(pool: DurableObjectStub<WarmPool>, size: string) {
  await runInDurableObject(pool, (instance: WarmPool) => {
    (instance as unknown as { poolSize: () => string | undefined }).poolSize = () => size;
  });
}

describe("WARM_POOL_SIZE", () => {
  it("0: primes nothing, hands out a fresh container per claim and replaces none", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    await sized(pool, "0");
    expect(await pool.prime()).toEqual({ warm: 0, assigned: 0, total: 0, retiring: 0, target: 0 });
    expect(fleet.calls).toEqual([]);

    const me = owner();
    const claim = await pool.claim(me);
    expect(claim.reused).toBe(false);
    // The claimer's own backend starts it: the pool warms nothing, before or after.
    expect(await pool.stats()).toEqual({ warm: 0, assigned: 1, total: 1, retiring: 0, target: 0 });
    expect(await pool.release(me)).toEqual({ released: true, sandboxId: claim.sandboxId });
    await eventually(() => expect(fleet.stopped()).toEqual([claim.sandboxId]));
    expect(fleet.warmed()).toEqual([]);
    expect(await pool.prime()).toMatchObject({ warm: 0, total: 0, target: 0 });
    expect(fleet.warmed()).toEqual([]);
  });

  it("going from 1 to 0 stops the warm container on the next prime", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    expect(await pool.prime()).toMatchObject({ warm: 1, target: 1 });
    const [warm] = fleet.warmed();
    await sized(pool, "0");
    expect(await pool.prime()).toEqual({ warm: 0, assigned: 0, total: 0, retiring: 0, target: 0 });
    expect(fleet.stopped()).toEqual([warm]);
    // And back to 1: the next prime warms a new one.
    await sized(pool, "1");
    expect(await pool.prime()).toMatchObject({ warm: 1, target: 1 });
    expect(fleet.warmed()).toHaveLength(2);
  });

  it("a value that does not parse keeps the default of one warm and says so on every prime", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    await sized(pool, "2");
    const { result, lines } = await captureConsole(() => pool.prime());
    expect(result).toMatchObject({ warm: 1, target: 1 });
    const config = lines
      .filter((line) => line.startsWith(LOG_PREFIX))
      .map((line) => JSON.parse(line.slice(LOG_PREFIX.length)) as Record<string, unknown>)
      .find((line) => line.event === "pool:config");
    expect(config).toMatchObject({ error: 'WARM_POOL_SIZE must be 0 (no warm container) or 1 (one kept warm); got "2"', size: 1 });
  });
});
