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
import { formatFailure, formatObservation } from "../scripts/lib/chaos/checks";
import { runChaos } from "../scripts/lib/chaos/driver";
import { planChaos, SHORT_PROFILE } from "../scripts/lib/chaos/plan";
import { seedFrom } from "../scripts/lib/chaos/prng";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNS = 2;
const KILLS = 1;

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

  expect(report.failures.map(formatFailure), context).toEqual([]);
  console.info(`chaos e2e: ${report.timings.totalMs} ms in all`);
});
