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
 *
 * With `computerd = true` it also plays computerd's side of the connect, as
 * far as @cloudflare/computer documents it: POST /connect answers 200 and
 * then, like the daemon, dials back through the fetcher the host gave
 * `interceptOutboundHttp` for the `base` host: GET `<base><health>`, then a
 * WebSocket upgrade of `<base><api>` bearing the RPC_CLIENT_SECRET it was
 * started with; and /__computerd/info reports the MOUNT_IGNORE patterns it
 * was started with. What the dial-back got is in `callbacks`; the socket
 * it accepted is `socket`. It serves no RPC over that socket.
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
  /** Play computerd's side of the connect (see above). */
  computerd = false;
  /** Paths asked of the daemon, in order. */
  readonly requests: string[] = [];
  /** The dial-back's requests and their answers' statuses, e.g. "GET /api 101". */
  readonly callbacks: string[] = [];
  /** The daemon's end of the accepted /api socket. */
  socket: WebSocket | undefined;
  /** Resolves when the dial-back finished (or failed: see `callbacks`). */
  dialed: Promise<void> = Promise.resolve();
  /** The fetchers the host handed out for outbound HTTP, by host. */
  readonly egress = new Map<string, Fetcher>();
  /** The catch-all for outbound HTTP, and the HTTPS interceptions by host (`*` for all), as the gateway egress registers them. */
  egressAll: Fetcher | undefined;
  readonly egressHttps = new Map<string, Fetcher>();
  #env: Record<string, string> = {};
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
    this.#env = (options as { env?: Record<string, string> } | undefined)?.env ?? {};
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
        if (path === "/connect" && this.computerd) return this.#connect(input, init);
        if (path === "/connect") return new Response("fake: no daemon here", { status: this.connectStatus });
        if (path === "/__computerd/info" && this.computerd) return this.#info(init);
        return new Response("not found", { status: 404 });
      }
    };
  }

  #authorized(init?: RequestInit): boolean {
    return new Headers(init?.headers).get("authorization") === `Bearer ${this.#env.RPC_CLIENT_SECRET}`;
  }

  async #connect(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    if (!this.#authorized(init)) return new Response("unauthorized", { status: 401 });
    const body = JSON.parse(String(init?.body ?? (input instanceof Request ? await input.text() : "{}"))) as { base: string; health: string; api: string };
    this.dialed = this.#dialBack(body).catch((error: unknown) => {
      this.callbacks.push(`failed: ${error instanceof Error ? error.message : String(error)}`);
    });
    return Response.json({ ok: true });
  }

  /** computerd after /connect: check the Worker answers, then open the RPC socket. */
  async #dialBack({ base, health, api }: { base: string; health: string; api: string }): Promise<void> {
    const fetcher = this.egress.get(new URL(base).host);
    if (!fetcher) throw new Error(`no outbound interception for ${base}`);
    const ok = await fetcher.fetch(`${base}${health}`);
    await ok.body?.cancel();
    this.callbacks.push(`GET ${health} ${ok.status}`);
    const upgrade = await fetcher.fetch(`${base}${api}`, {
      headers: { upgrade: "websocket", authorization: `Bearer ${this.#env.RPC_CLIENT_SECRET}` }
    });
    this.callbacks.push(`GET ${api} ${upgrade.status}`);
    if (upgrade.webSocket) {
      upgrade.webSocket.accept();
      this.socket = upgrade.webSocket;
    }
  }

  #info(init?: RequestInit): Response {
    if (!this.#authorized(init)) return new Response("unauthorized", { status: 401 });
    const patterns = (this.#env.MOUNT_IGNORE ?? "").split(",").filter(Boolean);
    return Response.json({ mountPoint: this.#env.MOUNT_POINT ?? "/workspace", ignore: { supported: true, patterns, root: this.#env.MOUNT_POINT } });
  }

  async setInactivityTimeout(_ms: number): Promise<void> {}

  async interceptOutboundHttp(host: string, binding: unknown): Promise<void> {
    this.intercepted.push(host);
    this.egress.set(host, binding as Fetcher);
  }

  async interceptAllOutboundHttp(binding: unknown): Promise<void> {
    this.egressAll = binding as Fetcher;
  }

  async interceptOutboundHttps(host: string, binding: unknown): Promise<void> {
    this.egressHttps.set(host, binding as Fetcher);
  }

  /**
   * A request the container's own program makes, routed as the platform
   * routes it: HTTPS to the `*` (or the host's) HTTPS interception, HTTP to
   * the host's interception or the catch-all. Throws when nothing
   * intercepts it: a container without internet could not send it at all.
   */
  async send(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const fetcher =
      url.protocol === "https:" ? (this.egressHttps.get(url.hostname) ?? this.egressHttps.get("*")) : (this.egress.get(url.host) ?? this.egressAll);
    if (!fetcher) throw new Error(`fake: nothing intercepts ${url.protocol}//${url.host}, and the container has no internet`);
    return await fetcher.fetch(request);
  }

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
