/**
 * `npm start`: the whole agent on this machine, no Docker and no credentials.
 *
 * 1. Seeds the local skills bucket from skills/** (what `npm run seed:r2 --
 *    --local` does), so the dev Worker reads the skills in the repository.
 * 2. Starts the recording GitHub stand-in on 127.0.0.1 (port
 *    `GITHUB_STANDIN_PORT`, default 8790) and prints every call it records:
 *    the reactions and comments a run would have posted.
 * 3. Runs `wrangler dev --local` on 127.0.0.1 (port `PORT`, default 8787)
 *    with `LOCAL_DEV=1` and GITHUB_API_URL pointing at the stand-in, keeping
 *    state in wrangler's default `.wrangler/state` (or `PERSIST_TO`), and
 *    passes its output through. Once wrangler is ready it prints how to
 *    dispatch a run, read its transcript and see what it posted.
 * Wrangler runs in its own process group because it leaves workerd children
 * behind; Ctrl-C or SIGTERM stops that whole group and the stand-in. When
 * wrangler exits by itself, this exits with its code.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findReadyUrl, parsePort, startBanner, wranglerDevArgs } from "./lib/wrangler-dev";
import { describeRecord, startGitHubStandin } from "./lib/github-standin";
import { formatSeedSummary, seedSkills } from "./lib/seed-skills";

const STOP_GRACE_MS = 5_000;
// Enough of the output to hold a "Ready on" line split across chunks.
const READY_SCAN_CHARS = 4_096;

const root = fileURLToPath(new URL("..", import.meta.url));

const port = parsePort(process.env.PORT);
if (!port.ok) {
  console.error(`npm start: ${port.error}`);
  process.exit(2);
}

const standinPort = parsePort(process.env.GITHUB_STANDIN_PORT ?? "8790");
if (!standinPort.ok) {
  console.error(`npm start: GITHUB_STANDIN_PORT: ${standinPort.error}`);
  process.exit(2);
}
const persistTo = process.env.PERSIST_TO?.trim() || undefined;

try {
  console.log(formatSeedSummary(await seedSkills({ local: true, ...(persistTo ? { persistTo } : {}) })));
} catch (error) {
  console.error(`npm start: the skills were not seeded: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const standin = await startGitHubStandin({
  port: standinPort.port,
  onRecord: (record) => console.log(`github-standin ${describeRecord(record)}`)
}).catch((error: unknown) => {
  console.error(`npm start: the GitHub stand-in could not listen on port ${standinPort.port}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

const args = wranglerDevArgs({ port: port.port, localDev: true, githubApiUrl: standin.url, ...(persistTo ? { persistTo } : {}) });
const wrangler = spawn(join(root, "node_modules", ".bin", "wrangler"), args, {
  cwd: root,
  detached: true,
  stdio: ["ignore", "pipe", "pipe"],
  // Wrangler's `#!/usr/bin/env node` must find the Node this runs on (22), not the system one.
  env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` }
});

let recentOutput = "";
let ready = false;
const watchForReady = (chunk: Buffer) => {
  if (ready) return;
  recentOutput = (recentOutput + chunk.toString("utf8")).slice(-READY_SCAN_CHARS);
  const url = findReadyUrl(recentOutput);
  if (url === null) return;
  ready = true;
  process.stdout.write(`${startBanner(url, standin.url)}\n`);
};
wrangler.stdout.on("data", (chunk: Buffer) => {
  process.stdout.write(chunk);
  watchForReady(chunk);
});
wrangler.stderr.on("data", (chunk: Buffer) => {
  process.stderr.write(chunk);
  watchForReady(chunk);
});

let stopping = false;
wrangler.on("error", (error) => {
  console.error(`npm start: could not run wrangler: ${error.message}`);
  process.exit(1);
});
wrangler.on("exit", (code, signal) => {
  if (stopping) return;
  // Wrangler is gone, but workerd children it left in its group may not be.
  killGroup("SIGKILL");
  if (signal !== null) console.error(`npm start: wrangler was killed by ${signal}`);
  process.exit(code ?? 1);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void stop());
}

async function stop(): Promise<void> {
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
  await standin.close();
  if (!exited) console.error("npm start: wrangler did not stop in time; killed it");
  process.exit(0);
}

function killGroup(signal: NodeJS.Signals): void {
  if (wrangler.pid === undefined) return;
  try {
    process.kill(-wrangler.pid, signal);
  } catch {
    // The group is already gone.
  }
}
