/**
 * One `wrangler dev --local` process for the bench: started detached in its
 * own process group on free ports with a fresh state directory (other
 * wrangler processes share this machine, so never 8787 or .wrangler/state),
 * and stopped by killing that group (wrangler leaves workerd children), never
 * by name. Its output goes to a log file, so a chatty Worker cannot stall on
 * a full pipe.
 *
 * The Worker is bundled once up front (`wrangler deploy --dry-run --outdir`)
 * and served with `--no-bundle`: `wrangler dev` otherwise watches the sources
 * and reloads the Worker, dropping every Durable Object, whenever a file
 * under src/ changes mid-run. The bench measures the code as it was when it
 * started.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export type DevServer = {
  baseUrl: string;
  logPath: string;
  /** Resolve once GET `path` answers 2xx; throw if wrangler exits or time runs out. */
  ready(path: string, timeoutMs: number): Promise<void>;
  /** SIGTERM the process group, SIGKILL it after a grace period. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL the process group at once; synchronous, for process `exit`. */
  killNow(): void;
  /** The end of wrangler's output, for error reports. */
  logTail(lines?: number): string;
  /** Remove the temporary state and log directory (after stop). */
  removeFiles(): void;
};

export type DevServerOptions = {
  /** wrangler config path, relative to `cwd`. */
  config: string;
  cwd: string;
  killGraceMs: number;
};

const POLL_MS = 250;

/** Bundle the Worker, then start `wrangler dev` on the bundle; wait with `ready()`. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const dir = mkdtempSync(join(tmpdir(), "agent-think-bench-"));
  const logPath = join(dir, "wrangler.log");
  const bundleDir = join(dir, "bundle");
  const [port, inspectorPort] = await freePorts(2);
  const baseUrl = `http://127.0.0.1:${port}`;
  const run = (args: string[], detached: boolean) => spawnWrangler(args, { cwd: options.cwd, logPath, detached });

  // Short-lived and left in our process group, so a Ctrl-C ends it too.
  const bundle = run(["deploy", "--dry-run", "-c", options.config, "--outdir", bundleDir], false);
  const bundled = await new Promise<number | null>((resolve) => bundle.once("exit", resolve));
  if (bundled !== 0) {
    throw new Error(`wrangler could not bundle ${options.config}:\n${tail(logPath, 30)}\n(log: ${logPath})`);
  }
  const entry = readdirSync(bundleDir).find((name) => name.endsWith(".js"));
  if (!entry) throw new Error(`wrangler wrote no bundle to ${bundleDir}`);

  const child = run([
    "dev",
    join(bundleDir, entry),
    ...["-c", options.config, "--no-bundle", "--local", "--ip", "127.0.0.1", "--port", String(port)],
    ...["--inspector-port", String(inspectorPort), "--show-interactive-dev-session=false"],
    ...["--persist-to", join(dir, "state"), "--var", `PUBLIC_BASE_URL:${baseUrl}`]
  ], true);
  const pid = child.pid;
  if (pid === undefined) throw new Error("wrangler dev did not start");

  let exited = false;
  child.once("exit", () => (exited = true));
  let stopping: Promise<void> | undefined;

  const server: DevServer = {
    baseUrl,
    logPath,
    ready: async (path, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (true) {
        if (exited) throw new Error(`wrangler dev exited before it was ready:\n${tail(logPath, 30)}`);
        if (Date.now() > deadline) {
          throw new Error(`wrangler dev was not ready within ${timeoutMs} ms:\n${tail(logPath, 30)}`);
        }
        try {
          const response = await fetch(baseUrl + path, { signal: AbortSignal.timeout(2_000) });
          await response.arrayBuffer();
          if (response.ok) return;
        } catch {
          // not listening yet
        }
        await sleep(POLL_MS);
      }
    },
    stop: () => (stopping ??= killGroup(pid, options.killGraceMs)),
    killNow: () => signalGroup(pid, "SIGKILL"),
    logTail: (lines = 30) => tail(logPath, lines),
    removeFiles: () => rmSync(dir, { recursive: true, force: true })
  };

  return server;
}

/** wrangler, its output appended to `logPath`; `detached` gives it its own process group. */
function spawnWrangler(args: string[], options: { cwd: string; logPath: string; detached: boolean }): ChildProcess {
  const logFd = openSync(options.logPath, "a");
  try {
    // process.execPath is the Node 22 that `npm run` puts first on PATH.
    return spawn(process.execPath, [wranglerBin(), ...args], {
      cwd: options.cwd,
      detached: options.detached,
      stdio: ["ignore", logFd, logFd],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" }
    });
  } finally {
    closeSync(logFd);
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
