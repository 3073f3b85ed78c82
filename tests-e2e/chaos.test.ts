/**
 * The short variant of `npm run chaos` (docs/chaos.md), inside `npm test`:
 * two scripted runs on a real `wrangler dev --local`, the whole runtime
 * SIGKILLed once at a seeded moment and restarted on the same state, then
 * the five checks: every run terminal, the command center agreeing with the
 * agent, one closing comment per run, no tool command twice, no token out.
 * A fresh seed each time (CHAOS_SEED pins one); a failure names the seed
 * and the command that replays it. afterAll stops the runtime's process
 * group and the stand-in even when the test timed out mid-run.
 */
import { fileURLToPath } from "node:url";
import { afterAll, expect, test } from "vitest";
import { replayCommand } from "../scripts/lib/chaos/args";
import { formatFailure, formatObservation, type CheckName } from "../scripts/lib/chaos/checks";
import { runChaos } from "../scripts/lib/chaos/driver";
import { planChaos, SHORT_PROFILE } from "../scripts/lib/chaos/plan";
import { seedFrom } from "../scripts/lib/chaos/prng";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNS = 2;
const KILLS = 1;
/**
 * Known failures, printed as warnings instead of failing `npm test` on a
 * random seed, until the product holds them (docs/chaos.md, "Known
 * failures"); empty this set as each is fixed:
 * - center-status: a kill could lose the fire-and-forget turn-ended event
 *   (the agent's command-center outbox is meant to hold it now).
 * - one-closing (and center-status with it): a kill after Think wrote a
 *   terminal status and before onSubmissionStatus queued the closing notice
 *   leaves the run with no closing comment and its thread `running`.
 * - once-only: a kill after a bash command's effect and before Think saved
 *   its result makes the recovered turn run the command again.
 */
const NOT_YET_HELD: ReadonlySet<CheckName> = new Set(["once-only"]);

let stopResources: (() => Promise<void>) | undefined;
afterAll(async () => {
  await stopResources?.();
});

test("runs survive a SIGKILL of the whole runtime: ended once, consistently, without leaking a token", { timeout: 120_000 }, async () => {
  const seed = process.env.CHAOS_SEED ? Number(process.env.CHAOS_SEED) : seedFrom(Math.random);
  const replay = replayCommand({ seed, runs: RUNS, kills: KILLS, short: true });
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  console.info(`chaos e2e: seed ${seed}; replay with: ${replay}`);

  const report = await runChaos({
    root: ROOT,
    plan: planChaos({ seed, runs: RUNS, kills: KILLS, profile: SHORT_PROFILE }),
    settleTimeoutMs: 30_000,
    agreeTimeoutMs: 15_000,
    keep: false,
    log,
    onResources: (stop) => void (stopResources = stop)
  });
  for (const run of report.observations) lines.push(formatObservation(run));
  if (report.reloads > 0) lines.push(`wrangler reloaded ${report.reloads} times (files changed under it)`);
  const context = `seed ${seed}; replay with: ${replay}\n${lines.join("\n")}`;

  const tolerated = report.failures.filter((failure) => NOT_YET_HELD.has(failure.check));
  for (const failure of tolerated) console.warn(`chaos e2e (not failing the test yet): ${formatFailure(failure)} — ${replay}`);
  const failures = report.failures.filter((failure) => !NOT_YET_HELD.has(failure.check)).map(formatFailure);
  expect(failures, context).toEqual([]);
  console.info(`chaos e2e: ${report.timings.totalMs} ms in all`);
});
