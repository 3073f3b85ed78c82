/**
 * The killable local runtime for the chaos suite: `wrangler dev --local`
 * (LOCAL_DEV=1, the scripted model, posting to a GitHub stand-in) on a
 * fixed port and `--persist-to` directory, started in its own process group
 * so the whole group (wrangler and the workerd children it leaves) dies with
 * one `process.kill(-pid, "SIGKILL")`, then started again on the same
 * state. Every incarnation's stdout and stderr are kept whole, in memory
 * and in a log file, for the token check. Never kills by name: only the
 * groups it started, and all of them on this process's exit.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { freePort, LOCAL_HOST, localUrl, wranglerDevArgs } from "../wrangler-dev";

const READY_TIMEOUT_MS = 90_000;
const READY_POLL_MS = 200;
const STOP_GRACE_MS = 5_000;
const PORT_FREE_TIMEOUT_MS = 15_000;

export type RuntimeOptions = {
  /** The repository root (wrangler's working directory). */
  root: string;
  persistTo: string;
  githubApiUrl: string;
  /** Where every incarnation's output is appended. */
  logFile: string;
};

export class KillableRuntime {
  readonly #options: RuntimeOptions;
  readonly #log: WriteStream;
  #port = 0;
  #child: ChildProcess | null = null;
  #output = "";
  #starts = 0;
  #stopped = false;
  readonly #killOnExit = () => this.#killGroup("SIGKILL");

  constructor(options: RuntimeOptions) {
    this.#options = options;
    this.#log = createWriteStream(options.logFile, { flags: "a" });
    process.on("exit", this.#killOnExit);
  }

  get url(): string {
    return localUrl(this.#port);
  }

  /** Everything every incarnation printed so far, stdout and stderr interleaved. */
  output(): string {
    return this.#output;
  }

  /** Starts wrangler (the same port every time after the first) and waits until it answers. Returns how long that took. */
  async start(): Promise<number> {
    if (this.#child !== null) throw new Error("the runtime is already running");
    if (this.#stopped) throw new Error("the runtime was stopped");
    const started = Date.now();
    if (this.#port === 0) this.#port = await freePort();
    else await waitForFreePort(this.#port);
    const inspectorPort = await freePort();
    const incarnation = ++this.#starts;
    this.#append(`\n=== chaos: wrangler start #${incarnation} on port ${this.#port} ===\n`);
    const child = spawn(
      join(this.#options.root, "node_modules", ".bin", "wrangler"),
      wranglerDevArgs({ port: this.#port, inspectorPort, localDev: true, persistTo: this.#options.persistTo, githubApiUrl: this.#options.githubApiUrl }),
      {
        cwd: this.#options.root,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          // Wrangler's `#!/usr/bin/env node` must find Node 22, not the system one.
          PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
          // A private dev registry: nobody else's wrangler answers or reloads this one.
          WRANGLER_REGISTRY_PATH: join(this.#options.persistTo, "dev-registry")
        }
      }
    );
    this.#child = child;
    child.stdout?.on("data", (chunk: Buffer) => this.#append(chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => this.#append(chunk.toString("utf8")));
    await this.#waitUntilServing(child);
    return Date.now() - started;
  }

  /** SIGKILL to the whole process group, no warning; resolves once wrangler is reaped. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (child === null) return;
    const exited = exitOf(child);
    this.#killGroup("SIGKILL");
    await exited;
    this.#child = null;
    this.#append(`\n=== chaos: SIGKILL to the runtime's process group ===\n`);
  }

  /** A polite stop for the end of the suite: SIGTERM, then SIGKILL to whatever is left of the group. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    const child = this.#child;
    if (child !== null) {
      const exited = exitOf(child);
      this.#killGroup("SIGTERM");
      await Promise.race([exited, sleep(STOP_GRACE_MS)]);
      this.#killGroup("SIGKILL");
      this.#child = null;
    }
    process.off("exit", this.#killOnExit);
    await new Promise<void>((resolve) => this.#log.end(resolve));
  }

  #killGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  #append(text: string): void {
    this.#output += text;
    this.#log.write(text);
  }

  /** Any HTTP answer means the Worker is loaded: wrangler holds requests until then. */
  async #waitUntilServing(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`wrangler dev exited before it was ready:\n${this.#output.slice(-3_000)}`);
      try {
        const response = await fetch(`${this.url}/__chaos-ready`, { signal: AbortSignal.timeout(Math.max(1, Math.min(10_000, deadline - Date.now()))) });
        await response.body?.cancel();
        return;
      } catch {
        await sleep(READY_POLL_MS);
      }
    }
    throw new Error(`wrangler dev was not ready at ${this.url} after ${READY_TIMEOUT_MS} ms:\n${this.#output.slice(-3_000)}`);
  }
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}


function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, LOCAL_HOST, () => server.close(() => resolve(true)));
  });
}

/** After a kill the old listener is gone at once; this only waits out the kernel if it is slower. */
async function waitForFreePort(port: number): Promise<void> {
  const deadline = Date.now() + PORT_FREE_TIMEOUT_MS;
  while (!(await portIsFree(port))) {
    if (Date.now() > deadline) throw new Error(`port ${port} is still taken ${PORT_FREE_TIMEOUT_MS} ms after the kill`);
    await sleep(100);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
