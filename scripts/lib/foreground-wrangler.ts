/**
 * One `wrangler dev` in the foreground of a dev script (`npm run
 * dev:ingress`): its output passed through, a callback once it prints
 * "Ready on", and its whole process group stopped on Ctrl-C or SIGTERM
 * (wrangler leaves workerd children behind). When wrangler exits by
 * itself, the script exits with its code. Never kills by name.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { findReadyUrl } from "./wrangler-dev";

const STOP_GRACE_MS = 5_000;
// Enough of the output to hold a "Ready on" line split across chunks.
const READY_SCAN_CHARS = 4_096;

export type ForegroundWranglerOptions = {
  /** How messages are prefixed, e.g. "npm run dev:ingress". */
  name: string;
  /** The repository root (wrangler's working directory). */
  root: string;
  args: string[];
  onReady(url: string): void;
  /** After wrangler stopped on Ctrl-C or SIGTERM, before this process exits (e.g. close a stand-in). */
  onStop?(): Promise<void>;
};

export function runWranglerInForeground(options: ForegroundWranglerOptions): void {
  const wrangler = spawn(join(options.root, "node_modules", ".bin", "wrangler"), options.args, {
    cwd: options.root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // Wrangler's `#!/usr/bin/env node` must find the Node this runs on (22), not the system one.
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` }
  });
  const killGroup = (signal: NodeJS.Signals) => {
    if (wrangler.pid === undefined) return;
    try {
      process.kill(-wrangler.pid, signal);
    } catch {
      // The group is already gone.
    }
  };

  let recentOutput = "";
  let ready = false;
  const pass = (out: NodeJS.WriteStream) => (chunk: Buffer) => {
    out.write(chunk);
    if (ready) return;
    recentOutput = (recentOutput + chunk.toString("utf8")).slice(-READY_SCAN_CHARS);
    const url = findReadyUrl(recentOutput);
    if (url === null) return;
    ready = true;
    options.onReady(url);
  };
  wrangler.stdout.on("data", pass(process.stdout));
  wrangler.stderr.on("data", pass(process.stderr));

  let stopping = false;
  wrangler.on("error", (error) => {
    console.error(`${options.name}: could not run wrangler: ${error.message}`);
    process.exit(1);
  });
  wrangler.on("exit", (code, signal) => {
    if (stopping) return;
    // Wrangler is gone, but workerd children it left in its group may not be.
    killGroup("SIGKILL");
    if (signal !== null) console.error(`${options.name}: wrangler was killed by ${signal}`);
    process.exit(code ?? 1);
  });

  const stop = async () => {
    if (stopping) return;
    stopping = true;
    killGroup("SIGTERM");
    const exited = await Promise.race([
      new Promise<boolean>((resolve) => {
        if (wrangler.exitCode !== null || wrangler.signalCode !== null) resolve(true);
        else wrangler.once("exit", () => resolve(true));
      }),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), STOP_GRACE_MS))
    ]);
    // Also reaps workerd children that outlive wrangler itself.
    killGroup("SIGKILL");
    if (!exited) console.error(`${options.name}: wrangler did not stop in time; killed it`);
    await options.onStop?.().catch(() => {});
    process.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void stop());
}
