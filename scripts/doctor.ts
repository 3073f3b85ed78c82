/**
 * `npm run doctor [-- --url <base>] [--remote] [--json]`: the deploy checklist for
 * this checkout (both Workers' wrangler configs against each other, the
 * compatibility flags, the env files, the model settings, skills/) and,
 * with --url, the running agent Worker's own health report, read with an
 * Access service token from CF_ACCESS_CLIENT_ID / CF_ACCESS_CLIENT_SECRET
 * when set; with --remote, what GitHub holds the App to on each allowed
 * repository and what its pushes reach in CI, read with GITHUB_TOKEN. Exits
 * 1 when anything blocks runs. Work: scripts/lib/doctor/; docs/doctor.md.
 */
import { fileURLToPath } from "node:url";
import { runDoctor } from "./lib/doctor/run";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

process.exitCode = await runDoctor(process.argv.slice(2), {
  root,
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text)
});
