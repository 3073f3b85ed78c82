/**
 * WorkspaceAgent: the issue's files (a Workspace on its own SQLite, named as
 * the issue's ThinkAgent) and the shells that run commands on them: the
 * worker shell and, where containers run, the container backend, whose
 * container is claimed per turn (pool/turn-container.ts). Think's file tools
 * reach it through `__getWorkspaceStub`, the bash tool through `exec`,
 * computerd's callback through `fetch`. Neither shell holds a credential:
 * every request goes through the egress gateway, a container's only while
 * the turn holding it runs (egress/workspace-egress.ts). docs/containers.md
 * and docs/security.md say why; it holds no transcript.
 */
import { Agent, getAgentByName, type Connection } from "agents";
import { Workspace, type WorkspaceRegisteredBackend, type WorkspaceStub } from "@cloudflare/computer";
import { ContainerBackend, type ContainerBackendOptions, type ContainerHostHolder } from "@cloudflare/computer/backends/container";
import { WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
import curlCommands from "@cloudflare/computer/shell/curl";
import jqCommands from "@cloudflare/computer/shell/jq";
import { callingSideHolder } from "./pool/calling-side-host";
import { ContainerCommands, type CommandRunner, type RawRun } from "./pool/container-commands";
import { askedEngine, asksForEngine, ENGINE_PROBE_SANDBOX, NO_CONTAINER_ENGINE, NO_CONTAINER_ENGINE_FIX } from "./pool/engine";
import { containerBackendOptions } from "./pool/launch-spec";
import { RELEASE_RETRY_INITIAL_MS, RELEASE_RETRY_MAX_MS, TurnContainers, type RetryPolicy, type TurnPool, type TurnRef } from "./pool/turn-container";
import { sandboxStub } from "./sandbox";
import { requireBot } from "./run/bot-identity";
import type { BotIdentity } from "./shared/dispatch";
import { githubHost } from "./shared/github-urls";
import { createLogger, type Logger } from "./run/log";
import { OneShotSchedules } from "./run/one-shot-schedule";
import { boundText, commandId, LOG_DIR, logPath, type StreamName } from "./run/command-report";
import { CONTAINER_UNAVAILABLE, type BackendId, type BashInput, type BashResult, type BashStream } from "./run/bash-command";
import { WARM_POOL_NAME, warmPool } from "./warm-pool";
import { TERMINAL_STATUSES } from "./run/submission";
import type { ThinkAgent } from "./agent";
import { isContainerEgress, WorkspaceEgress } from "./egress/workspace-egress";
import type { EgressAgent } from "./egress/sandbox-egress";

const DEFAULT_MAX_TOOL_OUTPUT_BYTES = 16 * 1024;
/** How long a release waits for container commands still running (and their last sync) before it gives the container back. */
export const RELEASE_SYNC_WAIT_MS = 30_000;

export type { TurnRef };

/** A command for the model; `bot` is the run's (absent when the run's comes from configuration). */
export type ExecRequest = BashInput & { turn?: TurnRef; bot?: BotIdentity };

export type { CommandRunner, RawRun };

export class WorkspaceAgent extends Agent<Env> {
  // Seams, kept as instance properties so they are not on the RPC surface;
  // tests swap in fakes with runInDurableObject (see test/ownership.test.ts).
  /** Whether Cloudflare Containers run here. */
  protected containersEnabled: () => boolean = () => this.env.CONTAINERS_ENABLED === "1";
  /**
   * Seam: asks a Sandbox whether wrangler dev gave it a container; null
   * where nothing is asked (a deploy, containers off: pool/engine.ts).
   */
  protected containerProbe: (() => Promise<boolean>) | null = asksForEngine(this.env)
    ? () => sandboxStub(this.env, ENGINE_PROBE_SANDBOX).hasContainer()
    : null;
  /** The WarmPool this workspace claims from. */
  protected poolName = WARM_POOL_NAME;
  /** Where claims and releases go: that WarmPool (tests put a failing or slow pool in front). */
  protected pool: () => TurnPool = () => warmPool(this.env, this.poolName);
  /** Runs scripts on the container backend; the recording fake in tests. */
  protected containerRunner: CommandRunner = this.#runtimeRunner("container");

  /** Seam: how long a release waits for the last container commands and their sync (tests shorten it). */
  protected releaseSyncWaitMs = RELEASE_SYNC_WAIT_MS;
  /** Seam: the backoff of a failed release (tests shorten it). */
  protected releaseRetry: RetryPolicy = { initialMs: RELEASE_RETRY_INITIAL_MS, maxMs: RELEASE_RETRY_MAX_MS };
  /** Seam: the binding of the ThinkAgent namespace that runs this issue (tests run theirs under other classes). */
  protected issueAgentBinding = "ThinkAgent";
  /** Seam: options laid over the container backend's (tests shorten its timeouts). */
  protected containerBackendOverrides: Partial<ContainerBackendOptions> = {};
  /** Seam: the container backend this workspace built, if any (tests drive its connect). */
  protected containerBackend = (): ContainerBackend | undefined => {
    void this.#workspace;
    return this.#containerBackend;
  };

  #workspaceInstance: Workspace | undefined;
  /** The container backend, when this environment has one: computerd's /api upgrade goes to it. */
  #containerBackend: ContainerBackend | undefined;
  /** Why there is no container backend although containers are on (a bad setting), for every container command. */
  #containerConfigError: string | undefined;
  /** Local dev whose Sandbox has no container (containerProbe): container commands answer NO_CONTAINER_ENGINE. */
  #engineAbsent = false;
  readonly #oneShots = new OneShotSchedules<"retryReleases">(this);
  readonly #turns = new TurnContainers({
    store: this.ctx.storage,
    pool: () => this.pool(),
    log: (event, fields) => this.#log(event, fields),
    now: () => Date.now(),
    scheduleRetry: (ms) => this.#oneShots.request("retryReleases", Date.now() + Math.max(ms, 1_000)),
    beforeRelease: () => this.#settleContainer(),
    retryPolicy: () => this.releaseRetry
  });
  readonly #commands = new ContainerCommands({
    runner: () => this.containerRunner,
    turns: this.#turns,
    bot: () => requireBot(this.#bot, this.env),
    github: () => githubHost(this.env.GITHUB_API_URL),
    maxOutputBytes: () => this.#maxOutputBytes(),
    reconnect: async () => {
      await this.#workspaceInstance?.close().catch(() => {});
    },
    log: (event, fields) => this.#log(event, fields)
  });
  #log: Logger = (event, fields) => createLogger({ session: this.#name(), component: "workspace" }, () => [])(event, fields);
  /** Both shells' way out: the egress gateway, as the running turn (egress/workspace-egress.ts). */
  readonly #egress = new WorkspaceEgress({
    session: () => this.name,
    binding: () => this.issueAgentBinding,
    gateway: (props) => this.ctx.exports.SandboxEgress({ props }) as unknown as Fetcher,
    issueAgent: async () => (await getAgentByName(this.#issueAgents(), this.name)) as unknown as EgressAgent,
    holding: () => this.#turns.holding(),
    log: (event, fields) => this.#log(event, fields)
  });
  /** The run's bot as GitHub named it, from the latest command; undefined: configuration decides (bot-identity.ts). */
  #bot: BotIdentity | undefined;
  #ready: Promise<void> | undefined;

  /**
   * Built on first use, not in a field initializer, so the backends follow
   * the `containersEnabled` seam (tests turn the container path on).
   */
  get #workspace(): Workspace {
    this.#workspaceInstance ??= new Workspace({
      storage: this.ctx.storage,
      backends: this.#backends(),
      // Bounding is ours (command-report.ts): nothing is saved twice.
      output: false
    });
    return this.#workspaceInstance;
  }

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

  /**
   * computerd's callback: the container dials `ws://computer.internal/api`
   * and the WorkspaceProxy forwards the upgrade here. It belongs to the
   * container backend's pending connect (which checks the bearer secret);
   * the agents SDK's own socket handling would swallow it. Every other
   * request is the SDK's.
   */
  override async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === COMPUTERD_CALLBACK_PATH) {
      const backend = this.containerBackend();
      if (!backend) return new Response("no container backend in this workspace", { status: 404 });
      return isContainerEgress(request) ? await this.#egress.fromContainer(request, backend) : await backend.handleFetch(request);
    }
    return await super.fetch(request);
  }


  __getWorkspaceStub(): Promise<WorkspaceStub> {
    return this.#ensureReady().then(() => this.#workspace.stub());
  }

  /** Run one bash command for the model, with bounded output. Failures are data. */
  async exec(request: ExecRequest): Promise<BashResult> {
    const { backend } = request;
    if (backend === "container" && !this.containersEnabled()) return { backend, error: CONTAINER_UNAVAILABLE };
    await this.#ensureReady();
    if (backend === "container" && this.#engineAbsent) return { backend, error: NO_CONTAINER_ENGINE };
    if (backend === "container" && this.#containerConfigError) return { backend, error: this.#containerConfigError };
    try {
      if (backend === "shell") return await this.#execShell(request);
      if (request.turn) await this.beginTurn(request.turn);
      this.#bot = request.bot;
      return await this.#commands.run(request.command, request.timeoutMs);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#log("exec:error", { backend, error: message });
      return { backend, error: message };
    }
  }

  async #execShell({ command, timeoutMs }: ExecRequest): Promise<BashResult> {
    const started = Date.now();
    const id = commandId();
    const maxBytes = this.#maxOutputBytes();
    const raw = await this.#runner("shell").run(command, { timeoutMs });
    const [stdout, stderr] = await Promise.all([
      this.#boundAndKeep(raw.stdout, "stdout", id, maxBytes),
      this.#boundAndKeep(raw.stderr, "stderr", id, maxBytes)
    ]);
    return { backend: "shell", exitCode: raw.exitCode, stdout, stderr, durationMs: Date.now() - started };
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
    await this.#turns.begin(turn);
  }

  /** The turn ended (done, error, recovery exhausted, cancelled): give its container back, durably. */
  async endTurn(turn: TurnRef, outcome: string): Promise<{ released: boolean; pending?: boolean }> {
    this.#bot = undefined;
    return await this.#turns.end(turn, outcome);
  }

  /**
   * The turn and container this workspace holds (the WarmPool asks before
   * reclaiming; tests). A turn whose submission the issue's ThinkAgent says
   * has ended is ended here first: its endTurn never arrived (the RPC
   * failed), and nothing else would give its container back.
   */
  async holding(): Promise<{ submissionId?: string; sandboxId?: string }> {
    const held = await this.#turns.holding();
    if (held.submissionId && (await this.#submissionEnded(held.submissionId))) {
      this.#log("turn:ended-elsewhere", { submissionId: held.submissionId, sandboxId: held.sandboxId });
      await this.endTurn({ session: this.name, submissionId: held.submissionId }, "ended-without-release");
      return await this.#turns.holding();
    }
    return held;
  }

  /** The namespace of the ThinkAgents that run this issue (the seam's binding). */
  #issueAgents(): Env["ThinkAgent"] {
    return (this.env as unknown as Record<string, Env["ThinkAgent"] | undefined>)[this.issueAgentBinding] ?? this.env.ThinkAgent;
  }

  /** Whether the ThinkAgent reports `submissionId` in a terminal status; unknown or unreachable counts as not ended. */
  async #submissionEnded(submissionId: string): Promise<boolean> {
    try {
      const agent = (await getAgentByName(this.env.ThinkAgent, this.name)) as unknown as Pick<ThinkAgent, "submissionStatus">;
      const status = await agent.submissionStatus(submissionId);
      return status !== null && TERMINAL_STATUSES.has(status.status);
    } catch (error) {
      this.#log("turn:status-unknown", { submissionId, error: error instanceof Error ? error.message : String(error) });
      return false;
    }
  }

  /** Scheduled callback: retry the container releases that failed. */
  async retryReleases(): Promise<{ pending: number }> {
    return await this.#oneShots.run("retryReleases", () => this.#turns.retryReleases());
  }

  /** Empty /workspace. The transcript lives in ThinkAgent and is not touched. */
  async resetFiles(): Promise<void> {
    await this.#ensureReady();
    await this.#workspace.fs.rm("/workspace", { recursive: true, force: true });
    await this.#workspace.fs.mkdir("/workspace", { recursive: true });
  }

  /**
   * Before the container goes back: let the commands still running here
   * finish (bounded), so their sync from the container lands, then drop the
   * connection (the next use of any backend reconnects lazily).
   */
  async #settleContainer(): Promise<void> {
    const { settled, running } = await this.#commands.settle(this.releaseSyncWaitMs);
    if (!settled) this.#log("container:release-sync-timeout", { running, waitedMs: this.releaseSyncWaitMs });
    await this.#workspaceInstance?.close().catch(() => {});
  }

  /** The container backend's host: the turn's Sandbox, claiming one on first use. */
  async #sandboxHost(): Promise<ContainerHostHolder> {
    return sandboxStub(this.env, await this.#turns.sandbox()) as unknown as ContainerHostHolder;
  }


  #backends(): WorkspaceRegisteredBackend[] {
    // The name lets the WorkspaceProxy wake this object by name (so it keeps `this.name`).
    const workspace = { binding: "WorkspaceAgent", id: this.ctx.id.toString(), ...(this.ctx.id.name ? { name: this.ctx.id.name } : {}) };
    const gateway = this.#egress.shellGateway();
    const backends: WorkspaceRegisteredBackend[] = [
      new WorkerShellBackend({
        id: "shell",
        loader: this.env.LOADER,
        workspace,
        ctx: this.ctx,
        // `curl` (and `jq` for what it fetches) are opt-in module groups; curl's requests go through the gateway,
        // under the run's policy. The revision keeps one Dynamic Worker per issue.
        commands: [curlCommands, jqCommands],
        egress: { mode: "http-gateway", gateway, revision: EGRESS_REVISION }
      })
    ];
    if (this.containersEnabled() && !this.#engineAbsent) {
      let options: ReturnType<typeof containerBackendOptions>;
      try {
        options = containerBackendOptions(this.env, this.#egress.containerGateway());
      } catch (error) {
        // A bad container setting (CONTAINER_INSTANCE_TYPE, GITHUB_API_URL) costs the container, never the shell.
        this.#containerConfigError = error instanceof Error ? error.message : String(error);
        return backends;
      }
      this.#containerBackend = new ContainerBackend({
        // The same launch spec the pool warms with, so a claimed warm
        // container is adopted, not relaunched (src/pool/launch-spec.ts).
        ...options,
        id: "container",
        // The host is in the Sandbox, across RPC: its health probe's signal stays here.
        container: () => callingSideHolder(this.#sandboxHost()),
        workspace,
        ...this.containerBackendOverrides
      });
      backends.push(this.#containerBackend);
    }
    return backends;
  }

  #ensureReady(): Promise<void> {
    // The engine first: it decides whether the workspace gets a container backend.
    // A fresh workspace has no /workspace directory to write into.
    this.#ready ??= this.#askEngine()
      .then(() => this.#workspace.fs.mkdir("/workspace", { recursive: true }))
      .then(() => this.#trustedSince())
      .catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      });
    return this.#ready;
  }

  /** Files from before each trust tier had a workspace of its own (a reporter's run may have written them) are dropped, once. */
  async #trustedSince(): Promise<void> {
    if (this.ctx.storage.kv.get(TRUST_MARKER_KEY)) return;
    const entries = await this.#workspace.fs.readdir("/workspace");
    if (entries.length > 0) {
      await this.#workspace.fs.rm("/workspace", { recursive: true, force: true });
      await this.#workspace.fs.mkdir("/workspace", { recursive: true });
      this.#log("workspace:emptied-once", { entries: entries.length, why: "written before each trust tier had its own workspace" });
    }
    this.ctx.storage.kv.put(TRUST_MARKER_KEY, 1);
  }

  /** Once per instance, in local dev with containers on: is there a container to start? Said once in the log when not. */
  async #askEngine(): Promise<void> {
    const probe = this.containerProbe;
    if (!probe || !this.containersEnabled() || this.#workspaceInstance) return;
    if ((await askedEngine(probe)) !== "absent") return;
    this.#engineAbsent = true;
    this.#log("workspace:no-container-engine", { error: NO_CONTAINER_ENGINE, fix: NO_CONTAINER_ENGINE_FIX });
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

/** The worker shell's loader cache key for the gateway egress: the gateway is the same entrypoint for every turn. */
const EGRESS_REVISION = "sandbox-egress-1";

/** Set once a workspace holds only what runs of its own trust tier wrote (docs/storage.md). */
const TRUST_MARKER_KEY = "agent-think:workspace-trust-v1";

/** Where computerd's callback arrives (the ContainerBackend's `/api`), and every request the container sends out through the gateway. */
const COMPUTERD_CALLBACK_PATH = "/api";



