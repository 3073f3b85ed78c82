/**
 * The WarmPool Durable Object with real storage and a recording fleet behind
 * the real ContainerFleet interface. Each test has its own pool (fresh name).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { CONTAINERS_UNAVAILABLE_MESSAGE } from "../../src/pool/errors";
import { sandboxFleet } from "../../src/pool/fleet";
import { poolOwner } from "../../src/pool/pool-types";
import { primeWarmPool, warmPool, WARM_POOL_NAME } from "../../src/warm-pool";
import { LOG_PREFIX } from "../../src/run/log";
import { captureConsole } from "../helpers";
import { RecordingFleet } from "./fakes";
import { poolWithFleet, rejectionOf } from "./seams";

const owner = () => poolOwner(`acme-r${crypto.randomUUID().slice(0, 8)}-1`, crypto.randomUUID());

describe("WarmPool", () => {
  it("claim → replace → release", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    expect(await pool.prime()).toEqual({ warm: 1, assigned: 0, total: 1, target: 1 });
    const [warm] = fleet.warmed();

    const me = owner();
    expect(await pool.claim(me)).toEqual({ sandboxId: warm, reused: false });
    await vi.waitFor(() => expect(fleet.warmed()).toHaveLength(2));
    const replacement = fleet.warmed()[1];
    expect(replacement).not.toBe(warm);
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, target: 1 });

    expect(await pool.release(me)).toEqual({ released: true, sandboxId: warm });
    await vi.waitFor(() => expect(fleet.stopped()).toEqual([warm]));
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, target: 1 });
    // The next claim gets the replacement, never the released one.
    expect(await pool.claim(owner())).toEqual({ sandboxId: replacement, reused: false });
  });

  it("gives 20 concurrent claims 20 distinct containers and ends with exactly one warm", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    await pool.prime();
    const owners = Array.from({ length: 20 }, owner);
    const claims = await Promise.all(owners.map((o) => pool.claim(o)));
    const ids = claims.map((claim) => claim.sandboxId);
    expect(new Set(ids).size).toBe(20);
    expect(claims.every((claim) => !claim.reused)).toBe(true);
    await vi.waitFor(() => expect(fleet.warmed()).toHaveLength(21));
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 20, total: 21, target: 1 });
    // The one warm container is the last replacement, held by nobody.
    const [warm] = fleet.warmed().filter((id) => !ids.includes(id));
    expect(fleet.warmed().filter((id) => !ids.includes(id))).toEqual([warm]);

    const releases = await Promise.all(owners.map((o) => pool.release(o)));
    expect(releases.map((release) => release.sandboxId)).toEqual(ids);
    await vi.waitFor(() => expect(fleet.stopped()).toHaveLength(20));
    expect(new Set(fleet.stopped())).toEqual(new Set(ids));
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, target: 1 });
    expect(await pool.claim(owner())).toEqual({ sandboxId: warm, reused: false });
  });

  it("gives the same owner the same container again", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    await pool.prime();
    const me = owner();
    const first = await pool.claim(me);
    await vi.waitFor(() => expect(fleet.warmed()).toHaveLength(2));
    expect(await pool.claim(me)).toEqual({ sandboxId: first.sandboxId, reused: true });
    expect(fleet.warmed()).toHaveLength(2);
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, target: 1 });
  });

  it("hands out the warm container while it is still starting, without waiting", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    fleet.hold();
    const priming = pool.prime();
    await vi.waitFor(() => expect(fleet.warmed()).toHaveLength(1));
    const [starting] = fleet.warmed();
    expect(await pool.claim(owner())).toEqual({ sandboxId: starting, reused: false });
    expect(fleet.pending).toBe(2); // the claimed one and its replacement, both still warming
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, target: 1 });
    fleet.releaseHeld();
    expect(await priming).toEqual({ warm: 1, assigned: 1, total: 2, target: 1 });
  });

  it("assigns a container at once when the pool was never primed", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    const claim = await pool.claim(owner());
    expect(claim.reused).toBe(false);
    // The claimer's backend starts its container; the pool warms only the slot.
    await vi.waitFor(() => expect(fleet.warmed()).toHaveLength(1));
    expect(fleet.warmed()).not.toContain(claim.sandboxId);
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, target: 1 });
  });

  it("releases by owner after a turn's error or cancel, and ignores unknown or repeated releases", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    await pool.prime();
    const failed = owner();
    const cancelled = owner();
    const a = await pool.claim(failed);
    const b = await pool.claim(cancelled);
    expect(await pool.release(failed)).toEqual({ released: true, sandboxId: a.sandboxId });
    expect(await pool.release(cancelled)).toEqual({ released: true, sandboxId: b.sandboxId });
    expect(await pool.release(failed)).toEqual({ released: false });
    expect(await pool.release(owner())).toEqual({ released: false });
    await vi.waitFor(() => expect(fleet.stopped()).toHaveLength(2));
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, target: 1 });
  });

  it("logs a failed warm, never hands the failed container out, and retries on prime", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    fleet.failAllWarms = true;
    const { result, lines } = await captureConsole(() => pool.prime());
    expect(result).toEqual({ warm: 0, assigned: 0, total: 0, target: 1 });
    const [failedId] = fleet.warmed();
    expect(lines.some((line) => line.startsWith(LOG_PREFIX) && line.includes('"event":"pool:warm"') && line.includes('"outcome":"failed"'))).toBe(true);

    fleet.failAllWarms = false;
    const claim = await pool.claim(owner());
    expect(claim.sandboxId).not.toBe(failedId);
    await vi.waitFor(() => expect(fleet.stopped()).toEqual([failedId]));
    await vi.waitFor(async () => expect(await pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, target: 1 }));
  });

  it("fails claims fast where containers are disabled, and primes nothing", async () => {
    const pool = warmPool(env, `test-${crypto.randomUUID()}`);
    expect((await rejectionOf(() => pool.claim(owner()))).message).toBe(CONTAINERS_UNAVAILABLE_MESSAGE);
    expect(await pool.prime()).toEqual({ warm: 0, assigned: 0, total: 0, target: 1 });
    expect(await pool.release(owner())).toEqual({ released: false });
    expect(await primeWarmPool(env)).toBeNull();
    expect(WARM_POOL_NAME).toBe("main");
  });

  it("drives real Sandbox objects through the real fleet (which fail fast here)", async () => {
    const pool = await poolWithFleet(sandboxFleet(env.Sandbox));
    const { result, lines } = await captureConsole(() => pool.prime());
    expect(result).toEqual({ warm: 0, assigned: 0, total: 0, target: 1 });
    const warmLine = lines.find((line) => line.includes('"event":"pool:warm"'));
    expect(warmLine).toContain(CONTAINERS_UNAVAILABLE_MESSAGE);
  });
});
