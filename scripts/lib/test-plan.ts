/**
 * What `npm test` and `npm run test:quick` run, and in what order: the
 * jobs, what each waits for, and the scheduler that runs up to `jobs` of
 * them side by side (scripts/test.ts runs the processes). Pure: the runner
 * is a parameter. docs/testing.md has the measurements behind the order.
 */

export type TestJob = {
  name: string;
  /** Commands run one after another, each a binary from node_modules/.bin and its arguments. */
  commands: string[][];
  /** Jobs that must have passed first. */
  after?: string[];
};

const vitest = (config: string, report: string) => [
  "vitest",
  "run",
  "--config",
  config,
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=test-results/${report}.json`
];

export const UNIT: TestJob = { name: "unit", commands: [vitest("test/unit.vitest.config.ts", "unit")] };
export const WORKERS: TestJob = { name: "workers", commands: [vitest("test/vitest.config.ts", "workers")] };
export const INGRESS: TestJob = { name: "ingress", commands: [vitest("ingress/test/vitest.config.ts", "ingress")] };
/** Where the build job bundles the agent Worker for both e2e jobs (tests-e2e/support/worker-bundle.ts reads the variable). */
export const E2E_PREBUILT_BUNDLE_DIR = "AGENT_THINK_E2E_PREBUILT_BUNDLE_DIR";
export const WORKER_BUNDLE_DIR = "test-results/worker-bundle";
/** The agent Worker as a deploy builds it, without the container image. */
export const workerBundleCommand = (outdir: string) => ["wrangler", "deploy", "--dry-run", "--containers-rollout=none", "--outdir", outdir];

/**
 * The dashboard for the e2e servers; Chromium found (the npm build unpacked)
 * before two e2e jobs could race to unpack it; the agent Worker bundled once
 * for both (about 7.5 CPU seconds each).
 */
export const BUILD: TestJob = {
  name: "build",
  commands: [["vite", "build", "--logLevel", "warn"], ["tsx", "scripts/find-chromium.ts"], workerBundleCommand(WORKER_BUNDLE_DIR)]
};

/**
 * The e2e files that drive Chromium, and chaos, as a job of their own: the
 * e2e suite alone was the longest job, one file at a time, so its two
 * halves run side by side. This one starts after the unit suite, so it
 * holds less (the eval's file went to the other, docs/testing.md).
 */
export const E2E_BROWSER_FILES = [
  "tests-e2e/dashboard.test.ts",
  "tests-e2e/eval-report.test.ts",
  "tests-e2e/health-banner.test.ts",
  "tests-e2e/operator-view.test.ts",
  "tests-e2e/progress-comment.test.ts",
  "tests-e2e/repro-pages.test.ts",
  "tests-e2e/repositories.test.ts",
  "tests-e2e/chaos.test.ts"
];
export const E2E_BROWSER: TestJob = {
  name: "e2e-browser",
  commands: [[...vitest("tests-e2e/vitest.config.ts", "e2e-browser"), ...E2E_BROWSER_FILES]],
  after: ["build"]
};
export const E2E: TestJob = {
  name: "e2e",
  commands: [[...vitest("tests-e2e/vitest.config.ts", "e2e"), ...E2E_BROWSER_FILES.flatMap((file) => ["--exclude", file])]],
  after: ["build"]
};

export const TYPECHECK: TestJob = {
  name: "typecheck",
  commands: [
    ["wrangler", "types", "--env-file", ".env_example", "--strict-vars", "false", "--check"],
    ["wrangler", "types", "-c", "ingress/wrangler.jsonc", "ingress/worker-configuration.d.ts", "--strict-vars", "false", "--check"],
    // The Worker, its tests, the e2e tests, the scripts and the bench in one program (src is read once).
    ["tsc", "-p", "tsconfig.check.json"],
    ["tsc", "-p", "src/ui"],
    ["tsc", "-p", "ingress"],
    ["tsc", "-p", "ingress/test"]
  ]
};

/**
 * In the order the scheduler prefers them: the e2e suite is the longest
 * and mostly waits on wrangler and the browser, so it starts first (after
 * the build it needs) and the CPU-bound suites fill the other slot.
 */
export const FULL_PLAN: TestJob[] = [BUILD, E2E, E2E_BROWSER, WORKERS, UNIT, INGRESS, TYPECHECK];
export const QUICK_PLAN: TestJob[] = [WORKERS, UNIT];

export type JobResult = { name: string; ok: boolean; ms: number; skipped?: string };

/**
 * Runs the plan with at most `jobs` at once, each as soon as what it waits
 * for has passed; a job whose prerequisite failed is not run, and says so.
 * Results come back in the plan's order.
 */
export async function runPlan(
  plan: TestJob[],
  jobs: number,
  run: (job: TestJob) => Promise<{ ok: boolean; ms: number }>
): Promise<JobResult[]> {
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`jobs must be a whole number of at least 1, not ${jobs}`);
  const names = new Set(plan.map((job) => job.name));
  for (const job of plan) {
    for (const needed of job.after ?? []) {
      if (!names.has(needed)) throw new Error(`${job.name} waits for ${needed}, which is not in the plan`);
    }
  }
  const results = new Map<string, JobResult>();
  const running = new Set<string>();
  let wake: () => void = () => {};

  const ready = (job: TestJob) => (job.after ?? []).every((needed) => results.get(needed)?.ok === true);
  const blockedBy = (job: TestJob) => (job.after ?? []).find((needed) => results.has(needed) && results.get(needed)?.ok !== true);

  while (results.size < plan.length) {
    for (const job of plan) {
      if (results.has(job.name) || running.has(job.name)) continue;
      const failed = blockedBy(job);
      if (failed) {
        results.set(job.name, { name: job.name, ok: false, ms: 0, skipped: `${failed} failed` });
        continue;
      }
      if (running.size >= jobs || !ready(job)) continue;
      running.add(job.name);
      void run(job)
        .catch(() => ({ ok: false, ms: 0 }))
        .then((outcome) => {
          running.delete(job.name);
          results.set(job.name, { name: job.name, ...outcome });
          wake();
        });
    }
    if (results.size === plan.length) break;
    if (running.size === 0) throw new Error(`these jobs wait for each other: ${plan.filter((job) => !results.has(job.name)).map((job) => job.name).join(", ")}`);
    await new Promise<void>((resolve) => (wake = resolve));
  }
  return plan.map((job) => results.get(job.name)!);
}
