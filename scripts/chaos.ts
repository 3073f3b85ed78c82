/**
 * `npm run chaos -- [--seed S] [--runs N] [--kills K] [--short] [--keep]`:
 * the crash-consistency suite (docs/chaos.md). Dispatches N scripted runs
 * to a local `wrangler dev`, SIGKILLs the whole runtime K times at seeded
 * moments, restarts it on the same state, and checks that every run ended,
 * that the command center agrees with the agent, that each run got one
 * closing comment, that no tool command ran twice and that no token leaked.
 *
 * Prints the seed, N and K first and again with the replay command on
 * failure. Exit codes: 0 every check passed, 1 a check failed or the suite
 * could not run, 2 a bad argument. The work is in scripts/lib/chaos/.
 */
import { fileURLToPath } from "node:url";
import { parseChaosArgs, replayCommand, USAGE } from "./lib/chaos/args";
import { CHECK_NAMES, CHECKS, failuresByCheck, formatFailure, formatObservation } from "./lib/chaos/checks";
import { runChaos } from "./lib/chaos/driver";
import { FULL_PROFILE, planChaos, SHORT_PROFILE } from "./lib/chaos/plan";
import { seedFrom } from "./lib/chaos/prng";

const SETTLE_TIMEOUT_MS = 90_000;
// The outbox's scheduled delivery pass comes at most 30 s after a restart.
const AGREE_TIMEOUT_MS = 40_000;

const root = fileURLToPath(new URL("..", import.meta.url));

async function main(): Promise<number> {
  const parsed = parseChaosArgs(process.argv.slice(2), () => seedFrom(Math.random));
  if (!parsed.ok) {
    console.error(`chaos: ${parsed.error}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.kind === "help") {
    console.log(USAGE);
    return 0;
  }
  const { args } = parsed;
  const replay = replayCommand(args);
  console.log(`chaos: seed ${args.seed}, ${args.runs} runs, ${args.kills} kills${args.short ? " (short)" : ""}`);
  console.log(`chaos: replay with: ${replay}`);
  const plan = planChaos({ ...args, profile: args.short ? SHORT_PROFILE : FULL_PROFILE });
  console.log(`chaos: kills planned ${plan.kills.map((kill) => `${kill.afterReadyMs} ms`).join(", ") || "(none)"} after each start`);

  let report;
  try {
    report = await runChaos({ root, plan, settleTimeoutMs: SETTLE_TIMEOUT_MS, agreeTimeoutMs: AGREE_TIMEOUT_MS, keep: args.keep, log: (line) => console.log(`chaos: ${line}`) });
  } catch (error) {
    console.error(`chaos: the suite could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    console.error(`chaos: seed ${args.seed}, ${args.runs} runs, ${args.kills} kills; replay with: ${replay}`);
    return 1;
  }

  const { timings } = report;
  console.log(
    `chaos: first start ${timings.firstStartMs} ms, kills and restarts ${timings.chaosMs} ms, settling ${timings.settleMs} ms, ` +
      `read-back ${timings.readBackMs} ms, total ${timings.totalMs} ms`
  );
  for (const run of report.observations) console.log(`chaos: ${formatObservation(run)}`);
  const counts = failuresByCheck(report.failures);
  for (const name of CHECK_NAMES) {
    console.log(`chaos: ${counts[name] === 0 ? "✓" : "✗"} check ${CHECKS[name]}${counts[name] === 0 ? "" : `: ${counts[name]} of ${args.runs} runs failed`}`);
  }
  if (report.reloads > 0) console.log(`chaos: warning: wrangler reloaded ${report.reloads} times (files changed under it): the runs met more than one version of the code`);
  if (report.keptAt) console.log(`chaos: state and wrangler.log kept in ${report.keptAt}`);
  if (report.failures.length === 0) {
    console.log(`chaos: all checks passed (seed ${args.seed})`);
    return 0;
  }
  for (const failure of report.failures) console.error(formatFailure(failure));
  console.error(`chaos: FAILED: seed ${args.seed}, ${args.runs} runs, ${args.kills} kills; replay with: ${replay}`);
  return 1;
}

process.exitCode = await main();
