/**
 * Sandbox: one container host. It runs computerd in its container and serves
 * the host surface the WorkspaceAgent's `ContainerBackend` dials; the
 * WarmPool pre-starts it (`warm()`) and retires it (`stop()`), and decides
 * who uses it. Here: the first start reconciles a container inherited across
 * a deploy, starts and stops are serialized (a stopped Sandbox never starts
 * again), and an alarm ends the container at its hard lifetime. Without
 * containers every method fails at once. docs/containers.md says why.
 */
import { DurableObject } from "cloudflare:workers";
import {
  WorkspaceContainerAPI,
  type ContainerLaunchSpec,
  type ContainerRuntimeInfo,
  type WorkspaceRef
} from "@cloudflare/computer/backends/container";
import type { SandboxEgressProxyProps } from "./egress/sandbox-proxy";
import { createLogger, type Logger } from "./run/log";
import {
  ContainerUnavailableError,
  containersEnabled,
  describeError,
  SandboxExpiredError,
  SandboxRetiredError,
  SandboxStopError,
  SandboxUnhealthyError
} from "./pool/errors";
import { DEFAULT_HEALTH_POLICY, HEALTH_PATH, waitUntilHealthy, type HealthPolicy } from "./pool/health";
import { CONTAINER_PORT, warmLaunchSpec } from "./pool/launch-spec";
import {
  containerMaxLifetimeMs,
  LIFETIME_STOP_RETRY_MS,
  lifetimeDecision,
  type LifetimeRecord
} from "./pool/lifetime";
import { DEFAULT_RECONCILE_POLICY, reconcileThenStart, waitUntilStopped, type ReconcilePolicy } from "./pool/reconcile";

/** Marks a Sandbox whose container was stopped; its id is never started again. */
const RETIRED_KEY = "sandbox:retired";
/** When this Sandbox first launched its container (a LifetimeRecord); forgotten with the rest on stop. */
const STARTED_KEY = "sandbox:started";

/** The Durable Object state with its container, as WorkspaceContainerAPI reads it. */
export type ContainerContext = DurableObjectState & { container: Container };

export type SandboxWarmResult = {
  /** launched/relaunched: booted now; adopted: an earlier start's container; running: already warm in this isolate. */
  outcome: ContainerRuntimeInfo["outcome"] | "running";
  /** How long computerd took to answer its health check. */
  healthyAfterMs: number;
};

export type SandboxStopResult = { stopped: true; wasRunning: boolean };

/** The Sandbox stub for a sandbox id handed out by the WarmPool. */
export function sandboxStub(env: Pick<Env, "Sandbox">, sandboxId: string): DurableObjectStub<Sandbox> {
  return env.Sandbox.getByName(sandboxId);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Launch = <T>(launch: () => Promise<T>, freshStart: () => Promise<T>) => Promise<T>;

/**
 * WorkspaceContainerAPI whose start() and restart() go through the Sandbox's
 * serialized, reconciling launch, and whose container's egress reaches the
 * workspace through SandboxEgressProxy, stamped with this sandbox's id (so
 * only the turn holding it is answered). Everything else is the package's own.
 */
class SandboxContainerHost extends WorkspaceContainerAPI {
  #launch: Launch;
  #ctx: ContainerContext;
  #sandboxId: string | undefined;

  constructor(ctx: ContainerContext, launch: Launch, sandboxId: string | undefined) {
    super(ctx);
    this.#ctx = ctx;
    this.#launch = launch;
    this.#sandboxId = sandboxId;
  }

  override async interceptAllOutboundHttp(ref: WorkspaceRef, token: string): Promise<void> {
    const exports = this.#ctx.exports as unknown as { SandboxEgressProxy(options: { props: SandboxEgressProxyProps }): Fetcher };
    const proxy = exports.SandboxEgressProxy({ props: { ...ref, egressToken: token, ...(this.#sandboxId ? { sandboxId: this.#sandboxId } : {}) } });
    await Promise.all([this.#ctx.container.interceptAllOutboundHttp(proxy), this.#ctx.container.interceptOutboundHttps("*", proxy)]);
  }

  override start(spec: ContainerLaunchSpec): Promise<ContainerRuntimeInfo> {
    return this.#launch(
      () => super.start(spec),
      () => super.start(spec)
    );
  }

  override restart(spec: ContainerLaunchSpec): Promise<ContainerRuntimeInfo> {
    return this.#launch(
      () => super.restart(spec),
      () => super.start(spec)
    );
  }
}

export class Sandbox extends DurableObject<Env> {
  /** Tail of the serialized start/restart/stop chain. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Whether this isolate has done its first (reconciling) start. */
  #reconciled = false;
  #log: Logger;

  /**
   * Seam: the state whose `container` this Sandbox drives; its `container`
   * is undefined under wrangler dev with containers off. Fails fast where
   * containers are disabled. An instance property, so it is not on the RPC
   * surface; tests swap in a fake container with runInDurableObject.
   */
  protected containerContext: () => DurableObjectState & { container?: Container } = () => {
    if (!containersEnabled(this.env)) throw new ContainerUnavailableError();
    return this.ctx;
  };

  /** Seam: attempts and waits of the stale-container reconcile (tests shorten them). */
  protected reconcilePolicy: ReconcilePolicy = DEFAULT_RECONCILE_POLICY;
  /** Seam: how long warm() waits for computerd's health check (tests shorten it). */
  protected healthPolicy: HealthPolicy = DEFAULT_HEALTH_POLICY;
  /** Seam: the container's hard lifetime in ms, from `CONTAINER_MAX_LIFETIME_MS` (tests shorten it). */
  protected maxLifetimeMs: number = containerMaxLifetimeMs(this.env.CONTAINER_MAX_LIFETIME_MS);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#log = createLogger({ component: "sandbox", sandbox: this.#name() });
  }

  /** The host surface `ContainerBackend` dials (the same as `withWorkspaceContainer` adds). */
  getWorkspaceContainer(): WorkspaceContainerAPI {
    return new SandboxContainerHost(this.#context(), (launch, fresh) => this.#launch(launch, fresh), this.#name());
  }

  /**
   * Whether this Durable Object has a container to drive. False where
   * containers are disabled and under wrangler dev with containers off
   * (ctx.container undefined); nothing starts. Asked in local dev only
   * (src/pool/engine.ts).
   */
  hasContainer(): boolean {
    try {
      return this.containerContext().container !== undefined;
    } catch (error) {
      if (error instanceof ContainerUnavailableError) return false;
      throw error;
    }
  }

  /**
   * Start the container with exactly the spec the WorkspaceAgent's backend
   * will pass to start(), so that start adopts it instead of relaunching,
   * and wait until computerd answers its health check. On a container this
   * isolate already runs it only checks health (the cron's liveness check).
   */
  async warm(): Promise<SandboxWarmResult> {
    const ctx = this.#context();
    this.#assertNotRetired();
    const host = this.getWorkspaceContainer();
    const outcome =
      this.#reconciled && ctx.container.running ? ("running" as const) : (await host.start(warmLaunchSpec(this.env))).outcome;
    const policy = this.healthPolicy;
    const health = await waitUntilHealthy(
      async () => {
        const response = await host.fetchPort(CONTAINER_PORT, `http://container${HEALTH_PATH}`, {
          method: "HEAD",
          signal: AbortSignal.timeout(policy.probeTimeoutMs)
        });
        await response.body?.cancel();
        return response.ok;
      },
      sleep,
      policy
    );
    this.#log("sandbox:warm", { outcome, healthy: health.healthy, waitedMs: health.waitedMs, probes: health.probes, error: health.lastError });
    if (!health.healthy) throw new SandboxUnhealthyError(this.#name(), health.waitedMs, health.lastError);
    return { outcome, healthyAfterMs: health.waitedMs };
  }

  /** Destroy the container and forget it: this Sandbox never starts again. Idempotent. */
  async stop(): Promise<SandboxStopResult> {
    const { container } = this.#context();
    return await this.#serialized(async () => {
      this.ctx.storage.kv.put(RETIRED_KEY, { at: Date.now() });
      const wasRunning = container.running;
      if (wasRunning) {
        try {
          await container.destroy();
        } catch (error) {
          this.#log("sandbox:stop", { outcome: "destroy-threw", error: describeError(error) });
        }
        const wait = await waitUntilStopped(() => container.running, sleep, this.reconcilePolicy);
        if (!wait.stopped) throw new SandboxStopError(this.#name(), wait.waitedMs);
      }
      // Forget the launch record, runtime identity, client secret and
      // lifetime record (and its alarm); keep only the retired mark.
      await this.ctx.storage.deleteAll();
      await this.ctx.storage.deleteAlarm();
      this.ctx.storage.kv.put(RETIRED_KEY, { at: Date.now() });
      this.#log("sandbox:stop", { outcome: "stopped", wasRunning });
      return { stopped: true, wasRunning } as const;
    });
  }

  /**
   * The lifetime alarm: past the deadline, stop the container exactly as
   * stop() does (a stopped Sandbox never starts again); a stop that fails is
   * tried again LIFETIME_STOP_RETRY_MS later. An alarm that fires early is set
   * again for the deadline.
   */
  override async alarm(): Promise<void> {
    const record = this.ctx.storage.kv.get<LifetimeRecord>(STARTED_KEY);
    if (!record) return; // never launched, or already stopped (stop forgets the record)
    const lifetimeMs = this.maxLifetimeMs;
    const decision = lifetimeDecision(record, lifetimeMs, Date.now());
    if (decision.action === "wait") {
      await this.ctx.storage.setAlarm(decision.at);
      return;
    }
    const fields = { startedAt: record.startedAt, lifetimeMs, overdueMs: decision.overdueMs };
    try {
      const { wasRunning } = await this.stop();
      this.#log("sandbox:lifetime", { ...fields, outcome: "stopped", wasRunning });
    } catch (error) {
      if (error instanceof ContainerUnavailableError) {
        // No container engine here: nothing runs, nothing to retry.
        this.#log("sandbox:lifetime", { ...fields, outcome: "unavailable", error: describeError(error) });
        return;
      }
      await this.ctx.storage.setAlarm(Date.now() + LIFETIME_STOP_RETRY_MS);
      this.#log("sandbox:lifetime", { ...fields, outcome: "stop-failed", retryInMs: LIFETIME_STOP_RETRY_MS, error: describeError(error) });
    }
  }

  #launch<T>(launch: () => Promise<T>, freshStart: () => Promise<T>): Promise<T> {
    return this.#serialized(async () => {
      this.#assertNotRetired();
      // Before the start, so a start that half-succeeds is still bounded.
      await this.#armLifetime();
      if (this.#reconciled) return await launch();
      const { container } = this.#context();
      const result = await reconcileThenStart(
        { isRunning: () => container.running, destroy: () => container.destroy(), start: freshStart },
        { policy: this.reconcilePolicy, sleep, log: this.#log }
      );
      this.#reconciled = true;
      return result;
    });
  }

  /** The state with its container; an error naming the cause where there is none. */
  #context(): ContainerContext {
    const ctx = this.containerContext();
    if (!ctx.container) {
      throw new ContainerUnavailableError(
        "container backend unavailable: the Sandbox Durable Object has no container (a deploy: check the containers block in wrangler.jsonc; " +
          "wrangler dev: it runs with containers off unless given --enable-containers=true and a container engine)"
      );
    }
    return ctx as ContainerContext;
  }

  #serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Record the first launch (once: a reconcile or restart does not extend the
   * lifetime) and set the alarm for its deadline. Past the deadline nothing
   * starts: the Sandbox is retired and the alarm is (or will be) stopping it.
   */
  async #armLifetime(): Promise<void> {
    const now = Date.now();
    let record = this.ctx.storage.kv.get<LifetimeRecord>(STARTED_KEY);
    if (!record) {
      record = { startedAt: now };
      this.ctx.storage.kv.put(STARTED_KEY, record);
    }
    const decision = lifetimeDecision(record, this.maxLifetimeMs, now);
    if (decision.action === "stop") {
      // Retired from now on; make sure the stop is coming, without hurrying a retry already set.
      this.ctx.storage.kv.put(RETIRED_KEY, { at: now });
      if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(now);
      throw new SandboxExpiredError(this.#name(), this.maxLifetimeMs);
    }
    if ((await this.ctx.storage.getAlarm()) !== decision.at) await this.ctx.storage.setAlarm(decision.at);
  }

  #assertNotRetired(): void {
    if (this.ctx.storage.kv.get(RETIRED_KEY) !== undefined) throw new SandboxRetiredError(this.#name());
  }

  #name(): string {
    return this.ctx.id.name ?? this.ctx.id.toString();
  }
}
