/**
 * The container path for the Workers-runtime tests, where no container
 * engine runs: a recording CommandRunner behind the WorkspaceAgent's
 * container seam, answering each wrapped command as the real wrapper
 * (src/tools/command-report.ts) would, and the real WarmPool over a
 * recording fleet. Like the real container, it remembers the token git was
 * authenticated with, so `gh auth token` prints it.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { GIT_AUTH_SCRIPT } from "../../src/run/git-auth";
import type { CommandRunner, RawRun, WorkspaceAgent } from "../../src/workspace-agent";
import { RecordingFleet } from "../pool/fakes";
import { poolWithFleet } from "../pool/seams";

type Recorded = { script: string; stdin?: string };

/** Answers a wrapped command as the real wrapper would, from the markers in the script. */
export class RecordingContainer implements CommandRunner {
  readonly runs: Recorded[] = [];
  /** What `gh auth login --with-token` was given last. */
  #ghToken = "";

  async run(script: string, options: { stdin?: string }): Promise<RawRun> {
    this.runs.push({ script, stdin: options.stdin });
    if (script === GIT_AUTH_SCRIPT) {
      this.#ghToken = options.stdin ?? "";
      return { exitCode: 0, stdout: "", stderr: "" };
    }
    const nonce = /"@@([A-Za-z0-9-]+)"/.exec(script)?.[1];
    const out = /\n(?:timeout -k 5 \d+ bash -c ')?gh auth token/.test(script)
      ? `${this.#ghToken}\n`
      : `${/\n(?:timeout -k 5 \d+ bash -c ')?echo ([^'\n]*)/.exec(script)?.[1] ?? ""}\n`;
    return {
      exitCode: 0,
      stdout: `\n@@${nonce} stdout ${out.length} 1\n${out}\n@@${nonce} stderr 0 0\n\n@@${nonce} end 0\n`,
      stderr: ""
    };
  }

  commands(): string[] {
    return this.runs.filter((run) => run.script !== GIT_AUTH_SCRIPT).map((run) => /echo ([^'\n]*)/.exec(run.script)?.[1] ?? "?");
  }

  auths(): Array<string | undefined> {
    return this.runs.filter((run) => run.script === GIT_AUTH_SCRIPT).map((run) => run.stdin);
  }
}

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
