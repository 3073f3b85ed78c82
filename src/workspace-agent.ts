/**
 * WorkspaceAgent: the issue's files (a Workspace on its own SQLite, named as
 * its ThinkAgent) and the shells that run commands on them, the worker shell
 * and the turn's container. A thin shell: it wires storage, bindings and seams
 * into collaborators in src/pool/ (backends, readiness, exec, the turn's
 * container, holding) and egress/workspace-egress.ts. Think's file tools reach
 * it through `__getWorkspaceStub`, the bash tool through `exec`, computerd
 * through `fetch`. No credential, no transcript: docs/containers.md.
 */
import { Agent, getAgentByName, type Connection } from "agents";
import { Workspace, type WorkspaceStub } from "@cloudflare/computer";
import { ContainerBackend, type ContainerBackendOptions, type ContainerHostHolder } from "@cloudflare/computer/backends/container";
import { WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
import curlCommands from "@cloudflare/computer/shell/curl";
import jqCommands from "@cloudflare/computer/shell/jq";
import { ContainerCommands, type CommandRunner, type RawRun } from "./pool/container-commands";
import { asksForEngine, ENGINE_PROBE_SANDBOX, NO_CONTAINER_ENGINE } from "./pool/engine";
import { ShellCommands } from "./pool/shell-commands";
import { RELEASE_RETRY_INITIAL_MS, RELEASE_RETRY_MAX_MS, TurnContainers, type RetryPolicy, type TurnPool, type TurnRef } from "./pool/turn-container";
import { TurnHolding } from "./pool/turn-holding";
import { WorkspaceBackends } from "./pool/workspace-backends";
import { maxToolOutputBytes, WorkspaceExec, type ExecRequest } from "./pool/workspace-exec";
import { WorkspaceReadiness } from "./pool/workspace-readiness";
import { sandboxStub } from "./sandbox";
import { requireBot } from "./run/bot-identity";
import type { BotIdentity, SubmissionStatus } from "./shared/dispatch";
import { githubHost } from "./shared/github-urls";
import { createLogger, type Logger } from "./run/log";
import { OneShotSchedules } from "./run/one-shot-schedule";
import type { BashResult } from "./run/bash-command";
import { WARM_POOL_NAME, warmPool } from "./warm-pool";
import { isContainerEgress, WorkspaceEgress } from "./egress/workspace-egress";
import type { EgressAgent } from "./egress/sandbox-egress";

/** How long a release waits for container commands still running (and their last sync) before it gives the container back. */
export const RELEASE_SYNC_WAIT_MS = 30_000;

export type { CommandRunner, ExecRequest, RawRun, TurnRef };

export class WorkspaceAgent extends Agent<Env> {
  /** First: the containerRunner seam's default runs through it. Built on first use, so it follows the seams set before. */
  readonly #backends = new WorkspaceBackends({
    make: {
      // Bounding is ours (run/command-report.ts): nothing is saved twice.
      workspace: (backends) => new Workspace({ storage: this.ctx.storage, backends, output: false }),
      shell: (options) => new WorkerShellBackend(options),
      container: (options) => new ContainerBackend(options)
    },
    // The name lets the WorkspaceProxy wake this object by name (so it keeps `this.name`).
    ref: () => ({ binding: "WorkspaceAgent", id: this.ctx.id.toString(), ...(this.ctx.id.name ? { name: this.ctx.id.name } : {}) }),
    // `curl` (and `jq` for what it fetches) are opt-in module groups.
    shell: () => ({ loader: this.env.LOADER, ctx: this.ctx, commands: [curlCommands, jqCommands] }),
    launchEnv: () => this.env,
    gateways: { shell: () => this.#egress.shellGateway(), container: () => this.#egress.containerGateway() },
    containersEnabled: () => this.containersEnabled(),
    engineAbsent: () => this.#readiness.engineAbsent,
    sandboxHost: async () => sandboxStub(this.env, await this.#turns.sandbox()) as unknown as ContainerHostHolder,
    overrides: () => this.containerBackendOverrides
  });

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
  protected containerRunner: CommandRunner = this.#backends.runner("container");

  /** Seam: how long a release waits for the last container commands and their sync (tests shorten it). */
  protected releaseSyncWaitMs = RELEASE_SYNC_WAIT_MS;
  /** Seam: the backoff of a failed release (tests shorten it). */
  protected releaseRetry: RetryPolicy = { initialMs: RELEASE_RETRY_INITIAL_MS, maxMs: RELEASE_RETRY_MAX_MS };
  /** Seam: the binding of the ThinkAgent namespace that runs this issue (tests run theirs under other classes). */
  protected issueAgentBinding = "ThinkAgent";
  /** Seam: options laid over the container backend's (tests shorten its timeouts). */
  protected containerBackendOverrides: Partial<ContainerBackendOptions> = {};
  /** Seam: the container backend this workspace built, if any (tests drive its connect). */
  protected containerBackend = (): ContainerBackend | undefined => this.#backends.containerBackend();

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
    maxOutputBytes: () => maxToolOutputBytes(this.env.MAX_TOOL_OUTPUT_BYTES),
    reconnect: () => this.#backends.close(),
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
  readonly #readiness = new WorkspaceReadiness({
    files: () => this.#backends.workspace.fs,
    marker: this.ctx.storage.kv,
    probe: () => this.containerProbe,
    containersEnabled: () => this.containersEnabled(),
    built: () => this.#backends.built,
    log: (event, fields) => this.#log(event, fields)
  });
  readonly #exec = new WorkspaceExec({
    containersEnabled: () => this.containersEnabled(),
    ready: () => this.#readiness.ensure(),
    containerRefusal: () => (this.#readiness.engineAbsent ? NO_CONTAINER_ENGINE : this.#backends.configError || undefined),
    shell: new ShellCommands({ runner: () => this.#backends.runner("shell"), files: () => this.#backends.workspace.fs, maxOutputBytes: () => maxToolOutputBytes(this.env.MAX_TOOL_OUTPUT_BYTES) }),
    container: this.#commands,
    beginTurn: (turn) => this.beginTurn(turn),
    setBot: (bot) => void (this.#bot = bot),
    log: (event, fields) => this.#log(event, fields)
  });
  readonly #holding = new TurnHolding({
    holding: () => this.#turns.holding(),
    status: async (submissionId) => ((await getAgentByName(this.env.ThinkAgent, this.name)) as unknown as IssueAgentStatus).submissionStatus(submissionId),
    end: (submissionId) => this.endTurn({ session: this.name, submissionId }, "ended-without-release"),
    log: (event, fields) => this.#log(event, fields)
  });

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
    return this.#readiness.ensure().then(() => this.#backends.workspace.stub());
  }

  /** Run one bash command for the model, with bounded output. Failures are data. */
  async exec(request: ExecRequest): Promise<BashResult> {
    return await this.#exec.run(request);
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
   * reclaiming; tests); a turn the issue's ThinkAgent says has ended is ended
   * here first (pool/turn-holding.ts).
   */
  async holding(): Promise<{ submissionId?: string; sandboxId?: string }> {
    return await this.#holding.current();
  }

  /** The namespace of the ThinkAgents that run this issue (the seam's binding). */
  #issueAgents(): Env["ThinkAgent"] {
    return (this.env as unknown as Record<string, Env["ThinkAgent"] | undefined>)[this.issueAgentBinding] ?? this.env.ThinkAgent;
  }

  /** Scheduled callback: retry the container releases that failed. */
  async retryReleases(): Promise<{ pending: number }> {
    return await this.#oneShots.run("retryReleases", () => this.#turns.retryReleases());
  }

  /** Empty /workspace. The transcript lives in ThinkAgent and is not touched. */
  async resetFiles(): Promise<void> {
    await this.#readiness.reset();
  }

  /**
   * Before the container goes back: let the commands still running here
   * finish (bounded), so their sync from the container lands, then drop the
   * connection (the next use of any backend reconnects lazily).
   */
  async #settleContainer(): Promise<void> {
    const { settled, running } = await this.#commands.settle(this.releaseSyncWaitMs);
    if (!settled) this.#log("container:release-sync-timeout", { running, waitedMs: this.releaseSyncWaitMs });
    await this.#backends.close();
  }

  #name(): string | undefined {
    try {
      return this.name;
    } catch {
      return undefined;
    }
  }
}

/** Where computerd's callback arrives (the ContainerBackend's `/api`), and every request the container sends out through the gateway. */
const COMPUTERD_CALLBACK_PATH = "/api";

/** What the WorkspaceAgent asks the issue's ThinkAgent: whether a submission has ended. */
type IssueAgentStatus = { submissionStatus(submissionId: string): Promise<SubmissionStatus | null> };
