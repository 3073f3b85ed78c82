/**
 * The container path for the Workers-runtime tests, where no container
 * engine runs: the recording container shell (recording-container.ts)
 * behind the WorkspaceAgent's container seam, and the real WarmPool over a
 * recording fleet.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import type { CommandRunner, WorkspaceAgent } from "../../src/workspace-agent";
import { RecordingFleet } from "../pool/fakes";
import { poolWithFleet } from "../pool/seams";
import { RecordingContainer } from "./recording-container";

export { RecordingContainer };

type WorkspaceSeams = { containersEnabled: () => boolean; poolName: string; containerRunner: CommandRunner };

/** Give the WorkspaceAgent a container path: the fakes behind the real pool. */
export async function withContainers(session: string, container: RecordingContainer, poolName: string) {
  const workspace = await getAgentByName(env.WorkspaceAgent, session);
  await runInDurableObject(workspace as unknown as DurableObjectStub<WorkspaceAgent>, (instance) => {
    const seams = instance as unknown as WorkspaceSeams;
    seams.containersEnabled = () => true;
    seams.poolName = poolName;
    seams.containerRunner = container;
  });
  return workspace as unknown as { holding(): Promise<{ submissionId?: string; sandboxId?: string }> } & DurableObjectStub;
}

/** A primed pool of its own and a recording container for `session`'s workspace. */
export async function containerFor(session: string) {
  const fleet = new RecordingFleet();
  const pool = await poolWithFleet(fleet);
  await pool.prime();
  const poolName = (await runInDurableObject(pool, (_instance, state) => state.id.name)) ?? "";
  const container = new RecordingContainer();
  const workspace = await withContainers(session, container, poolName);
  return { fleet, pool, container, workspace };
}
