/**
 * The container path for the Workers-runtime tests, where no container
 * engine runs: a recording CommandRunner behind the WorkspaceAgent's
 * container seam, answering each wrapped command as the real wrapper
 * (src/tools/command-report.ts) would, and the real WarmPool over a
 * recording fleet. Like a real container it remembers what was logged in:
 * the token git was authenticated with (so `gh auth token` prints it) and
 * the login markers under /temp, which the auth guard in front of every
 * command checks; `replace()` swaps in a fresh container that has neither.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { AUTH_MARKER_DIR } from "../../src/run/git-auth";
import type { CommandRunner, RawRun, WorkspaceAgent } from "../../src/workspace-agent";
import { deferred, RecordingFleet, type Deferred } from "../pool/fakes";
import { poolWithFleet } from "../pool/seams";

type Recorded = { script: string; stdin?: string };

const isAuthScript = (script: string) => script.includes("gh auth login");
const markerIn = (script: string, form: "guard" | "write") =>
  new RegExp(form === "guard" ? `\\[ ! -e ${AUTH_MARKER_DIR}/([0-9a-f]{32}) \\]` : `: > ${AUTH_MARKER_DIR}/([0-9a-f]{32})`).exec(script)?.[1];

/** Answers a wrapped command as the real wrapper would, from the markers in the script. */
export class RecordingContainer implements CommandRunner {
  readonly runs: Recorded[] = [];
  /** Commands the auth guard stopped because this container had not logged in with the current token. */
  readonly guardStops: string[] = [];
  /** What `gh auth login --with-token` was given last. */
  #ghToken = "";
  /** Login markers in this container's /temp. */
  #markers = new Set<string>();
  /** How many containers this one replaced. */
  generation = 0;
  #stopped = new WeakSet<Recorded>();
  #held: Deferred | undefined;
  #failNext: string | undefined;

  /** Make the next command throw `message` (as a backend whose connect failed does). */
  failNextWith(message: string): void {
    this.#failNext = message;
  }

  /** Make the next commands wait (as a slow command and its sync back would) until `releaseHeld()`. */
  hold(): void {
    this.#held ??= deferred();
  }

  releaseHeld(): void {
    this.#held?.resolve();
    this.#held = undefined;
  }

  async run(script: string, options: { stdin?: string }): Promise<RawRun> {
    const recorded: Recorded = { script, stdin: options.stdin };
    this.runs.push(recorded);
    if (this.#held && !isAuthScript(script)) await this.#held.promise;
    if (this.#failNext !== undefined) {
      const message = this.#failNext;
      this.#failNext = undefined;
      throw new Error(message);
    }
    if (isAuthScript(script)) {
      this.#ghToken = options.stdin ?? "";
      const marker = markerIn(script, "write");
      if (marker) this.#markers.add(marker);
      return { exitCode: 0, stdout: "", stderr: "" };
    }
    const nonce = /"@@([A-Za-z0-9-]+)"/.exec(script)?.[1];
    const guard = markerIn(script, "guard");
    if (guard && !this.#markers.has(guard)) {
      this.guardStops.push(this.#command(script));
      this.#stopped.add(recorded);
      return { exitCode: 0, stdout: `\n@@${nonce} needs-git-auth\n`, stderr: "" };
    }
    const out = /\bgh auth token\b/.test(script)
      ? `${this.#ghToken}\n`
      : `${this.#command(script)}\n`;
    return {
      exitCode: 0,
      stdout: `\n@@${nonce} stdout ${out.length} 1\n${out}\n@@${nonce} stderr 0 0\n\n@@${nonce} end 0\n`,
      stderr: ""
    };
  }

  /** A new container in place of this one (a crash relaunch, a restart): no login, no markers. */
  replace(): void {
    this.#ghToken = "";
    this.#markers = new Set();
    this.generation++;
  }

  /** The echoed text of each command that ran to the end (not the ones the guard stopped). */
  commands(): string[] {
    return this.runs
      .filter((run) => !isAuthScript(run.script) && !this.#stoppedAt(run))
      .map((run) => this.#command(run.script));
  }

  /** The tokens git was logged in with, in order. */
  auths(): Array<string | undefined> {
    return this.runs.filter((run) => isAuthScript(run.script)).map((run) => run.stdin);
  }

  #command(script: string): string {
    return /\becho ([^'\n]*)/.exec(script)?.[1] ?? "?";
  }

  #stoppedAt(run: Recorded): boolean {
    return this.#stopped.has(run);
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
