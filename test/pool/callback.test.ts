/**
 * computerd's callback, end to end as far as this machine can go: the
 * WorkspaceAgent's own ContainerBackend (the real one, wired as production
 * wires it) connects to a Sandbox whose container is the recording fake
 * playing computerd's side. The fake dials back through the fetcher the real
 * container host handed it, which is the package's real WorkspaceProxy
 * (ctx.exports), which wakes the WorkspaceAgent; its fetch must hand the
 * /api upgrade to the backend, whose pending connect then completes. Before
 * that routing existed the upgrade landed in the agents SDK and every
 * connect timed out at `[stage=ws]`.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { ContainerBackend, ContainerBackendOptions } from "@cloudflare/computer/backends/container";
import { WORKSPACE_SYNC_IGNORE } from "../../src/pool/launch-spec";
import { sandboxStub } from "../../src/sandbox";
import type { WorkspaceAgent } from "../../src/workspace-agent";
import { FakeContainer, RecordingFleet } from "./fakes";
import { installContainer, poolWithFleet } from "./seams";
import { evict } from "../helpers";

type Seams = {
  containersEnabled: () => boolean;
  poolName: string;
  containerBackendOverrides: Partial<ContainerBackendOptions>;
  containerBackend: () => ContainerBackend | undefined;
};

/** An issue's WorkspaceAgent with the container path on, a turn begun, and the pool's warm Sandbox driving `container`. */
async function workspaceWithContainer(container: FakeContainer) {
  const fleet = new RecordingFleet();
  const pool = await poolWithFleet(fleet);
  await pool.prime();
  const [warm] = fleet.warmed();
  await installContainer(sandboxStub(env, warm!), container);
  const poolName = (await runInDurableObject(pool, (_instance, state) => state.id.name)) ?? "";
  const session = `callback-${crypto.randomUUID().slice(0, 8)}`;
  const workspace = (await getAgentByName(env.WorkspaceAgent, session)) as unknown as DurableObjectStub<WorkspaceAgent>;
  await runInDurableObject(workspace, (instance) => {
    const seams = instance as unknown as Seams;
    seams.containersEnabled = () => true;
    seams.poolName = poolName;
    // Fail in seconds rather than the production 180 s if the upgrade never arrives.
    seams.containerBackendOverrides = { connectTimeoutMs: 5_000, heartbeatIntervalMs: 0 };
  });
  await workspace.beginTurn({ session, submissionId: "sub-callback" });
  return { workspace, warm: warm!, session };
}

/** Connect the WorkspaceAgent's own backend; what the handle says, then close it. */
async function connectOwnBackend(workspace: DurableObjectStub<WorkspaceAgent>) {
  return await runInDurableObject(workspace, async (instance) => {
    const backend = (instance as unknown as Seams).containerBackend();
    if (!backend) throw new Error("the workspace built no container backend");
    try {
      const handle = await backend.connect();
      const seen = { runtimeId: handle.runtimeId, ignore: handle.ignore };
      await handle.close();
      return { ok: true as const, ...seen };
    } catch (error) {
      return { ok: false as const, error: error instanceof Error ? error.message : String(error) };
    }
  });
}

describe("computerd's /api callback", () => {
  it("reaches the WorkspaceAgent's container backend through the real WorkspaceProxy, and the connect completes", async () => {
    const container = new FakeContainer();
    container.computerd = true;
    const { workspace, warm } = await workspaceWithContainer(container);

    const result = await connectOwnBackend(workspace);
    await container.dialed;

    expect(container.callbacks).toEqual(["GET /health 200", "GET /api 101"]);
    expect(result).toMatchObject({ ok: true, runtimeId: expect.any(String) });
    // The sync ignores the container applies are the ones the backend declared.
    expect(result.ok && result.ignore?.patterns).toEqual([...WORKSPACE_SYNC_IGNORE]);
    expect(container.intercepted).toEqual(["computer.internal"]);
    // The turn's claim is the pool's warm Sandbox, started once with the shared spec.
    expect((await workspace.holding()).sandboxId).toBe(warm);
    expect(container.lifecycle()).toEqual(["start"]);
    expect(container.requests).toEqual(expect.arrayContaining(["HEAD /health", "GET /api", "POST /connect", "GET /__computerd/info"]));
  });

  it("refuses an upgrade without the container's secret, and a plain request", async () => {
    const container = new FakeContainer();
    container.computerd = true;
    const { workspace } = await workspaceWithContainer(container);
    // A process in the container (or anything else) that dials /api without the launch secret.
    const stolen = await runInDurableObject(workspace, (instance) =>
      instance.fetch(new Request("http://computer.internal/api", { headers: { upgrade: "websocket", authorization: "Bearer not-the-secret" } }))
    );
    expect(stolen.status).toBe(401);
    const plain = await runInDurableObject(workspace, (instance) => instance.fetch(new Request("http://computer.internal/api")));
    expect(plain.status).toBe(400);
  });

  it("wakes the WorkspaceAgent by its name when the callback arrives after an eviction", async () => {
    const container = new FakeContainer();
    container.computerd = true;
    const { workspace, session, warm } = await workspaceWithContainer(container);
    expect(await connectOwnBackend(workspace)).toMatchObject({ ok: true });
    await container.dialed;
    const proxy = container.egress.get("computer.internal")!;
    const id = await runInDurableObject(workspace, (_instance, state) => state.id.toString());
    await evict(workspace);

    // The next thing to reach the evicted agent is the container, through the proxy (from the Sandbox, whose fetcher it is).
    const late = await runInDurableObject(sandboxStub(env, warm), async () => {
      const response = await proxy.fetch("http://computer.internal/api", { headers: { upgrade: "websocket", authorization: "Bearer stale" } });
      await response.body?.cancel();
      return response.status;
    });
    // A fresh instance (the test's seams are gone with the evicted one, so it has no container backend here).
    expect(late).toBe(404);
    // Woken by name (the ref carries it), the agent still knows it; by id alone it would not. Looked at
    // through an id-only stub, so this test's own access cannot supply the name.
    const byId = env.WorkspaceAgent.get(env.WorkspaceAgent.idFromString(id));
    expect(await runInDurableObject(byId, (_instance, state) => state.id.name)).toBe(session);
  });
});
