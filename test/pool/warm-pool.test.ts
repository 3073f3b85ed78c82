/**
 * The WarmPool Durable Object with real storage and a recording fleet behind
 * the real ContainerFleet interface. Each test has its own pool (fresh name).
 * Reclaiming asks real WorkspaceAgents through the pool's own `owners`, or a
 * fake swapped in through that seam; the grace period and backoffs are passed
 * by backdating the pool's stored state.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { CONTAINERS_UNAVAILABLE_MESSAGE } from "../../src/pool/errors";
import { sandboxFleet, type SandboxNamespaceLike } from "../../src/pool/fleet";
import type { PoolOwners } from "../../src/pool/owners";
import { MAX_OWNER_UNREACHABLE, POOL_STATE_KEY, RECLAIM_GRACE_MS, type PoolState } from "../../src/pool/pool-book";
import { poolOwner } from "../../src/pool/pool-types";
import type { Sandbox } from "../../src/sandbox";
import { primeWarmPool, warmPool, WARM_POOL_NAME, type WarmPool } from "../../src/warm-pool";
import { LOG_PREFIX } from "../../src/run/log";
import { captureConsole, eventually } from "../helpers";
import { RecordingFleet } from "./fakes";
import { poolWithFleet, rejectionIn } from "./seams";

const owner = () => poolOwner(`acme-r${crypto.randomUUID().slice(0, 8)}-1`, crypto.randomUUID());

type Pool = DurableObjectStub<WarmPool>;

/** Rewrite the pool's stored state, as if time had passed. */
async function editState(pool: Pool, edit: (state: PoolState) => void): Promise<PoolState> {
  return await runInDurableObject(pool, (_instance, storage) => {
    const state = storage.storage.kv.get<PoolState>(POOL_STATE_KEY)!;
    edit(state);
    storage.storage.kv.put(POOL_STATE_KEY, state);
    return state;
  });
}

/** Every assignment claimed longer ago than the grace period. */
const pastGrace = (pool: Pool) =>
  editState(pool, (state) => {
    for (const held of Object.values(state.assigned)) held.claimedAt -= RECLAIM_GRACE_MS;
  });

async function withOwners(pool: Pool, owners: PoolOwners): Promise<void> {
  await runInDurableObject(pool, (instance: WarmPool) => {
    (instance as unknown as { owners: PoolOwners }).owners = owners;
  });
}

const logged = (lines: string[], event: string) =>
  lines
    .filter((line) => line.startsWith(LOG_PREFIX))
    .map((line) => JSON.parse(line.slice(LOG_PREFIX.length)) as Record<string, unknown>)
    .filter((line) => line.event === event);

describe("WarmPool", () => {
  it("claim → replace → release", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    expect(await pool.prime()).toEqual({ warm: 1, assigned: 0, total: 1, retiring: 0, target: 1 });
    const [warm] = fleet.warmed();

    const me = owner();
    expect(await pool.claim(me)).toEqual({ sandboxId: warm, reused: false });
    await eventually(() => expect(fleet.warmed()).toHaveLength(2));
    const replacement = fleet.warmed()[1];
    expect(replacement).not.toBe(warm);
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, retiring: 0, target: 1 });

    expect(await pool.release(me)).toEqual({ released: true, sandboxId: warm });
    await eventually(() => expect(fleet.stopped()).toEqual([warm]));
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, retiring: 0, target: 1 });
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
    await eventually(() => expect(fleet.warmed()).toHaveLength(21));
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 20, total: 21, retiring: 0, target: 1 });
    // The one warm container is the last replacement, held by nobody.
    const [warm] = fleet.warmed().filter((id) => !ids.includes(id));
    expect(fleet.warmed().filter((id) => !ids.includes(id))).toEqual([warm]);

    const releases = await Promise.all(owners.map((o) => pool.release(o)));
    expect(releases.map((release) => release.sandboxId)).toEqual(ids);
    await eventually(() => expect(fleet.stopped()).toHaveLength(20));
    expect(new Set(fleet.stopped())).toEqual(new Set(ids));
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, retiring: 0, target: 1 });
    expect(await pool.claim(owner())).toEqual({ sandboxId: warm, reused: false });
  });

  it("gives the same owner the same container again", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    await pool.prime();
    const me = owner();
    const first = await pool.claim(me);
    await eventually(() => expect(fleet.warmed()).toHaveLength(2));
    expect(await pool.claim(me)).toEqual({ sandboxId: first.sandboxId, reused: true });
    expect(fleet.warmed()).toHaveLength(2);
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, retiring: 0, target: 1 });
  });

  it("hands out the warm container while it is still starting, without waiting", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    fleet.hold();
    const priming = pool.prime();
    await eventually(() => expect(fleet.warmed()).toHaveLength(1));
    const [starting] = fleet.warmed();
    expect(await pool.claim(owner())).toEqual({ sandboxId: starting, reused: false });
    expect(fleet.pending).toBe(2); // the claimed one and its replacement, both still warming
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, retiring: 0, target: 1 });
    fleet.releaseHeld();
    expect(await priming).toEqual({ warm: 1, assigned: 1, total: 2, retiring: 0, target: 1 });
  });

  it("assigns a container at once when the pool was never primed", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    const claim = await pool.claim(owner());
    expect(claim.reused).toBe(false);
    // The claimer's backend starts its container; the pool warms only the slot.
    await eventually(() => expect(fleet.warmed()).toHaveLength(1));
    expect(fleet.warmed()).not.toContain(claim.sandboxId);
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, retiring: 0, target: 1 });
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
    await eventually(() => expect(fleet.stopped()).toHaveLength(2));
    expect(await pool.stats()).toEqual({ warm: 1, assigned: 0, total: 1, retiring: 0, target: 1 });
  });

  it("logs a failed warm, never hands the failed container out, and retries on prime", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    fleet.failAllWarms = true;
    const { result, lines } = await captureConsole(() => pool.prime());
    expect(result).toEqual({ warm: 0, assigned: 0, total: 0, retiring: 0, target: 1 });
    const [failedId] = fleet.warmed();
    expect(lines.some((line) => line.startsWith(LOG_PREFIX) && line.includes('"event":"pool:warm"') && line.includes('"outcome":"failed"'))).toBe(true);

    fleet.failAllWarms = false;
    const claim = await pool.claim(owner());
    expect(claim.sandboxId).not.toBe(failedId);
    await eventually(() => expect(fleet.stopped()).toEqual([failedId]));
    await eventually(async () => expect(await pool.stats()).toEqual({ warm: 1, assigned: 1, total: 2, retiring: 0, target: 1 }));
  });

  it("fails claims fast where containers are disabled, and primes nothing", async () => {
    const pool = warmPool(env, `test-${crypto.randomUUID()}`);
    expect((await rejectionIn(pool, (instance) => instance.claim(owner()))).message).toBe(CONTAINERS_UNAVAILABLE_MESSAGE);
    expect(await pool.prime()).toEqual({ warm: 0, assigned: 0, total: 0, retiring: 0, target: 1 });
    expect(await pool.release(owner())).toEqual({ released: false });
    expect(await primeWarmPool(env)).toBeNull();
    expect(WARM_POOL_NAME).toBe("main");
  });

  it("reclaims a container whose turn is over, asking the real WorkspaceAgent, and keeps one whose turn runs", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    await pool.prime();
    // A turn that ended without its release: its workspace holds nothing now.
    const over = owner();
    const overClaim = await pool.claim(over);
    // A turn still running: its workspace is in that turn (and has not recorded the container yet).
    const session = `acme-r${crypto.randomUUID().slice(0, 8)}-2`;
    const submissionId = crypto.randomUUID();
    const workspace = (await getAgentByName(env.WorkspaceAgent, session)) as unknown as {
      beginTurn(turn: { session: string; submissionId: string }): Promise<void>;
    };
    await workspace.beginTurn({ session, submissionId });
    const running = poolOwner(session, submissionId);
    await pool.claim(running);
    await eventually(() => expect(fleet.warmed()).toHaveLength(3));

    // Within the grace period nobody is asked.
    await pool.prime();
    expect(fleet.stopped()).toEqual([]);

    await pastGrace(pool);
    const { result, lines } = await captureConsole(() => pool.prime());
    expect(result).toEqual({ warm: 1, assigned: 1, total: 2, retiring: 0, target: 1 });
    expect(fleet.stopped()).toEqual([overClaim.sandboxId]);
    expect(logged(lines, "pool:reclaim")).toMatchObject([{ owner: over, sandboxId: overClaim.sandboxId, reason: "turn-over" }]);
    // The running turn's claim is still its own.
    expect(await pool.claim(running)).toMatchObject({ reused: true });
  });

  it(`stops the container of an owner it cannot reach, after ${MAX_OWNER_UNREACHABLE} primes`, async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    const asked: string[] = [];
    await withOwners(pool, {
      async holds(who) {
        asked.push(who);
        throw new Error("workspace unreachable");
      }
    });
    await pool.prime();
    const lost = owner();
    const { sandboxId } = await pool.claim(lost);
    await pastGrace(pool);
    for (let i = 1; i < MAX_OWNER_UNREACHABLE; i++) await pool.prime();
    expect(fleet.stopped()).toEqual([]);
    expect((await editState(pool, () => {})).assigned[lost]).toMatchObject({ unreachable: MAX_OWNER_UNREACHABLE - 1, error: "workspace unreachable" });
    const { lines } = await captureConsole(() => pool.prime());
    expect(asked).toHaveLength(MAX_OWNER_UNREACHABLE);
    expect(fleet.stopped()).toEqual([sandboxId]);
    expect(logged(lines, "pool:reclaim")).toMatchObject([{ owner: lost, sandboxId, reason: "unreachable", failures: MAX_OWNER_UNREACHABLE }]);
    expect(await pool.stats()).toMatchObject({ assigned: 0, retiring: 0 });
  });

  it("keeps a container whose stop failed retiring, counted, and retries it after its backoff", async () => {
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    await pool.prime();
    const me = owner();
    const { sandboxId } = await pool.claim(me);
    fleet.failStop.add(sandboxId);
    await pool.release(me);
    await eventually(async () => expect(await pool.stats()).toMatchObject({ assigned: 0, retiring: 1 }));
    const retiring = (await editState(pool, () => {})).retiring[sandboxId];
    expect(retiring).toMatchObject({ failures: 1, reason: "released", error: `fake: stop ${sandboxId} failed` });
    expect(retiring?.nextAttemptAt).toBeGreaterThan(Date.now());
    // Not before its backoff.
    await pool.prime();
    expect(fleet.stopped()).toEqual([sandboxId]);
    fleet.failStop.delete(sandboxId);
    await editState(pool, (state) => {
      state.retiring[sandboxId]!.nextAttemptAt = Date.now() - 1;
    });
    expect(await pool.prime()).toMatchObject({ retiring: 0 });
    expect(fleet.stopped()).toEqual([sandboxId, sandboxId]);
  });

  it("drives real Sandbox objects through the real fleet (which fail fast here)", async () => {
    // Each Sandbox is asked in the object: across RPC, workerd prints its caught refusal as uncaught.
    const sandboxes: SandboxNamespaceLike = {
      getByName(name) {
        const stub = env.Sandbox.getByName(name);
        return {
          warm: () => runInDurableObject(stub, (sandbox: Sandbox) => sandbox.warm()),
          stop: () => runInDurableObject(stub, (sandbox: Sandbox) => sandbox.stop())
        };
      }
    };
    const pool = await poolWithFleet(sandboxFleet(sandboxes));
    const { result, lines } = await captureConsole(() => pool.prime());
    expect(result).toEqual({ warm: 0, assigned: 0, total: 0, retiring: 0, target: 1 });
    const warmLine = lines.find((line) => line.includes('"event":"pool:warm"'));
    expect(warmLine).toContain(CONTAINERS_UNAVAILABLE_MESSAGE);
  });
});
