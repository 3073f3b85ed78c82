/**
 * One `wrangler dev --local` process for the bench: in its own process group
 * (stopped by killing the group, never by name), on free ports, with a fresh
 * state directory, a private dev registry unless one is shared, and its output
 * in a log file. The Worker is bundled once up front and served with
 * `--no-bundle`, so an edit under src/ mid-run cannot reload it; nothing else
 * may live in the bundle's directory, which wrangler still watches. Why each:
 * docs/testing.md, "The bench".
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export type DevServerOptions = {
  /** wrangler config path, relative to `cwd`. */
  config: string;
  cwd: string;
  killGraceMs: number;
  /** More arguments for the bundling `wrangler deploy --dry-run` and for `wrangler dev` (`--var NAME:value`). */
  bundleArgs?: string[];
  devArgs?: string[];
  /** A dev registry shared with the Workers this one binds to; its own otherwise. */
  registryPath?: string;
  /** More environment for wrangler (a config's `secrets.required`), never on a command line. */
  env?: Record<string, string>;
};

const POLL_MS = 250;

export class DevServer {
  readonly logPath: string;
  baseUrl = "";
  readonly #options: DevServerOptions;
  readonly #wrangler = wranglerBin();
  readonly #dir: string;
  #bundler: ChildProcess | undefined;
  #pid: number | undefined;
  #exited = false;
  #stopping: Promise<void> | undefined;

  /** Only makes the temporary directory (bundle, state, log); `start()` does the rest. */
  constructor(options: DevServerOptions) {
    this.#options = options;
    this.#dir = mkdtempSync(join(tmpdir(), "agent-think-bench-"));
    this.logPath = join(this.#dir, "wrangler.log");
  }

  /** Bundle the Worker, then start `wrangler dev` on the bundle; wait with `ready()`. */
  async start(): Promise<void> {
    const { config } = this.#options;
    const bundleDir = join(this.#dir, "bundle");
    // Short-lived and left in our process group, so a Ctrl-C ends it too.
    const bundler = (this.#bundler = this.#spawn(["deploy", "--dry-run", "-c", config, "--outdir", bundleDir, ...(this.#options.bundleArgs ?? [])], false));
    const bundled = await new Promise<number | null>((resolve) => bundler.once("exit", resolve));
    this.#bundler = undefined;
    if (bundled !== 0) throw new Error(`wrangler could not bundle ${config}:\n${this.logTail()}`);
    const entry = readdirSync(bundleDir).find((name) => name.endsWith(".js"));
    if (!entry) throw new Error(`wrangler wrote no bundle to ${bundleDir}`);

    const [port, inspectorPort] = await freePorts(2);
    this.baseUrl = `http://127.0.0.1:${port}`;
    const child = this.#spawn(
      [
        ...["dev", join(bundleDir, entry), "-c", config, "--no-bundle"],
        ...["--local", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort)],
        ...["--show-interactive-dev-session=false", "--persist-to", join(this.#dir, "state")],
        ...["--var", `PUBLIC_BASE_URL:${this.baseUrl}`],
        ...(this.#options.devArgs ?? [])
      ],
      true
    );
    child.once("exit", () => (this.#exited = true));
    this.#pid = child.pid;
    if (this.#pid === undefined) throw new Error("wrangler dev did not start");
  }

  /** Resolve once GET `path` answers 2xx (or as `served` accepts); throw if wrangler exits or time runs out. */
  async ready(path: string, timeoutMs: number, served = (response: Response) => response.ok): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      if (this.#exited) throw new Error(`wrangler dev exited before it was ready:\n${this.logTail()}`);
      if (Date.now() > deadline) throw new Error(`wrangler dev was not ready within ${timeoutMs} ms:\n${this.logTail()}`);
      try {
        const response = await fetch(this.baseUrl + path, { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        if (served(response)) return;
      } catch {
        // not listening yet
      }
      await sleep(POLL_MS);
    }
  }

  /** SIGTERM the process group, SIGKILL it after a grace period. Idempotent. */
  stop(): Promise<void> {
    this.#bundler?.kill("SIGTERM");
    if (this.#stopping) return this.#stopping;
    const pid = this.#pid;
    if (pid === undefined) return Promise.resolve();
    // Forget the id once the group is gone, so `killNow()` never signals a reused one.
    return (this.#stopping = killGroup(pid, this.#options.killGraceMs).finally(() => (this.#pid = undefined)));
  }

  /** SIGKILL the process group at once; synchronous, for process `exit`. */
  killNow(): void {
    if (this.#pid !== undefined) signalGroup(this.#pid, "SIGKILL");
  }

  /** The end of wrangler's output, for error reports. */
  logTail(lines = 30): string {
    return tail(this.logPath, lines);
  }

  /** How often wrangler reloaded the Worker (which drops every Durable Object). */
  reloads(): number {
    return countReloads(this.logPath);
  }

  /** Remove the temporary bundle, state and log (after `stop()`). */
  removeFiles(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #spawn(args: string[], detached: boolean): ChildProcess {
    const { cwd, registryPath, env } = this.#options;
    return spawnWrangler(this.#wrangler, args, { cwd, logPath: this.logPath, detached, registryPath: registryPath ?? `${this.logPath}.registry`, env: env ?? {} });
  }
}

/** wrangler, its output appended to `logPath`; `detached` gives it its own process group. */
function spawnWrangler(
  wrangler: string,
  args: string[],
  options: { cwd: string; logPath: string; detached: boolean; registryPath: string; env: Record<string, string> }
): ChildProcess {
  const logFd = openSync(options.logPath, "a");
  try {
    // process.execPath is the Node 22 that `npm run` puts first on PATH.
    return spawn(process.execPath, [wrangler, ...args], {
      cwd: options.cwd,
      detached: options.detached,
      stdio: ["ignore", logFd, logFd],
      env: {
        ...process.env,
        ...options.env,
        WRANGLER_SEND_METRICS: "false",
        NO_COLOR: "1",
        FORCE_COLOR: "0",
        // A private dev registry: another wrangler joining or leaving the
        // machine-wide one reloads this server mid-bench.
        WRANGLER_REGISTRY_PATH: options.registryPath
      }
    });
  } finally {
    closeSync(logFd);
  }
}

function countReloads(path: string): number {
  try {
    return readFileSync(path, "utf8").split("Reloading local server").length - 1;
  } catch {
    return 0;
  }
}

function tail(path: string, lines: number): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** wrangler's CLI script, found through its package.json (its exports do not list bin/). */
function wranglerBin(): string {
  const manifest = createRequire(import.meta.url).resolve("wrangler/package.json");
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> };
  if (!bin.wrangler) throw new Error("wrangler's package.json names no wrangler bin");
  return join(dirname(manifest), bin.wrangler);
}

async function killGroup(pid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pid, "SIGTERM")) return;
  if (await waitGone(pid, graceMs)) return;
  signalGroup(pid, "SIGKILL");
  await waitGone(pid, 2_000);
}

/** Signal the whole group; false when no process of it is left. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!signalGroup(pid, 0)) return true;
    await sleep(100);
  }
  return !signalGroup(pid, 0);
}

/** Ports the OS reports free right now (all held open together, so distinct). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        })
    )
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no TCP port");
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
