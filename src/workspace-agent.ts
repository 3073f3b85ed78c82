/**
 * WorkspaceAgent: the issue's files and the shells that run commands on them.
 *
 * Addressed by the same name as the issue's ThinkAgent, it exclusively owns a
 * Workspace (`@cloudflare/computer`) on its own SQLite with two backends: the
 * worker shell (`shell`, the default) and, where Cloudflare Containers run,
 * the container backend (`container`). ThinkAgent reaches it over RPC: Think's
 * file tools through `__getWorkspaceStub`, the bash tool through `exec`.
 *
 * Container ownership follows the turn: `beginTurn` names the turn, the first
 * container command of that turn claims a warm container from the WarmPool
 * (idempotently, so an eviction does not claim a second one), and `endTurn`
 * releases it. Git in the container is authenticated as the App before the
 * turn's commands whenever the run's token has changed. It holds no
 * transcript and stores no token.
 */
import { Agent, type Connection } from "agents";
import { Workspace, type WorkspaceRegisteredBackend, type WorkspaceStub } from "@cloudflare/computer";
import { ContainerBackend, type ContainerHostHolder } from "@cloudflare/computer/backends/container";
import { WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
import { containerBackendOptions } from "./pool/launch-spec";
import { poolOwner, type PoolOwner } from "./pool/pool-types";
import { sandboxStub } from "./sandbox";
import { botLogin, gitAuthScript, tokenDigest } from "./run/git-auth";
import { createLogger, type Logger } from "./run/log";
import { isolateSecrets } from "./run/console-guard";
import { boundText, LOG_DIR, logPath, parseReport, wrapCommand, type StreamName } from "./tools/command-report";
import type { BackendId, BashInput, BashResult, BashStream } from "./tools/bash-tool";
import { WARM_POOL_NAME, warmPool } from "./warm-pool";

export const CONTAINER_UNAVAILABLE =
  "container backend unavailable: this environment has no container engine (local dev); use the shell backend";

const DEFAULT_MAX_TOOL_OUTPUT_BYTES = 16 * 1024;
// The backend's clock starts before start(): a stale-container reconcile and
// a cold boot both have to fit in it.
const CONTAINER_CONNECT_TIMEOUT_MS = 90_000;

/** The turn a workspace call belongs to. */
export type TurnRef = { session: string; submissionId: string };

export type ExecRequest = BashInput & { turn?: TurnRef; token?: string };

/** What one run of a script returned, before bounding. */
export type RawRun = { exitCode: number; stdout: string; stderr: string };

/** Runs a script on one backend. The seam tests replace for the container. */
export interface CommandRunner {
  run(script: string, options: { stdin?: string; timeoutMs: number }): Promise<RawRun>;
}

type TurnState = { owner: PoolOwner; submissionId: string; sandboxId?: string; authDigest?: string };

const TURN_KEY = "agent-think:workspace-turn";

export class WorkspaceAgent extends Agent<Env> {
  // Seams, kept as instance properties so they are not on the RPC surface;
  // tests swap in fakes with runInDurableObject (see test/ownership.test.ts).
  /** Whether Cloudflare Containers run here. */
  protected containersEnabled: () => boolean = () => this.env.CONTAINERS_ENABLED === "1";
  /** The WarmPool this workspace claims from. */
  protected poolName = WARM_POOL_NAME;
  /** Runs scripts on the container backend; the recording fake in tests. */
  protected containerRunner: CommandRunner = this.#runtimeRunner("container");

  readonly #workspace = new Workspace({
    storage: this.ctx.storage,
    backends: this.#backends(),
    // Bounding is ours (command-report.ts): nothing is saved twice.
    output: false
  });
  #log: Logger = (event, fields) =>
    createLogger({ session: this.#name(), component: "workspace" }, () => (this.#token ? [this.#token] : []))(event, fields);
  /** The run's token, in memory only, for a container claimed later in the turn. */
  #token = "";
  #ready: Promise<void> | undefined;

  #runtimeRunner(backend: BackendId): CommandRunner {
    return {
      run: async (script, { stdin, timeoutMs }) => {
        using handle = await this.#workspace.runtime.exec(script, {
          backend,
          encoding: "utf8",
          stdin,
          timeoutMs,
          output: false
        });
        const result = await handle.result();
        return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
      }
    };
  }

  #runner(backend: BackendId): CommandRunner {
    return backend === "container" ? this.containerRunner : this.#runtimeRunner("shell");
  }

  /** Reached over RPC only (no route leads here); a socket that got here anyway could not write state. */
  override shouldConnectionBeReadonly(): boolean {
    return true;
  }

  override validateStateChange(_next: unknown, source: Connection | "server"): void {
    if (source !== "server") throw new Error("a workspace's state is read-only");
  }

  __getWorkspaceStub(): Promise<WorkspaceStub> {
    return this.#ensureReady().then(() => this.#workspace.stub());
  }

  /** Run one bash command for the model, with bounded output. Failures are data. */
  async exec(request: ExecRequest): Promise<BashResult> {
    const { command, backend, timeoutMs } = request;
    if (backend === "container" && !this.containersEnabled()) return { backend, error: CONTAINER_UNAVAILABLE };
    await this.#ensureReady();
    const started = Date.now();
    const id = `${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
    const nonce = crypto.randomUUID().replaceAll("-", "");
    const maxBytes = this.#maxOutputBytes();
    try {
      if (backend === "container") {
        if (request.turn) await this.beginTurn(request.turn);
        if (request.token !== undefined) this.#holdToken(request.token);
        // Claim before connecting: the claim is the turn's, whichever call
        // (this one, or the backend's own connect) gets there first.
        await this.#sandboxHost();
        const auth = await this.#authenticate();
        if (auth) return { backend, error: auth };
      }
      if (backend === "shell") {
        const raw = await this.#runner("shell").run(command, { timeoutMs });
        const [stdout, stderr] = await Promise.all([
          this.#boundAndKeep(raw.stdout, "stdout", id, maxBytes),
          this.#boundAndKeep(raw.stderr, "stderr", id, maxBytes)
        ]);
        return { backend, exitCode: raw.exitCode, stdout, stderr, durationMs: Date.now() - started };
      }
      // The container's output never leaves it whole: the wrapper keeps it
      // in /temp and reports a head and tail. coreutils' timeout stops the
      // command and leaves the report intact.
      const script = wrapCommand(command, { id, nonce, maxBytes, timeoutSeconds: timeoutMs / 1000 });
      const raw = await this.#runner(backend).run(script, { timeoutMs: timeoutMs + 15_000 });
      const parsed = parseReport(raw.stdout, { id, nonce, maxBytes });
      if (!parsed.ok) {
        return {
          backend,
          error: `${parsed.reason} (exit ${raw.exitCode}${raw.stderr ? `: ${raw.stderr.slice(0, 500)}` : ""})`
        };
      }
      const { exitCode, stdout, stderr } = parsed.report;
      return {
        backend,
        exitCode,
        stdout,
        stderr,
        durationMs: Date.now() - started,
        ...(exitCode === 124 ? { timedOut: true } : {})
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#log("exec:error", { backend, error: message });
      return { backend, error: message };
    }
  }

  /** Bound one stream of the worker shell; keep the whole of a cut stream in /temp. */
  async #boundAndKeep(text: string, stream: StreamName, id: string, maxBytes: number): Promise<BashStream> {
    const bounded = boundText(text, { maxBytes, log: logPath(id, stream), stream });
    if (bounded.log) {
      await this.#workspace.fs.mkdir(LOG_DIR, { recursive: true });
      await this.#workspace.fs.writeFile(bounded.log, text);
    }
    return bounded;
  }

  /** Name the turn that container use belongs to. Idempotent. */
  async beginTurn(turn: TurnRef): Promise<void> {
    const current = await this.ctx.storage.get<TurnState>(TURN_KEY);
    if (current?.submissionId === turn.submissionId) return;
    if (current) await this.#release(current, "superseded");
    await this.ctx.storage.put<TurnState>(TURN_KEY, {
      owner: poolOwner(turn.session, turn.submissionId),
      submissionId: turn.submissionId
    });
  }

  /** The turn ended (done, error, recovery exhausted, cancelled): give its container back. */
  async endTurn(turn: TurnRef, outcome: string): Promise<{ released: boolean }> {
    const current = await this.ctx.storage.get<TurnState>(TURN_KEY);
    this.#token = "";
    if (current?.submissionId !== turn.submissionId) return { released: false };
    const released = await this.#release(current, outcome);
    await this.ctx.storage.delete(TURN_KEY);
    return { released };
  }

  /**
   * Called before each model call with the run's current token: when a
   * container is attached and the token changed since it was authenticated,
   * authenticate again now; otherwise keep it for the first container use.
   */
  async syncGitAuth(turn: TurnRef, token: string): Promise<{ authenticated: boolean; error?: string }> {
    this.#holdToken(token);
    const current = await this.ctx.storage.get<TurnState>(TURN_KEY);
    if (current?.submissionId !== turn.submissionId || !current.sandboxId || !this.containersEnabled()) {
      return { authenticated: false };
    }
    const error = await this.#authenticate();
    return error ? { authenticated: false, error } : { authenticated: true };
  }

  /** The turn and container this workspace holds, for tests and the dashboard. */
  async holding(): Promise<{ submissionId?: string; sandboxId?: string }> {
    const current = await this.ctx.storage.get<TurnState>(TURN_KEY);
    return { submissionId: current?.submissionId, sandboxId: current?.sandboxId };
  }

  /** Empty /workspace. The transcript lives in ThinkAgent and is not touched. */
  async resetFiles(): Promise<void> {
    await this.#ensureReady();
    await this.#workspace.fs.rm("/workspace", { recursive: true, force: true });
    await this.#workspace.fs.mkdir("/workspace", { recursive: true });
  }

  /** Keep the run's token for the container's git auth; the console guard redacts it too. */
  #holdToken(token: string): void {
    this.#token = token;
    isolateSecrets.add(token);
  }

  /** Authenticate the container if the token changed. Returns an error message or undefined. */
  async #authenticate(): Promise<string | undefined> {
    if (!this.#token) return undefined; // local dev: no GitHub access to set up
    const current = await this.ctx.storage.get<TurnState>(TURN_KEY);
    if (!current) return "no turn is running in this workspace";
    const digest = await tokenDigest(this.#token);
    if (current.authDigest === digest) return undefined;
    this.#log("git-auth:start", {});
    const run = await this.containerRunner.run(gitAuthScript(botLogin(this.env.BOT_LOGIN)), { stdin: this.#token, timeoutMs: 60_000 });
    if (run.exitCode !== 0) {
      this.#log("git-auth:failed", { exitCode: run.exitCode });
      return `git auth failed (exit ${run.exitCode}): ${run.stderr.slice(0, 500)}`;
    }
    const latest = (await this.ctx.storage.get<TurnState>(TURN_KEY)) ?? current;
    await this.ctx.storage.put<TurnState>(TURN_KEY, { ...latest, authDigest: digest });
    this.#log("git-auth:done", {});
    return undefined;
  }

  /** The container backend's host: the turn's claimed Sandbox, claiming one on first use. */
  async #sandboxHost(): Promise<ContainerHostHolder> {
    const current = await this.ctx.storage.get<TurnState>(TURN_KEY);
    if (!current) throw new Error("no turn is running in this workspace, so it holds no container");
    let sandboxId = current.sandboxId;
    if (!sandboxId) {
      const claim = await this.#pool().claim(current.owner);
      sandboxId = claim.sandboxId;
      const latest = (await this.ctx.storage.get<TurnState>(TURN_KEY)) ?? current;
      await this.ctx.storage.put<TurnState>(TURN_KEY, { ...latest, sandboxId });
      this.#log("container:claimed", { owner: current.owner, sandboxId, reused: claim.reused });
    }
    return sandboxStub(this.env, sandboxId) as unknown as ContainerHostHolder;
  }

  async #release(state: TurnState, outcome: string): Promise<boolean> {
    if (!state.sandboxId) return false;
    // Drop the connection to a container about to be stopped; the next use
    // of any backend reconnects lazily.
    await this.#workspace.close().catch(() => {});
    const result = await this.#pool().release(state.owner);
    this.#log("container:released", { owner: state.owner, sandboxId: state.sandboxId, outcome, released: result.released });
    return result.released;
  }

  #pool() {
    return warmPool(this.env, this.poolName);
  }

  #backends(): WorkspaceRegisteredBackend[] {
    const workspace = { binding: "WorkspaceAgent", id: this.ctx.id.toString() };
    const backends: WorkspaceRegisteredBackend[] = [
      new WorkerShellBackend({ id: "shell", loader: this.env.LOADER, workspace, ctx: this.ctx })
    ];
    if (this.env.CONTAINERS_ENABLED === "1") {
      backends.push(
        new ContainerBackend({
          // The same launch spec the pool warms with, so a claimed warm
          // container is adopted, not relaunched (src/pool/launch-spec.ts).
          ...containerBackendOptions(),
          id: "container",
          container: () => this.#sandboxHost(),
          workspace,
          connectTimeoutMs: CONTAINER_CONNECT_TIMEOUT_MS
        })
      );
    }
    return backends;
  }

  #ensureReady(): Promise<void> {
    // A fresh workspace has no /workspace directory to write into.
    this.#ready ??= this.#workspace.fs.mkdir("/workspace", { recursive: true }).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  #maxOutputBytes(): number {
    const parsed = Number.parseInt(this.env.MAX_TOOL_OUTPUT_BYTES ?? "", 10);
    return Number.isSafeInteger(parsed) && parsed >= 256 ? parsed : DEFAULT_MAX_TOOL_OUTPUT_BYTES;
  }

  #name(): string | undefined {
    try {
      return this.name;
    } catch {
      return undefined;
    }
  }
}
