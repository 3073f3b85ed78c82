/**
 * A workspace's turn and its container (src/pool/turn-container.ts) over an
 * in-memory store and a recording pool: a claim that lands after its turn
 * ended gives the container back and never writes the turn back; a failed
 * release is kept and retried with backoff until the pool has it; a retired
 * container is given back and replaced.
 */
import { describe, expect, it } from "vitest";
import {
  RELEASE_RETRY_INITIAL_MS,
  RELEASES_KEY,
  TURN_KEY,
  TurnContainers,
  TurnEndedError,
  type TurnPool,
  type TurnStore
} from "../../src/pool/turn-container";
import { poolOwner, type ClaimResult, type PoolOwner, type ReleaseResult } from "../../src/pool/pool-types";
import { deferred, type Deferred } from "../pool/fakes";

class AsyncStore implements TurnStore {
  readonly data = new Map<string, unknown>();
  async get<T>(key: string) {
    const value = this.data.get(key);
    return value === undefined ? undefined : (structuredClone(value) as T);
  }
  async put<T>(key: string, value: T) {
    this.data.set(key, structuredClone(value));
  }
  async delete(key: string) {
    return this.data.delete(key);
  }
}

/** A pool that records claims and releases; `holdClaims()` makes claims wait, `failReleases` makes releases throw. */
class RecordingPool implements TurnPool {
  readonly claims: PoolOwner[] = [];
  readonly releases: PoolOwner[] = [];
  readonly assigned = new Map<PoolOwner, string>();
  failReleases = 0;
  #held: Deferred | null = null;
  #next = 0;

  holdClaims() {
    this.#held = deferred();
  }
  releaseClaims() {
    this.#held?.resolve();
    this.#held = null;
  }

  async claim(owner: PoolOwner): Promise<ClaimResult> {
    this.claims.push(owner);
    const sandboxId = this.assigned.get(owner) ?? `sandbox-${++this.#next}`;
    this.assigned.set(owner, sandboxId);
    if (this.#held) await this.#held.promise;
    return { sandboxId, reused: false };
  }

  async release(owner: PoolOwner): Promise<ReleaseResult> {
    this.releases.push(owner);
    if (this.failReleases > 0) {
      this.failReleases--;
      throw new Error("pool unreachable");
    }
    const sandboxId = this.assigned.get(owner);
    this.assigned.delete(owner);
    return sandboxId ? { released: true, sandboxId } : { released: false };
  }
}

function setup() {
  const store = new AsyncStore();
  const pool = new RecordingPool();
  const scheduled: number[] = [];
  const lines: Array<{ event: string; fields: Record<string, unknown> }> = [];
  const clock = { now: 1_000_000 };
  let settled = 0;
  const turns = new TurnContainers({
    store,
    pool: () => pool,
    log: (event, fields = {}) => lines.push({ event, fields }),
    now: () => clock.now,
    scheduleRetry: async (ms) => {
      scheduled.push(ms);
    },
    beforeRelease: async () => {
      settled++;
    }
  });
  return { store, pool, scheduled, lines, clock, turns, settled: () => settled };
}

const turnA = { session: "acme-widgets-7", submissionId: "sub-a" };
const turnB = { session: "acme-widgets-7", submissionId: "sub-b" };
const ownerA = poolOwner(turnA.session, turnA.submissionId);

describe("a turn's container", () => {
  it("is claimed once, on first use, and given back (after its last sync) when the turn ends", async () => {
    const { pool, turns, settled } = setup();
    await turns.begin(turnA);
    const sandboxId = await turns.sandbox();
    expect(await turns.sandbox()).toBe(sandboxId);
    expect(pool.claims).toEqual([ownerA]);
    expect(await turns.holding()).toEqual({ submissionId: "sub-a", sandboxId });
    expect(await turns.end(turnA, "completed")).toEqual({ released: true, pending: false });
    expect(settled()).toBe(1);
    expect(pool.releases).toEqual([ownerA]);
    expect(pool.assigned.size).toBe(0);
    expect(await turns.holding()).toEqual({ submissionId: undefined, sandboxId: undefined });
  });

  it("goes back at once when the turn ended while the claim was in flight, and the turn is not written back", async () => {
    const { store, pool, turns, lines } = setup();
    await turns.begin(turnA);
    pool.holdClaims();
    const claiming = turns.sandbox().then(
      () => null,
      (error: unknown) => error
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The turn ends before the claim answers: it holds no container yet, so the end releases nothing.
    expect(await turns.end(turnA, "aborted")).toEqual({ released: false, pending: false });
    pool.releaseClaims();
    expect(await claiming).toBeInstanceOf(TurnEndedError);
    expect(store.data.has(TURN_KEY)).toBe(false);
    expect(pool.releases).toEqual([ownerA]);
    expect(pool.assigned.size).toBe(0);
    expect(lines.map((line) => line.event)).toContain("container:claim-after-end");
  });

  it("goes back when a new turn superseded the one whose claim was in flight", async () => {
    const { pool, turns } = setup();
    await turns.begin(turnA);
    pool.holdClaims();
    const claiming = turns.sandbox().catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 0));
    await turns.begin(turnB);
    pool.releaseClaims();
    expect(await claiming).toBeInstanceOf(TurnEndedError);
    expect(pool.releases).toEqual([ownerA]);
    expect(await turns.holding()).toEqual({ submissionId: "sub-b", sandboxId: undefined });
  });

  it("keeps a failed release and retries it with backoff until the pool has it", async () => {
    const { store, pool, turns, scheduled, clock } = setup();
    await turns.begin(turnA);
    const sandboxId = await turns.sandbox();
    pool.failReleases = 2;
    expect(await turns.end(turnA, "completed")).toEqual({ released: false, pending: true });
    expect(scheduled).toEqual([RELEASE_RETRY_INITIAL_MS]);
    expect(await turns.pendingReleases()).toMatchObject({ [ownerA]: { sandboxId, attempts: 1, lastError: "pool unreachable" } });

    // Not due yet: nothing is tried.
    expect(await turns.retryReleases()).toEqual({ pending: 1 });
    expect(pool.releases).toHaveLength(1);

    clock.now += RELEASE_RETRY_INITIAL_MS;
    expect(await turns.retryReleases()).toEqual({ pending: 1 });
    expect(scheduled.at(-1)).toBe(2 * RELEASE_RETRY_INITIAL_MS);

    clock.now += 2 * RELEASE_RETRY_INITIAL_MS;
    expect(await turns.retryReleases()).toEqual({ pending: 0 });
    expect(pool.releases).toEqual([ownerA, ownerA, ownerA]);
    expect(pool.assigned.size).toBe(0);
    expect(store.data.get(RELEASES_KEY)).toEqual({});
  });

  it("gives a retired container back and claims a fresh one for the same turn", async () => {
    const { pool, turns } = setup();
    await turns.begin(turnA);
    const first = await turns.sandbox();
    await turns.replaceRetired(first);
    expect(pool.releases).toEqual([ownerA]);
    const second = await turns.sandbox();
    expect(second).not.toBe(first);
    expect(await turns.holding()).toEqual({ submissionId: "sub-a", sandboxId: second });
  });

  it("refuses a container when no turn is running", async () => {
    const { turns, pool } = setup();
    await expect(turns.sandbox()).rejects.toThrow(/no turn is running/);
    expect(pool.claims).toEqual([]);
  });
});
