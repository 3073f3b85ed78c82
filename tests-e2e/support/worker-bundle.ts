/**
 * e2e globalSetup: bundles the agent Worker once, as a deploy would
 * (`wrangler deploy --dry-run --outdir`; no container image, which needs
 * Docker and the e2e servers never start), for every `wrangler dev` the
 * fixture starts to serve with `--no-bundle` (AGENT_THINK_E2E_BUNDLE).
 * Under `npm test` the build job has made it already, for both e2e jobs
 * (E2E_PREBUILT_BUNDLE_DIR). The files that run `npm start` or a plain
 * `wrangler dev` still bundle their own. Why: docs/testing.md.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { E2E_PREBUILT_BUNDLE_DIR, workerBundleCommand } from "../../scripts/lib/test-plan";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export default async function setup(): Promise<() => Promise<void>> {
  const prebuilt = process.env[E2E_PREBUILT_BUNDLE_DIR];
  if (prebuilt) {
    useBundle(await entryIn(prebuilt, "the build job's bundle is missing"), " by the build job");
    return async () => {};
  }
  const dir = await mkdtemp(join(tmpdir(), "agent-think-e2e-bundle-"));
  const output: string[] = [];
  const [bin, ...args] = workerBundleCommand(dir) as [string, ...string[]];
  const child = spawn(join(ROOT, "node_modules", ".bin", bin), args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: "0" } });
  child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  if (code !== 0) throw new Error(`e2e: wrangler could not bundle the agent Worker (exit ${code}):\n${output.join("").slice(-4_000)}`);
  useBundle(await entryIn(dir, `wrangler wrote no bundle:\n${output.join("").slice(-4_000)}`));
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}

async function entryIn(dir: string, otherwise: string): Promise<string> {
  const entry = (await readdir(dir).catch(() => [])).find((name) => name.endsWith(".js"));
  if (!entry) throw new Error(`e2e: ${otherwise} (${dir})`);
  return join(dir, entry);
}

function useBundle(entry: string, by = ""): void {
  process.env.AGENT_THINK_E2E_BUNDLE = entry;
  console.log(`e2e: the agent Worker bundled once${by}, at ${entry}`);
}
