/**
 * Recording fakes for the container path, behind the same interfaces the
 * real parts implement: an in-memory PoolStore, a ContainerFleet, and the
 * slice of the platform's `Container` that WorkspaceContainerAPI and the
 * Sandbox drive. Plain TypeScript, shared by the unit and Workers suites.
 */
import type { ContainerFleet } from "../../src/pool/fleet";
import type { PoolStore } from "../../src/pool/pool-book";

export type Deferred<T = void> = { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void };

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A synchronous store that keeps copies, as DO storage does. */
export class MemoryStore implements PoolStore {
  readonly data = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    const value = this.data.get(key);
    return value === undefined ? undefined : (structuredClone(value) as T);
  }
  put<T>(key: string, value: T): void {
    this.data.set(key, structuredClone(value));
  }
}

export type FleetCall = { op: "warm" | "stop"; sandboxId: string };

/**
 * A fleet that records every call. `hold()` makes warms wait until
 * `releaseHeld()`; `failWarm`/`failStop` make calls for those ids throw.
 */
export class RecordingFleet implements ContainerFleet {
  readonly calls: FleetCall[] = [];
  readonly failWarm = new Set<string>();
  readonly failStop = new Set<string>();
  failAllWarms = false;
  #held: Deferred | null = null;
  /** Calls still running. */
  pending = 0;

  hold(): void {
    this.#held ??= deferred();
  }

  releaseHeld(): void {
    this.#held?.resolve();
    this.#held = null;
  }

  async warm(sandboxId: string): Promise<void> {
    this.calls.push({ op: "warm", sandboxId });
    this.pending++;
    try {
      if (this.#held) await this.#held.promise;
      if (this.failAllWarms || this.failWarm.has(sandboxId)) throw new Error(`fake: warm ${sandboxId} failed`);
    } finally {
      this.pending--;
    }
  }

  async stop(sandboxId: string): Promise<void> {
    this.calls.push({ op: "stop", sandboxId });
    if (this.failStop.has(sandboxId)) throw new Error(`fake: stop ${sandboxId} failed`);
  }

  warmed(): string[] {
    return this.calls.filter((call) => call.op === "warm").map((call) => call.sandboxId);
  }

  stopped(): string[] {
    return this.calls.filter((call) => call.op === "stop").map((call) => call.sandboxId);
  }
}

/**
 * The platform container, as far as WorkspaceContainerAPI and the Sandbox
 * use it. `calls` records, in order, `start`, `destroy`, and every read of
 * `running` with its answer. A destroy() resolves at once (as it does for an
 * inherited container) and the container reports not running only after
 * `stopLagReads` further reads of `running`; `neverStops` keeps it running.
 */
export class FakeContainer {
  readonly calls: string[] = [];
  readonly startOptions: unknown[] = [];
  readonly intercepted: string[] = [];
  images: Record<string, string> = { app: "registry.example/agent-think:test" };
  stopLagReads = 2;
  neverStops = false;
  /** The fake daemon's answers: /health, and POST /connect (the backend's last step before a real daemon is needed). */
  healthStatus = 200;
  connectStatus = 503;
  /** Paths asked of the daemon, in order. */
  readonly requests: string[] = [];
  #running: boolean;
  #stopIn: number | null = null;
  #exit = deferred();

  constructor(options: { running?: boolean } = {}) {
    this.#running = options.running ?? false;
  }

  get running(): boolean {
    if (this.#stopIn !== null) {
      if (this.#stopIn <= 0) this.#halt();
      else this.#stopIn--;
    }
    this.calls.push(`running:${this.#running}`);
    return this.#running;
  }

  start(options: unknown): void {
    this.calls.push("start");
    if (this.#running) throw new Error("fake: container is already running");
    this.startOptions.push(options);
    this.#running = true;
    this.#exit = deferred();
  }

  monitor(): Promise<void> {
    return this.#exit.promise;
  }

  async destroy(): Promise<void> {
    this.calls.push("destroy");
    if (!this.#running || this.neverStops) return;
    this.#stopIn = this.stopLagReads;
  }

  /** computerd as far as a connect gets without it: health, an /api that demands auth, a /connect that fails. */
  getTcpPort(_port: number) {
    return {
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
        this.requests.push(`${init?.method ?? "GET"} ${path}`);
        if (!this.#running) throw new Error("fake: container is not running");
        if (path === "/health") return new Response(null, { status: this.healthStatus });
        if (path === "/api") return new Response("unauthorized", { status: 401 });
        if (path === "/connect") return new Response("fake: no daemon here", { status: this.connectStatus });
        return new Response("not found", { status: 404 });
      }
    };
  }

  async setInactivityTimeout(_ms: number): Promise<void> {}

  async interceptOutboundHttp(host: string, _binding: unknown): Promise<void> {
    this.intercepted.push(host);
  }

  async interceptAllOutboundHttp(_binding: unknown): Promise<void> {}

  async interceptOutboundHttps(_host: string, _binding: unknown): Promise<void> {}

  /** The calls with `running` reads collapsed, for order assertions. */
  lifecycle(): string[] {
    return this.calls.filter((call) => !call.startsWith("running:"));
  }

  #halt(): void {
    this.#running = false;
    this.#stopIn = null;
    this.#exit.resolve();
  }
}
