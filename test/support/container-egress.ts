/**
 * A run's container path for the egress tests, with no container engine: the
 * real ContainerBackend over a fake computerd in the warmed Sandbox, the
 * recording runner for its commands, and a way to send what the container
 * would, from the Sandbox, through the workspace's registered egress.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import type { ContainerBackend, ContainerBackendOptions } from "@cloudflare/computer/backends/container";
import { sessionName } from "../../src/run/session-name";
import { sandboxStub } from "../../src/sandbox";
import type { CommandRunner, WorkspaceAgent } from "../../src/workspace-agent";
import { FakeContainer, RecordingFleet } from "../pool/fakes";
import { installContainer, poolWithFleet } from "../pool/seams";
import { RecordingContainer } from "./recording-container";

/** The WorkspaceAgent's seams these tests set. */
export type Seams = {
  issueAgentBinding: string;
  containersEnabled: () => boolean;
  poolName: string;
  containerRunner: CommandRunner;
  containerBackendOverrides: Partial<ContainerBackendOptions>;
  containerBackend: () => ContainerBackend | undefined;
};

export async function workspaceOf(session: string) {
  return (await getAgentByName(env.WorkspaceAgent, session)) as unknown as DurableObjectStub<WorkspaceAgent>;
}

/** A run on `repo` whose container path is the real backend over a fake computerd, and the recording runner for its commands. */
export async function containerRun(repo: string) {
  const session = sessionName(repo, 5);
  const fleet = new RecordingFleet();
  const pool = await poolWithFleet(fleet);
  await pool.prime();
  const [warm] = fleet.warmed();
  const container = new FakeContainer();
  container.computerd = true;
  await installContainer(sandboxStub(env, warm!), container);
  const poolName = (await runInDurableObject(pool, (_instance, state) => state.id.name)) ?? "";
  const runner = new RecordingContainer();
  const workspace = await workspaceOf(session);
  await runInDurableObject(workspace, (instance) => {
    const seams = instance as unknown as Seams;
    seams.containersEnabled = () => true;
    seams.poolName = poolName;
    seams.containerRunner = runner;
    seams.containerBackendOverrides = { connectTimeoutMs: 5_000, heartbeatIntervalMs: 0 };
  });
  return { session, container, runner, workspace, sandboxId: warm! };
}

/**
 * Connect the workspace's own backend (its egress registered on the
 * container), then send what the container would, from the Sandbox (the
 * interceptions are its I/O, as the platform's are the container's).
 */
export async function sendFromContainer(workspace: DurableObjectStub<WorkspaceAgent>, sandboxId: string, container: FakeContainer, requests: Array<() => Request>) {
  const connected = await runInDurableObject(workspace, async (instance) => {
    const backend = (instance as unknown as Seams).containerBackend();
    if (!backend) return "no backend";
    try {
      await backend.connect();
      return "connected";
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  });
  if (connected !== "connected") throw new Error(`the backend did not connect: ${connected}`);
  return await runInDurableObject(sandboxStub(env, sandboxId), async () => {
    const answers: Array<{ status: number; text: string }> = [];
    for (const request of requests) {
      const response = await container.send(request());
      answers.push({ status: response.status, text: await response.text() });
    }
    return answers;
  });
}
