/**
 * The e2e fixture: a real `wrangler dev --local` per test file, on a free
 * port, with its Durable Object and R2 state in a fresh temporary directory
 * or one the caller passes in, e.g. with skills seeded before the start
 * (other wrangler processes on this machine use `.wrangler/state` and 8787),
 * serving the Worker the suite's globalSetup bundled once
 * (support/worker-bundle.ts).
 *
 * `test` exposes it four times, each started only when a test asks for
 * it: `server` with `LOCAL_DEV=1` (/dev/* open, scripted model), one per
 * file; `sharedServer`, the same, one for each e2e job; `dashboardServer`,
 * the same, one for each job, for the dashboard's files, which can restart
 * it; and `accessServer`, one per file, `LOCAL_DEV=1` behind Cloudflare
 * Access whose team is a local HTTPS stand-in (support/access-issuer.ts).
 * Wrangler runs in its own process group because it leaves workerd
 * children; teardown kills the group whether the tests passed or not, and
 * so does this process's exit.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { test as base } from "vitest";
import { findReadyUrl, freePort, LOCAL_HOST, localUrl, wranglerDevArgs } from "../scripts/lib/wrangler-dev";
import { startAccessIssuer, type AccessIssuer } from "./support/access-issuer";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

const READY_TIMEOUT_MS = 45_000;
const READY_POLL_MS = 250;
const STOP_GRACE_MS = 5_000;
const MAX_OUTPUT_CHARS = 20_000;

export type DevServer = {
  url: string;
  /** The `--persist-to` directory: local Durable Object and R2 state (the skills bucket). */
  persistTo: string;
  /** The tail of wrangler's output, for failure messages. */
  output(): string;
};

type RunningServer = DevServer & { stop(): Promise<void> };

/** A server that can be stopped and started again on its state directory (a new port, so a new `url`). */
export type RestartableServer = DevServer & { restart(): Promise<void> };

export async function startDevServer(options: {
  localDev: boolean;
  containers?: boolean;
  /** A state directory the caller created and removes (e.g. seeded before start); a fresh temporary one otherwise. */
  persistTo?: string;
  /** The GitHub the Worker posts to (a local stand-in); with LOCAL_DEV and none, it posts nothing. */
  githubApiUrl?: string;
  /** A private dev registry, shared with the Workers this one binds to (see startWrangler). */
  registryPath?: string;
  /** More Worker vars (`--var NAME:value`), e.g. CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD. */
  vars?: Record<string, string>;
  /** More environment for wrangler and its workerd, e.g. NODE_EXTRA_CA_CERTS. */
  env?: Record<string, string>;
  /** How long wrangler may take to serve; longer where it builds a container image first. */
  readyTimeoutMs?: number;
}): Promise<RunningServer> {
  return startWrangler({
    persistTo: options.persistTo,
    readyTimeoutMs: options.readyTimeoutMs,
    registryPath: options.registryPath,
    env: options.env,
    args: ({ port, inspectorPort, persistTo }) =>
      wranglerDevArgs({
        port,
        inspectorPort,
        localDev: options.localDev,
        persistTo,
        containers: options.containers,
        githubApiUrl: options.githubApiUrl,
        vars: options.vars,
        // Bundled once by the suite's globalSetup (support/worker-bundle.ts).
        bundle: process.env.AGENT_THINK_E2E_BUNDLE ? { script: process.env.AGENT_THINK_E2E_BUNDLE, config: join(ROOT, "wrangler.jsonc") } : undefined
      })
  });
}

export type AccessDevServer = DevServer & {
  /** The Access team the Worker verifies against: its JWKS server and token minting. */
  access: AccessIssuer;
};

/**
 * The agent Worker with Cloudflare Access configured (`CF_ACCESS_TEAM_DOMAIN`
 * = the stand-in team's `127.0.0.1:<port>`, `CF_ACCESS_AUD`), fetching the
 * team's JWKS over HTTPS as in production: wrangler and its workerd get
 * `NODE_EXTRA_CA_CERTS` naming the stand-in's throwaway CA.
 */
export async function startAccessDevServer(options: {
  localDev: boolean;
  aud?: string;
  /** The GitHub the Worker posts to (a local stand-in), as for startDevServer. */
  githubApiUrl?: string;
}): Promise<AccessDevServer & { stop(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), "agent-think-access-"));
  let access: AccessIssuer | undefined;
  try {
    access = await startAccessIssuer({ directory, ...(options.aud ? { aud: options.aud } : {}) });
    const server = await startDevServer({
      localDev: options.localDev,
      githubApiUrl: options.githubApiUrl,
      vars: { CF_ACCESS_TEAM_DOMAIN: access.teamDomain, CF_ACCESS_AUD: access.aud },
      env: { NODE_EXTRA_CA_CERTS: access.caFile }
    });
    const issuer = access;
    return {
      ...server,
      access: issuer,
      stop: async () => {
        await server.stop();
        await issuer.stop();
        await rm(directory, { recursive: true, force: true });
      }
    };
  } catch (error) {
    await access?.stop();
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Any `wrangler dev` on a free port and inspector port, with its own state
 * directory. `registryPath` gives it a private dev registry: Workers started
 * with the same one find each other's service bindings, and a developer's
 * own `npm start` (registered under the same Worker name) cannot answer them.
 */
export async function startWrangler(options: WranglerOptions): Promise<RunningServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startWranglerOnce(options);
    } catch (error) {
      // freePort() lets go of the port it found before wrangler binds it, so two
      // wranglers started side by side can pick the same one (seen once in CI).
      if (attempt >= PORT_ATTEMPTS || !(error as Error).message.includes("Address already in use")) throw error;
    }
  }
}

const PORT_ATTEMPTS = 3;

type WranglerOptions = {
  args(ports: { port: number; inspectorPort: number; persistTo: string }): string[];
  persistTo?: string;
  registryPath?: string;
  /** More environment for the process group (workerd inherits it from wrangler). */
  env?: Record<string, string>;
  readyTimeoutMs?: number;
};

async function startWranglerOnce(options: WranglerOptions): Promise<RunningServer> {
  const port = await freePort();
  // Explicit, so wranglers started side by side never race for the default 9229.
  let inspectorPort = await freePort();
  while (inspectorPort === port) inspectorPort = await freePort();
  const ownsPersistTo = options.persistTo === undefined;
  const persistTo = options.persistTo ?? (await mkdtemp(join(tmpdir(), "agent-think-e2e-")));
  const url = localUrl(port);
  // Private by default, so a developer's own `npm start` or a bench never
  // shares (or reloads) this one's registry.
  const registryPath = options.registryPath ?? join(persistTo, "dev-registry");
  const child = spawnInGroup("wrangler", options.args({ port, inspectorPort, persistTo }), {
    ...options.env,
    WRANGLER_REGISTRY_PATH: registryPath
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("wrangler dev did not start");

  let output = "";
  // wrangler's own "Ready on <url>": an answer on the port alone could come from another process that held it.
  let ready = false;
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-MAX_OUTPUT_CHARS);
    ready ||= findReadyUrl(output) === url;
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  // A test run killed halfway must not leave wrangler behind.
  const killOnExit = () => killGroup("SIGKILL");
  process.once("exit", killOnExit);

  const stop = async () => {
    killGroup("SIGTERM");
    await Promise.race([exited, sleep(STOP_GRACE_MS)]);
    // Also reaps workerd children that outlive wrangler.
    killGroup("SIGKILL");
    process.off("exit", killOnExit);
    if (ownsPersistTo) await rm(persistTo, { recursive: true, force: true });
  };

  try {
    // A port another process took after freePort let it go: wrangler says so, and the start is tried again (startWrangler).
    await waitUntilServing(url, () => hasExited || output.includes("Address already in use"), () => ready, options.readyTimeoutMs ?? READY_TIMEOUT_MS);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- wrangler output ---\n${output}`);
  }
  return { url, persistTo, output: () => output, stop };
}

/** Once wrangler says it is ready on `url`, any HTTP answer means the worker is serving; wrangler holds requests until it is loaded. */
async function waitUntilServing(url: string, hasExited: () => boolean, saidReady: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited()) throw new Error("wrangler dev exited before it was ready");
    if (!saidReady()) {
      await sleep(READY_POLL_MS);
      continue;
    }
    try {
      const response = await fetch(`${url}/__e2e-ready`, {
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now()))
      });
      await response.body?.cancel();
      return;
    } catch {
      await sleep(READY_POLL_MS);
    }
  }
  throw new Error(`wrangler dev was not ready at ${url} after ${timeoutMs} ms`);
}

/**
 * A tool from node_modules/.bin in its own process group (wrangler leaves
 * workerd children; the group is what gets stopped), output piped, with
 * Node 22 first on PATH for its `#!/usr/bin/env node`.
 */
export function spawnInGroup(bin: string, args: string[], env: Record<string, string> = {}) {
  return spawn(join(ROOT, "node_modules", ".bin", bin), args, {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, ...env }
  });
}

export { freePort };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export const test = base
  .extend("server", { scope: "file" }, async ({}, { onCleanup }): Promise<DevServer> => {
    const server = await startDevServer({ localDev: true });
    onCleanup(() => server.stop());
    return server;
  })
  /**
   * The same configuration as `server`, started once for the whole e2e job
   * (the e2e files share one worker: vitest.config.ts). Only for files whose
   * tests touch nothing but their own fresh sessions and read no total of
   * the command center or state of a bucket; each start costs about 6 CPU
   * seconds (docs/testing.md).
   */
  .extend("sharedServer", { scope: "worker" }, async ({}, { onCleanup }): Promise<DevServer> => {
    const server = await startDevServer({ localDev: true });
    onCleanup(() => server.stop());
    return server;
  })
  /**
   * The same configuration again, once for each job, for the browser files
   * that read the command center (dashboard, operator-view): the dashboard's
   * recovery test stops it mid-turn and starts it again on the same state,
   * which nothing in the `sharedServer` files could bear (a run of theirs
   * still going would be recovered too, and counted). Their runs end before
   * their tests do, so the recovery counts stay that test's own. `url` is
   * the running server's: it changes with a restart.
   */
  .extend("dashboardServer", { scope: "worker" }, async ({}, { onCleanup }): Promise<RestartableServer> => {
    const persistTo = await mkdtemp(join(tmpdir(), "agent-think-dashboard-"));
    let running = await startDevServer({ localDev: true, persistTo });
    onCleanup(async () => {
      await running.stop();
      await rm(persistTo, { recursive: true, force: true });
    });
    return {
      get url() {
        return running.url;
      },
      persistTo,
      output: () => running.output(),
      restart: async () => {
        await running.stop();
        running = await startDevServer({ localDev: true, persistTo });
      }
    };
  })
  .extend("accessServer", { scope: "file" }, async ({}, { onCleanup }): Promise<AccessDevServer> => {
    const server = await startAccessDevServer({ localDev: true });
    onCleanup(() => server.stop());
    return server;
  });
