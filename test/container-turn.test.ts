/**
 * No container without an owner, on the WorkspaceAgent's side, through the
 * real Durable Object and the real WarmPool (over a recording fleet): a claim
 * that lands after its turn ended goes back at once; a release the pool
 * could not take is retried from the agent's own schedule until it can; a
 * release waits for the command still running (and its sync back) before
 * the container is stopped. The pool seam puts a slow or failing front on
 * the real pool.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { PoolOwner } from "../src/pool/pool-types";
import type { TurnPool } from "../src/pool/turn-container";
import type { WorkspaceAgent } from "../src/workspace-agent";
import { until } from "./helpers";
import { deferred } from "./pool/fakes";
import { containerFor } from "./support/containers";

type Seams = { pool: () => TurnPool; releaseRetry: { initialMs: number; maxMs: number }; releaseSyncWaitMs: number };

async function setup() {
  const session = `turn-${crypto.randomUUID().slice(0, 8)}`;
  const { fleet, pool, container, workspace } = await containerFor(session);
  const stub = workspace as unknown as DurableObjectStub<WorkspaceAgent>;
  const turn = { session, submissionId: `sub-${crypto.randomUUID().slice(0, 8)}` };
  /** Put `front` between the workspace and its real pool. */
  const frontPool = (front: (real: TurnPool) => TurnPool) =>
    runInDurableObject(stub, (instance) => {
      const seams = instance as unknown as Seams;
      const real = seams.pool();
      seams.pool = () => front(real);
    });
  const exec = (command: string) => stub.exec({ command, backend: "container", timeoutMs: 10_000, turn });
  return { fleet, pool, container, workspace: stub, turn, frontPool, exec };
}

describe("a workspace's container", () => {
  it("goes back at once when the turn ended while its claim was in flight, and the turn is not revived", async () => {
    const { pool, workspace, turn, frontPool, exec, fleet } = await setup();
    const claimed = deferred();
    await frontPool((real) => ({
      claim: async (owner: PoolOwner) => {
        const result = await real.claim(owner);
        await claimed.promise;
        return result;
      },
      release: (owner: PoolOwner) => real.release(owner)
    }));
    await workspace.beginTurn(turn);
    const running = exec("echo never");
    await until(async () => (await pool.stats()).assigned === 1, "the claim");
    await workspace.endTurn(turn, "aborted");
    claimed.resolve();

    expect(await running).toMatchObject({ error: expect.stringMatching(/turn ended while its container was being claimed/) });
    expect(await workspace.holding()).toEqual({ submissionId: undefined, sandboxId: undefined });
    await until(async () => (await pool.stats()).assigned === 0, "the pool to have it back");
    await until(async () => fleet.stopped().length === 1, "the container to stop");
  });

  it("keeps a release the pool could not take and retries it from its own schedule until the pool has it", async () => {
    const { pool, workspace, turn, frontPool, exec, fleet } = await setup();
    let failing = true;
    await frontPool((real) => ({
      claim: (owner: PoolOwner) => real.claim(owner),
      release: async (owner: PoolOwner) => {
        if (failing) throw new Error("pool unreachable (test)");
        return await real.release(owner);
      }
    }));
    await runInDurableObject(workspace, (instance) => {
      (instance as unknown as Seams).releaseRetry = { initialMs: 50, maxMs: 100 };
    });
    await workspace.beginTurn(turn);
    expect(await exec("echo work")).toMatchObject({ exitCode: 0 });
    const held = (await workspace.holding()).sandboxId;

    expect(await workspace.endTurn(turn, "completed")).toEqual({ released: false, pending: true });
    expect((await pool.stats()).assigned).toBe(1);
    failing = false;
    // The agent's scheduled retry (an alarm, at least a second out) hands it to the pool.
    await until(async () => (await pool.stats()).assigned === 0, "the pool to have it back");
    await until(async () => fleet.stopped().includes(held!), "the container to stop");
    expect(await workspace.retryReleases()).toEqual({ pending: 0 });
  });

  it("waits for the command still running (and its sync back) before the container goes back", async () => {
    const { workspace, turn, exec, fleet, container } = await setup();
    await workspace.beginTurn(turn);
    expect(await exec("echo first")).toMatchObject({ exitCode: 0 });
    container.hold();
    const running = exec("echo slow");
    await until(async () => container.runs.some((run) => run.script.includes("echo slow")), "the slow command to start");
    const ending = workspace.endTurn(turn, "aborted");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fleet.stopped()).toEqual([]);

    container.releaseHeld();
    expect(await running).toMatchObject({ exitCode: 0, stdout: { text: "slow\n" } });
    expect(await ending).toMatchObject({ released: true });
    await until(async () => fleet.stopped().length === 1, "the container to stop");
  });

  it("gives up waiting for a command that never finishes, bounded, and still gives the container back", async () => {
    const { workspace, turn, exec, fleet, container } = await setup();
    await runInDurableObject(workspace, (instance) => {
      (instance as unknown as Seams).releaseSyncWaitMs = 200;
    });
    await workspace.beginTurn(turn);
    container.hold();
    void exec("echo stuck");
    await until(async () => container.runs.length === 1, "the command to start");
    expect(await workspace.endTurn(turn, "aborted")).toMatchObject({ released: true });
    await until(async () => fleet.stopped().length === 1, "the container to stop");
    container.releaseHeld();
  });

  it("answers every container command with the bad setting's name when CONTAINER_INSTANCE_TYPE is wrong, and keeps the shell", async () => {
    const { workspace, turn, exec, pool } = await setup();
    await runInDurableObject(workspace, (instance) => {
      const agent = instance as unknown as { env: Env };
      agent.env = { ...agent.env, CONTAINER_INSTANCE_TYPE: "huge" };
    });
    await workspace.beginTurn(turn);
    expect(await exec("echo never")).toEqual({ backend: "container", error: expect.stringMatching(/^CONTAINER_INSTANCE_TYPE must be one of lite, basic/) });
    expect((await pool.stats()).assigned).toBe(0);
    expect(await workspace.exec({ command: "echo fine", backend: "shell", timeoutMs: 10_000 })).toMatchObject({ exitCode: 0, stdout: { text: "fine\n" } });
  });

  it("gives back a container stopped under the turn (its lifetime ran out) and runs the command on a fresh one", async () => {
    const { workspace, turn, exec, pool, fleet, container } = await setup();
    await workspace.beginTurn(turn);
    expect(await exec("echo first")).toMatchObject({ exitCode: 0 });
    const first = (await workspace.holding()).sandboxId!;
    // What the backend's connect says when the Sandbox was retired under it.
    container.failNextWith(`ContainerBackend(container): connect failed at stage=start lastError=sandbox ${first} was stopped and is never started again; claim a fresh container from the warm pool`);
    expect(await exec("echo again")).toMatchObject({ exitCode: 0, stdout: { text: "again\n" } });
    const second = (await workspace.holding()).sandboxId!;
    expect(second).not.toBe(first);
    await until(async () => fleet.stopped().includes(first), "the stopped container to go back");
    expect((await pool.stats()).assigned).toBe(1);
  });
});
