/**
 * `npm test` (the whole plan, three jobs at a time) and `npm run
 * test:quick` (`--quick`: unit and Workers only, two), run by
 * scripts/lib/test-plan.ts (TEST_JOBS to change how many). Each job's output goes to
 * test-results/logs/<job>.log and is printed whole when the job ends, so
 * two suites never interleave; the last lines are the totals of every
 * suite's JSON report, the failed tests and the skipped ones by missing
 * tool (scripts/lib/test-summary.ts).
 */
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { E2E_PREBUILT_BUNDLE_DIR, FULL_PLAN, QUICK_PLAN, runPlan, type TestJob, WORKER_BUNDLE_DIR } from "./lib/test-plan";
import { EXTERNAL_TOOLS, type ExternalTool, present } from "./lib/external-tools";
import { type SuiteReport, summarize } from "./lib/test-summary";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LOGS = join(ROOT, "test-results", "logs");

const quick = process.argv.includes("--quick");
const plan = quick ? QUICK_PLAN : FULL_PLAN;
const jobs = Number(process.env.TEST_JOBS ?? (quick ? 2 : 3));
// Every Node process the suites start (wrangler about 30 times, vitest, the CLIs) reuses V8's compiled code.
const compileCache = process.env.NODE_COMPILE_CACHE ?? join(ROOT, "node_modules", ".cache", "node-compile-cache");

// The totals read every report here: a report left by an earlier run must not count.
rmSync(join(ROOT, "test-results"), { recursive: true, force: true });
mkdirSync(LOGS, { recursive: true });
const started = Date.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
console.log(`test: ${plan.map((job) => job.name).join(", ")}; ${jobs} at a time; logs in test-results/logs/`);

const results = await runPlan(plan, jobs, async (job) => {
  const at = Date.now();
  console.log(`test: ${job.name} started at +${seconds(at - started)}`);
  const ok = await runJob(job);
  const ms = Date.now() - at;
  const log = join(LOGS, `${job.name}.log`);
  console.log(`\n──── ${job.name}: ${ok ? "passed" : "FAILED"} in ${seconds(ms)} ────`);
  process.stdout.write(readFileSync(log, "utf8"));
  return { ok, ms };
});

console.log(`\ntest: finished in ${seconds(Date.now() - started)}`);
for (const result of results) {
  console.log(`  ${result.ok ? "ok  " : "FAIL"} ${result.name.padEnd(10)} ${result.skipped ? `not run: ${result.skipped}` : seconds(result.ms)}`);
}
const reportDir = join(ROOT, "test-results");
const reports = readdirSync(reportDir)
  .filter((name) => name.endsWith(".json"))
  .map((name) => JSON.parse(readFileSync(join(reportDir, name), "utf8")) as SuiteReport);
const missing = new Set((Object.keys(EXTERNAL_TOOLS) as ExternalTool[]).filter((tool) => !present(tool)));
const summary = summarize(reports, ROOT, missing);
for (const line of summary.lines) console.log(line);
process.exitCode = results.every((result) => result.ok) && summary.ok ? 0 : 1;

/** Runs the job's commands in order into its log; false at the first that fails. */
async function runJob(job: TestJob): Promise<boolean> {
  const log = createWriteStream(join(LOGS, `${job.name}.log`));
  try {
    for (const command of job.commands) {
      log.write(`$ ${command.join(" ")}\n`);
      if (!(await runCommand(command, log))) return false;
    }
    return true;
  } finally {
    await new Promise<void>((resolve) => log.end(resolve));
  }
}

function runCommand(command: string[], output: NodeJS.WritableStream): Promise<boolean> {
  const [bin, ...args] = command as [string, ...string[]];
  const path = bin === "node" ? process.execPath : join(ROOT, "node_modules", ".bin", bin);
  return new Promise((resolve) => {
    const child = spawn(path, args, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      // Node 22 first on PATH, for the bins' `#!/usr/bin/env node`; no colours in a log.
      env: { ...process.env, [E2E_PREBUILT_BUNDLE_DIR]: join(ROOT, WORKER_BUNDLE_DIR), NODE_COMPILE_CACHE: compileCache, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, FORCE_COLOR: "0" }
    });
    child.stdout.pipe(output, { end: false });
    child.stderr.pipe(output, { end: false });
    child.once("error", (error) => {
      output.write(`${error.message}\n`);
      resolve(false);
    });
    child.once("close", (code) => resolve(code === 0));
  });
}
