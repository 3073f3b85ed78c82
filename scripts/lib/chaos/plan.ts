/**
 * What one chaos run does, decided by its seed alone: the scripted runs
 * (one issue, so one session, each; a few `TEST: run` steps with sleeps
 * between them, each step appending its own line to a counter file in the
 * issue's workspace) and the kill plan (how long after the runtime came up
 * each SIGKILL lands). Pure and deterministic: the same seed, runs and kills
 * give the same plan, which is what makes a printed seed a replay.
 *
 * It does not decide when a kill lands in a run's life: the runtime's
 * speed does. Runs are dispatched at staggered moments before the kills,
 * and delays are drawn from a range wider than a run's scripted length, so
 * kills land before a turn starts, mid-step, between steps and after the
 * end.
 */
import { createRng } from "./prng";

/** The file each step appends to, in the issue's own workspace. */
export const COUNTER_DIR = "/workspace/chaos";
export const COUNTER_PATH = `${COUNTER_DIR}/counter.txt`;
/** The command a read-back run uses to print the counter file (its output ends with END_OF_COUNTER). */
export const END_OF_COUNTER = "chaos-end-of-counter";
export const READ_COUNTER_COMMAND = `cat ${COUNTER_PATH} 2>/dev/null; echo ${END_OF_COUNTER}`;
/** A counter line: `chaos-<seed>-r<run>-s<step>`. */
export const COUNTER_LINE = /^chaos-\d+-r\d+-s\d+$/;

export type ChaosProfile = {
  minSteps: number;
  maxSteps: number;
  /** The sleep before each step, a range in ms: where a kill lands mid-turn. */
  minSleepMs: number;
  maxSleepMs: number;
  /** How long after the runtime answers each kill lands, a range in ms. */
  minKillDelayMs: number;
  maxKillDelayMs: number;
};

/** A dispatch lands at most this far into the window before its start's kill, so the kill never cuts the request itself. */
export const DISPATCH_WINDOW = 0.6;

/** `npm run chaos`: runs long enough that five kills catch them at every stage. */
export const FULL_PROFILE: ChaosProfile = {
  minSteps: 3,
  maxSteps: 6,
  minSleepMs: 200,
  maxSleepMs: 2_500,
  minKillDelayMs: 300,
  maxKillDelayMs: 12_000
};

/** The e2e variant: two short runs, one kill, well under a minute. */
export const SHORT_PROFILE: ChaosProfile = {
  minSteps: 2,
  maxSteps: 3,
  minSleepMs: 200,
  maxSleepMs: 1_500,
  minKillDelayMs: 300,
  maxKillDelayMs: 5_000
};

export type ChaosStep = {
  /** The counter line this step appends; unique across the plan. */
  line: string;
  sleepMs: number;
  command: string;
};

export type RunPlan = {
  /** `r<index>`: how failures name the run. */
  runId: string;
  repo: string;
  issueNumber: number;
  commentId: number;
  /** The fake installation token this run is dispatched with; it must show up nowhere. */
  token: string;
  steps: ChaosStep[];
  /** The dispatch's instruction: the steps as scripted-model directives. */
  instruction: string;
  /** The sum of the steps' sleeps: the least the run takes without kills. */
  scriptedMs: number;
  /**
   * When it is dispatched: in which start of the runtime (0 the first, so
   * before kill 1) and how long after that start answered. Always before
   * that start's kill, and always before the last kill, so every run lives
   * through at least one.
   */
  dispatch: { start: number; afterReadyMs: number };
};

export type KillPlan = { afterReadyMs: number };

export type ChaosPlan = { seed: number; runs: RunPlan[]; kills: KillPlan[] };

export function planChaos(options: { seed: number; runs: number; kills: number; profile?: ChaosProfile }): ChaosPlan {
  const { seed, profile = FULL_PROFILE } = options;
  const rng = createRng(seed);
  const kills: KillPlan[] = [];
  for (let kill = 0; kill < options.kills; kill++) {
    kills.push({ afterReadyMs: rng.int(profile.minKillDelayMs, profile.maxKillDelayMs) });
  }
  const repo = `chaos-suite/run-${seed}`;
  const runs: RunPlan[] = [];
  for (let index = 1; index <= options.runs; index++) {
    const runId = `r${index}`;
    const steps: ChaosStep[] = [];
    const count = rng.int(profile.minSteps, profile.maxSteps);
    for (let step = 1; step <= count; step++) {
      const line = `chaos-${seed}-${runId}-s${step}`;
      steps.push({ line, sleepMs: rng.int(profile.minSleepMs, profile.maxSleepMs), command: `mkdir -p ${COUNTER_DIR} && echo ${line} >> ${COUNTER_PATH}` });
    }
    const instruction = [
      ...steps.flatMap((step) => [`TEST: sleep ${step.sleepMs}`, `TEST: run ${step.command}`]),
      `TEST: result not-reproduced Chaos run ${runId} ran its ${count} steps.`,
      `TEST: reply Chaos run ${runId} is done.`
    ].join("\n");
    // The first run goes out at once; the others anywhere before one of the kills.
    const start = index === 1 || kills.length === 0 ? 0 : rng.int(0, kills.length - 1);
    const window = kills.length === 0 ? 0 : Math.floor(kills[start]!.afterReadyMs * DISPATCH_WINDOW);
    runs.push({
      runId,
      repo,
      issueNumber: index,
      commentId: 1_000 + index,
      token: `chaos-fake-token-${seed}-${runId}-${rng.hex(24)}`,
      steps,
      instruction,
      scriptedMs: steps.reduce((sum, step) => sum + step.sleepMs, 0),
      dispatch: { start, afterReadyMs: index === 1 ? 0 : rng.int(0, window) }
    });
  }
  return { seed, runs, kills };
}

/** The instruction of the read-back run: print the counter file, touch nothing. */
export function readCounterInstruction(): string {
  return [`TEST: run ${READ_COUNTER_COMMAND}`, "TEST: reply Counter read."].join("\n");
}
