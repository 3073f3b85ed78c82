import { describe, expect, it } from "vitest";
import { CONTAINERS_UNAVAILABLE_MESSAGE } from "../../src/pool/errors";
import { MAX_OWNER_LENGTH, WarmPoolManager } from "../../src/pool/warm-pool-manager";
import {
  MAX_OWNER_UNREACHABLE,
  MAX_WARM_ATTEMPTS,
  RECLAIM_GRACE_MS,
  stopRetryDelayMs,
  type PoolState
} from "../../src/pool/pool-book";
import type { ContainerFleet } from "../../src/pool/fleet";
import type { PoolOwners } from "../../src/pool/owners";
import type { PoolOwner } from "../../src/pool/pool-types";
import { deferred, MemoryStore, RecordingFleet } from "../pool/fakes";

const MINUTE = 60_000;
const LIFETIME_MS = 4 * 60 * MINUTE;

type Line = { event: string; [key: string]: unknown };

/**
 * Owners as the pool sees them: `live` maps each owner whose turn is running
 * to the Sandbox it holds; `unreachable` owners throw, as an unreachable
 * WorkspaceAgent does; everyone else's turn is over.
 */
class FakeOwners implements PoolOwners {
  readonly live = new Map<PoolOwner, string>();
  readonly unreachable = new Set<PoolOwner>();
  readonly asked: PoolOwner[] = [];
  /** While set, answers wait for it. */
  gate: Promise<void> | null = null;

  async holds(owner: PoolOwner, sandboxId: string): Promise<boolean> {
    this.asked.push(owner);
    if (this.gate) await this.gate;
    if (this.unreachable.has(owner)) throw new Error(`fake: ${owner} unreachable`);
    return this.held(owner, sandboxId);
  }

  /** The truth, for assertions. */
  held(owner: PoolOwner, sandboxId: string): boolean {
    return this.live.get(owner) === sandboxId;
  }
}

/**
 * A RecordingFleet that also records, in one ordered ledger, each warm it was
 * asked for and each stop that succeeded, and can fail a Sandbox's next N
 * stops (then succeed).
 */
class LedgerFleet extends RecordingFleet {
  readonly ledger: Array<{ op: "warm" | "stopped"; sandboxId: string }> = [];
  readonly stopFailuresLeft = new Map<string, number>();

  override async warm(sandboxId: string): Promise<void> {
    this.ledger.push({ op: "warm", sandboxId });
    await super.warm(sandboxId);
  }

  override async stop(sandboxId: string): Promise<void> {
    const left = this.stopFailuresLeft.get(sandboxId) ?? 0;
    if (left > 0) {
      this.stopFailuresLeft.set(sandboxId, left - 1);
      this.failStop.add(sandboxId);
    } else if (this.stopFailuresLeft.has(sandboxId)) {
      this.failStop.delete(sandboxId);
    }
    await super.stop(sandboxId);
    this.ledger.push({ op: "stopped", sandboxId });
  }
}

function manager(options: { fleet?: ContainerFleet | null; owners?: PoolOwners; lifetimeMs?: number } = {}) {
  const fleet = options.fleet === undefined ? new RecordingFleet() : options.fleet;
  const owners = options.owners ?? { holds: async () => true };
  let n = 0;
  let clock = 0;
  const lines: Line[] = [];
  const background: Promise<unknown>[] = [];
  const store = new MemoryStore();
  const pool = new WarmPoolManager({
    store,
    fleet: () => fleet,
    owners,
    maxLifetimeMs: options.lifetimeMs ?? LIFETIME_MS,
    log: (event, fields = {}) => void lines.push({ event, ...fields }),
    now: () => clock,
    createId: () => `sb-${++n}`,
    background: (work) => void background.push(work)
  });
  return { pool, lines, background, store, advance: (ms: number) => void (clock += ms) };
}

type Accounting = {
  fleet: LedgerFleet;
  state: PoolState;
  claimed: Iterable<string>;
  holds: (owner: PoolOwner, sandboxId: string) => boolean;
};

/**
 * The invariant: every Sandbox the pool ever warmed or handed out is (a)
 * assigned to an owner that holds it, (b) the warm slot, or (c) stopped by
 * the fleet (a stop that succeeded) and not warmed again after.
 */
function assertEveryContainerAccountedFor(input: Accounting): void {
  expect(unaccountedContainers(input), "containers neither held by a live turn, warm in the pool, nor stopped").toEqual([]);
}

function unaccountedContainers(input: Accounting): Array<{ sandboxId: string; owner?: string }> {
  const { fleet, state } = input;
  const ids = new Set([...fleet.warmed(), ...input.claimed]);
  const ownerOf = new Map(Object.entries(state.assigned).map(([owner, held]) => [held.sandboxId, owner]));
  const unaccounted: Array<{ sandboxId: string; owner?: string }> = [];
  for (const sandboxId of ids) {
    const owner = ownerOf.get(sandboxId);
    if (owner !== undefined && input.holds(owner, sandboxId)) continue;
    if (state.warm?.sandboxId === sandboxId) continue;
    const lastStopped = fleet.ledger.findLastIndex((entry) => entry.op === "stopped" && entry.sandboxId === sandboxId);
    const lastWarmed = fleet.ledger.findLastIndex((entry) => entry.op === "warm" && entry.sandboxId === sandboxId);
    if (lastStopped >= 0 && lastStopped > lastWarmed) continue;
    unaccounted.push(owner === undefined ? { sandboxId } : { sandboxId, owner });
  }
  return unaccounted;
}

describe("WarmPoolManager", () => {
  it("claim → replace → release", async () => {
    const fleet = new RecordingFleet();
    const { pool, lines } = manager({ fleet });
    expect(await pool.prime()).toEqual({ warm: 1, assigned: 0, total: 1, retiring: 0, target: 1 });
    expect(fleet.warmed()).toEqual(["sb-1"]);

    expect(pool.claim("s:1")).toEqual({ sandboxId: "sb-1", reused: false });
    await pool.idle();
    expect(fleet.warmed()).toEqual(["sb-1", "sb-2"]);
    expect(pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, retiring: 0, target: 1 });

    expect(pool.release("s:1")).toEqual({ released: true, sandboxId: "sb-1" });
    await pool.idle();
    expect(fleet.stopped()).toEqual(["sb-1"]);
    expect(pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, retiring: 0, target: 1 });
    expect(pool.snapshot().retiring).toEqual({});
    expect(lines.map((line) => line.event)).toEqual(["pool:warm", "pool:claim", "pool:warm", "pool:release", "pool:stop"]);
  });

  it("returns a claim without waiting for the replacement to warm", async () => {
    const fleet = new RecordingFleet();
    const { pool, background } = manager({ fleet });
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
    const { pool } = manager({ fleet });
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
    const { pool, lines } = manager({ fleet });
    fleet.failAllWarms = true;
    expect(await pool.prime()).toMatchObject({ warm: 0 });
    expect(lines.at(-1)).toMatchObject({ event: "pool:warm", sandboxId: "sb-1", outcome: "failed", error: "fake: warm sb-1 failed" });
    fleet.failAllWarms = false;
    expect(await pool.prime()).toMatchObject({ warm: 1 });
    expect(fleet.warmed()).toEqual(["sb-1", "sb-1"]);
  });

  it("logs a failed stop and retries it once its backoff has passed", async () => {
    const fleet = new RecordingFleet();
    const { pool, lines, advance } = manager({ fleet });
    await pool.prime();
    pool.claim("s:1");
    fleet.failStop.add("sb-1");
    pool.release("s:1");
    await pool.idle();
    expect(lines.at(-1)).toMatchObject({
      event: "pool:stop",
      sandboxId: "sb-1",
      outcome: "failed",
      reason: "released",
      failures: 1,
      retryInMs: 2 * MINUTE
    });
    expect(pool.stats()).toMatchObject({ assigned: 0, retiring: 1 });
    fleet.failStop.delete("sb-1");
    advance(MINUTE);
    await pool.prime();
    expect(fleet.stopped()).toEqual(["sb-1"]);
    advance(MINUTE);
    await pool.prime();
    expect(fleet.stopped()).toEqual(["sb-1", "sb-1"]);
    expect(pool.snapshot().retiring).toEqual({});
    expect(pool.stats()).toMatchObject({ retiring: 0 });
  });

  it("never forgets a container whose stop keeps failing: retried with a growing backoff, each failure logged", async () => {
    const fleet = new RecordingFleet();
    const { pool, lines, advance } = manager({ fleet, lifetimeMs: 100 * 60 * MINUTE });
    await pool.prime();
    pool.claim("s:1");
    fleet.failStop.add("sb-1");
    pool.release("s:1");
    await pool.idle();
    for (let failures = 1; failures <= 8; failures++) {
      advance(stopRetryDelayMs(failures));
      await pool.prime();
    }
    const stops = lines.filter((line) => line.event === "pool:stop" && line.sandboxId === "sb-1");
    expect(stops.map((line) => [line.outcome, line.failures, line.retryInMs])).toEqual(
      Array.from({ length: 9 }, (_, i) => ["failed", i + 1, stopRetryDelayMs(i + 1)])
    );
    expect(stops.at(-1)?.retryInMs).toBe(60 * MINUTE);
    expect(pool.stats().retiring).toBe(1);
    fleet.failStop.delete("sb-1");
    advance(60 * MINUTE);
    await pool.prime();
    expect(lines.filter((line) => line.event === "pool:stop").at(-1)).toMatchObject({ sandboxId: "sb-1", outcome: "stopped" });
    expect(pool.stats().retiring).toBe(0);
  });

  it("reclaims, after the grace period, an assignment whose owner's turn is over, and stops it as a release would", async () => {
    const fleet = new RecordingFleet();
    const owners = new FakeOwners();
    const { pool, lines, advance } = manager({ fleet, owners });
    await pool.prime();
    pool.claim("s:1");
    await pool.idle();
    advance(RECLAIM_GRACE_MS - 1);
    await pool.prime();
    expect(owners.asked).toEqual([]);
    advance(1);
    expect(await pool.prime()).toEqual({ warm: 1, assigned: 0, total: 1, retiring: 0, target: 1 });
    expect(owners.asked).toEqual(["s:1"]);
    expect(fleet.stopped()).toEqual(["sb-1"]);
    expect(lines.find((line) => line.event === "pool:reclaim")).toEqual({
      event: "pool:reclaim",
      owner: "s:1",
      sandboxId: "sb-1",
      reason: "turn-over",
      failures: 0
    });
    expect(lines.filter((line) => line.event === "pool:stop").at(-1)).toMatchObject({ sandboxId: "sb-1", reason: "reclaimed" });
  });

  it("keeps a live owner's container, asking again on each prime", async () => {
    const fleet = new RecordingFleet();
    const owners = new FakeOwners();
    const { pool, advance } = manager({ fleet, owners });
    await pool.prime();
    owners.live.set("s:1", pool.claim("s:1").sandboxId);
    for (let i = 0; i < 5; i++) {
      advance(RECLAIM_GRACE_MS);
      await pool.prime();
    }
    expect(owners.asked).toHaveLength(5);
    expect(fleet.stopped()).toEqual([]);
    expect(pool.stats()).toMatchObject({ assigned: 1 });
  });

  it(`stops an unreachable owner's container after ${MAX_OWNER_UNREACHABLE} unanswered primes in a row, logging each`, async () => {
    const fleet = new RecordingFleet();
    const owners = new FakeOwners();
    const { pool, lines, advance } = manager({ fleet, owners });
    await pool.prime();
    owners.live.set("s:1", pool.claim("s:1").sandboxId);
    owners.unreachable.add("s:1");
    advance(RECLAIM_GRACE_MS);
    for (let i = 1; i < MAX_OWNER_UNREACHABLE; i++) {
      await pool.prime();
      advance(MINUTE);
    }
    expect(fleet.stopped()).toEqual([]);
    expect(lines.filter((line) => line.event === "pool:owner").map((line) => line.failures)).toEqual([1, 2, 3, 4]);
    expect(lines.find((line) => line.event === "pool:owner")).toMatchObject({ owner: "s:1", outcome: "unreachable", error: "fake: s:1 unreachable" });
    await pool.prime();
    expect(fleet.stopped()).toEqual(["sb-1"]);
    expect(lines.find((line) => line.event === "pool:reclaim")).toMatchObject({ owner: "s:1", sandboxId: "sb-1", reason: "unreachable", failures: 5 });
  });

  it("asks each owner once when primes overlap", async () => {
    const owners = new FakeOwners();
    const { pool, advance } = manager({ owners });
    await pool.prime();
    pool.claim("s:1");
    advance(RECLAIM_GRACE_MS);
    const gate = deferred();
    owners.gate = gate.promise;
    const first = pool.prime();
    const second = pool.prime();
    gate.resolve();
    await Promise.all([first, second]);
    expect(owners.asked).toEqual(["s:1"]);
    expect(pool.stats()).toMatchObject({ assigned: 0 });
  });

  it("replaces the warm container once it is half its lifetime old", async () => {
    const fleet = new RecordingFleet();
    const { pool, lines, advance } = manager({ fleet, lifetimeMs: 60 * MINUTE });
    await pool.prime();
    advance(30 * MINUTE);
    await pool.prime();
    expect(fleet.stopped()).toEqual(["sb-1"]);
    expect(pool.snapshot().warm).toMatchObject({ sandboxId: "sb-2", status: "ready" });
    expect(lines.filter((line) => line.event === "pool:stop")).toEqual([
      { event: "pool:stop", sandboxId: "sb-1", outcome: "stopped", reason: "warm-expired" }
    ]);
  });

  it("ends with every container held by a live turn, warm in the pool, or stopped, whatever fails", async () => {
    const fleet = new LedgerFleet();
    const owners = new FakeOwners();
    const { pool, lines, advance } = manager({ fleet, owners });
    const claimed = new Set<string>();
    const claim = (owner: PoolOwner) => {
      const { sandboxId } = pool.claim(owner);
      claimed.add(sandboxId);
      return sandboxId;
    };

    await pool.prime(); // sb-1 warm
    // A live turn that keeps its container throughout.
    owners.live.set("live:1", claim("live:1")); // sb-1; sb-2 warms
    await pool.idle();
    // A turn that ended without its release arriving: the owner says it holds nothing.
    const forgotten = claim("forgotten:1"); // sb-2; sb-3 warms
    await pool.idle();
    // A turn whose workspace cannot be reached at all (its object is gone).
    const unreachable = claim("unreachable:1"); // sb-3; sb-4 warms
    owners.unreachable.add("unreachable:1");
    await pool.idle();
    // A turn whose workspace is unreachable for a while, then answers again.
    fleet.failWarm.add("sb-5"); // the next warm container never becomes healthy
    owners.live.set("flaky:1", claim("flaky:1")); // sb-4; sb-5 warms and fails
    owners.unreachable.add("flaky:1");
    await pool.idle();
    // A turn that released, but whose container's stop fails 7 times before it succeeds.
    fleet.failWarm.add("sb-7"); // nor does the one after it: replaced after MAX_WARM_ATTEMPTS
    const stubborn = claim("released:1"); // sb-5 failed, so a fresh sb-6; sb-5 is stopped; sb-7 warms
    fleet.stopFailuresLeft.set(stubborn, 7);
    pool.release("released:1");
    await pool.idle();
    expect([forgotten, unreachable, stubborn]).toEqual(["sb-2", "sb-3", "sb-6"]);

    // The cron, every minute for five hours.
    for (let minute = 1; minute <= 5 * 60; minute++) {
      advance(MINUTE);
      if (minute === MAX_OWNER_UNREACHABLE) owners.unreachable.delete("flaky:1");
      await pool.prime();
    }

    assertEveryContainerAccountedFor({ fleet, state: pool.snapshot(), claimed, holds: (owner, id) => owners.held(owner, id) });
    // The live turns kept theirs; the others were taken back and stopped.
    expect(Object.keys(pool.snapshot().assigned).sort()).toEqual(["flaky:1", "live:1"]);
    const reclaims = lines.filter((line) => line.event === "pool:reclaim").map((line) => [line.owner, line.reason]);
    expect(reclaims).toEqual([
      ["forgotten:1", "turn-over"],
      ["unreachable:1", "unreachable"]
    ]);
    expect(fleet.stopped()).toEqual(expect.arrayContaining([forgotten, unreachable]));
    // The stubborn stop was tried until it succeeded, never dropped.
    expect(fleet.stopped().filter((id) => id === stubborn)).toHaveLength(8);
    expect(lines.some((line) => line.event === "pool:stop" && line.outcome === "abandoned")).toBe(false);
    // The failed warm ones were stopped: sb-5 when a claimer got a fresh one
    // instead, sb-7 after MAX_WARM_ATTEMPTS. The warm slot aged out and was replaced too.
    expect(fleet.warmed().filter((id) => id === "sb-5")).toHaveLength(1);
    expect(fleet.warmed().filter((id) => id === "sb-7")).toHaveLength(MAX_WARM_ATTEMPTS);
    expect(fleet.stopped()).toEqual(expect.arrayContaining(["sb-5", "sb-7"]));
    expect(lines.some((line) => line.event === "pool:stop" && line.reason === "warm-expired")).toBe(true);
    expect(pool.snapshot().warm).toMatchObject({ status: "ready" });
    expect(pool.stats()).toEqual({ warm: 1, assigned: 2, total: 3, retiring: 0, target: 1 });
  });

  it("the invariant catches a container nobody accounts for", () => {
    const fleet = new LedgerFleet();
    fleet.ledger.push({ op: "warm", sandboxId: "sb-1" }, { op: "stopped", sandboxId: "sb-1" }, { op: "warm", sandboxId: "sb-1" });
    fleet.calls.push({ op: "warm", sandboxId: "sb-1" });
    const state: PoolState = { warm: null, assigned: { "gone:1": { sandboxId: "sb-2", claimedAt: 0 } }, retiring: {} };
    const input = { fleet, state, claimed: ["sb-2"], holds: () => false };
    // sb-1 was warmed again after its stop; sb-2's owner no longer holds it.
    expect(unaccountedContainers(input)).toEqual([{ sandboxId: "sb-1" }, { sandboxId: "sb-2", owner: "gone:1" }]);
    expect(() => assertEveryContainerAccountedFor(input)).toThrow();
    expect(unaccountedContainers({ ...input, holds: () => true, state: { ...state, warm: { sandboxId: "sb-1", status: "ready", since: 0, failures: 0 } } })).toEqual([]);
  });

  it("fails claims fast where no container engine runs, and primes nothing", async () => {
    const { pool } = manager({ fleet: null });
    expect(() => pool.claim("s:1")).toThrow(CONTAINERS_UNAVAILABLE_MESSAGE);
    expect(await pool.prime()).toEqual({ warm: 0, assigned: 0, total: 0, retiring: 0, target: 1 });
    expect(pool.release("s:1")).toEqual({ released: false });
  });

  it("rejects a malformed owner", () => {
    const { pool } = manager();
    expect(() => pool.claim("")).toThrow(TypeError);
    expect(() => pool.claim("x".repeat(MAX_OWNER_LENGTH + 1))).toThrow(TypeError);
    expect(() => pool.release(42 as unknown as string)).toThrow(TypeError);
  });
});
