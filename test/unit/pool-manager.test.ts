import { describe, expect, it } from "vitest";
import { CONTAINERS_UNAVAILABLE_MESSAGE } from "../../src/pool/errors";
import { MAX_OWNER_LENGTH, WarmPoolManager } from "../../src/pool/warm-pool-manager";
import type { ContainerFleet } from "../../src/pool/fleet";
import { MemoryStore, RecordingFleet } from "../pool/fakes";

function manager(fleet: ContainerFleet | null = new RecordingFleet()) {
  let n = 0;
  const lines: Array<{ event: string; [key: string]: unknown }> = [];
  const background: Promise<unknown>[] = [];
  const store = new MemoryStore();
  const pool = new WarmPoolManager({
    store,
    fleet: () => fleet,
    log: (event, fields = {}) => void lines.push({ event, ...fields }),
    now: () => 0,
    createId: () => `sb-${++n}`,
    background: (work) => void background.push(work)
  });
  return { pool, lines, background, store };
}

describe("WarmPoolManager", () => {
  it("claim → replace → release", async () => {
    const fleet = new RecordingFleet();
    const { pool, lines } = manager(fleet);
    expect(await pool.prime()).toEqual({ warm: 1, assigned: 0, total: 1, target: 1 });
    expect(fleet.warmed()).toEqual(["sb-1"]);

    expect(pool.claim("s:1")).toEqual({ sandboxId: "sb-1", reused: false });
    await pool.idle();
    expect(fleet.warmed()).toEqual(["sb-1", "sb-2"]);
    expect(pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, target: 1 });

    expect(pool.release("s:1")).toEqual({ released: true, sandboxId: "sb-1" });
    await pool.idle();
    expect(fleet.stopped()).toEqual(["sb-1"]);
    expect(pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, target: 1 });
    expect(pool.snapshot().retiring).toEqual({});
    expect(lines.map((line) => line.event)).toEqual(["pool:warm", "pool:claim", "pool:warm", "pool:release", "pool:stop"]);
  });

  it("returns a claim without waiting for the replacement to warm", async () => {
    const fleet = new RecordingFleet();
    const { pool, background } = manager(fleet);
    await pool.prime();
    fleet.hold();
    const claim = pool.claim("s:1");
    expect(claim).toEqual({ sandboxId: "sb-1", reused: false });
    expect(fleet.pending).toBe(1);
    expect(background).toHaveLength(2);
    fleet.releaseHeld();
    await pool.idle();
    expect(pool.snapshot().warm).toMatchObject({ sandboxId: "sb-2", status: "ready" });
  });

  it("runs a stop issued during that Sandbox's warm after the warm", async () => {
    const fleet = new RecordingFleet();
    const { pool } = manager(fleet);
    fleet.hold();
    void pool.prime();
    expect(pool.claim("s:1").sandboxId).toBe("sb-1");
    pool.release("s:1");
    // sb-1's warm is still held, so its stop has not been issued yet.
    expect(fleet.stopped()).toEqual([]);
    fleet.releaseHeld();
    await pool.idle();
    const sb1 = fleet.calls.filter((call) => call.sandboxId === "sb-1").map((call) => call.op);
    expect(sb1).toEqual(["warm", "stop"]);
  });

  it("logs a failed warm and retries it on the next prime", async () => {
    const fleet = new RecordingFleet();
    const { pool, lines } = manager(fleet);
    fleet.failAllWarms = true;
    expect(await pool.prime()).toMatchObject({ warm: 0 });
    expect(lines.at(-1)).toMatchObject({ event: "pool:warm", sandboxId: "sb-1", outcome: "failed", error: "fake: warm sb-1 failed" });
    fleet.failAllWarms = false;
    expect(await pool.prime()).toMatchObject({ warm: 1 });
    expect(fleet.warmed()).toEqual(["sb-1", "sb-1"]);
  });

  it("logs a failed stop and retries it on the next prime", async () => {
    const fleet = new RecordingFleet();
    const { pool, lines } = manager(fleet);
    await pool.prime();
    pool.claim("s:1");
    fleet.failStop.add("sb-1");
    pool.release("s:1");
    await pool.idle();
    expect(lines.at(-1)).toMatchObject({ event: "pool:stop", sandboxId: "sb-1", outcome: "failed", failures: 1 });
    expect(pool.stats()).toMatchObject({ assigned: 0 });
    fleet.failStop.delete("sb-1");
    await pool.prime();
    expect(fleet.stopped()).toEqual(["sb-1", "sb-1"]);
    expect(pool.snapshot().retiring).toEqual({});
  });

  it("fails claims fast where no container engine runs, and primes nothing", async () => {
    const { pool } = manager(null);
    expect(() => pool.claim("s:1")).toThrow(CONTAINERS_UNAVAILABLE_MESSAGE);
    expect(await pool.prime()).toEqual({ warm: 0, assigned: 0, total: 0, target: 1 });
    expect(pool.release("s:1")).toEqual({ released: false });
  });

  it("rejects a malformed owner", () => {
    const { pool } = manager();
    expect(() => pool.claim("")).toThrow(TypeError);
    expect(() => pool.claim("x".repeat(MAX_OWNER_LENGTH + 1))).toThrow(TypeError);
    expect(() => pool.release(42 as unknown as string)).toThrow(TypeError);
  });
});
