/**
 * `npm run deploy [-- --dry-run] [--no-seed]`: checks Docker, the
 * Cloudflare login and account, both Workers' secrets and the checkout,
 * then builds the dashboard and deploys both Workers in the README's
 * order. The work is in scripts/lib/deploy/; docs/deploy.md describes it.
 */
import { fileURLToPath } from "node:url";
import { runDeploy } from "./lib/deploy/run";
import { spawnRunner } from "./lib/deploy/runner";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

process.exitCode = await runDeploy(process.argv.slice(2), {
  root,
  env: process.env,
  run: spawnRunner(root, process.env),
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  hostArch: process.arch
});
