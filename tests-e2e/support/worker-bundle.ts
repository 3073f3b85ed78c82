/**
 * e2e globalSetup: bundles the agent Worker once, as a deploy would
 * (`wrangler deploy --dry-run --outdir`; no container image, which needs
 * Docker and the e2e servers never start), for every `wrangler dev` the
 * fixture starts to serve with `--no-bundle` (AGENT_THINK_E2E_BUNDLE).
 * The files that run `npm start` or a plain `wrangler dev` still bundle
 * their own. Why: docs/testing.md.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export default async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "agent-think-e2e-bundle-"));
  const output: string[] = [];
  const child = spawn(join(ROOT, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--containers-rollout=none", "--outdir", dir], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: "0" }
  });
  child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  const entry = (await readdir(dir)).find((name) => name.endsWith(".js"));
  if (code !== 0 || !entry) throw new Error(`e2e: wrangler could not bundle the agent Worker (exit ${code}):\n${output.join("").slice(-4_000)}`);
  process.env.AGENT_THINK_E2E_BUNDLE = join(dir, entry);
  console.log(`e2e: the agent Worker bundled once, at ${process.env.AGENT_THINK_E2E_BUNDLE}`);
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
