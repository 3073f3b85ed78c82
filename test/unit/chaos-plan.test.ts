/**
 * The chaos suite's seeded parts: the PRNG, the plan it draws (runs, their
 * steps and tokens, the kill delays), and the command line with its replay
 * command. The same seed must give the same plan: that is what a printed
 * seed replays.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_KILLS, DEFAULT_RUNS, parseChaosArgs, replayCommand } from "../../scripts/lib/chaos/args";
import { COUNTER_LINE, COUNTER_PATH, DISPATCH_WINDOW, FULL_PROFILE, planChaos, READ_COUNTER_COMMAND, readCounterInstruction, SHORT_PROFILE } from "../../scripts/lib/chaos/plan";
import { createRng, MAX_SEED, seedFrom } from "../../scripts/lib/chaos/prng";
import { planScript } from "../../src/model/script";
import { parseRepo } from "../../src/shared/repo";

describe("createRng", () => {
  it("repeats itself for a seed and differs between seeds", () => {
    const draw = (seed: number) => {
      const rng = createRng(seed);
      return Array.from({ length: 5 }, () => rng.next());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it("keeps ints in range, both ends reachable", () => {
    const rng = createRng(7);
    const seen = new Set<number>();
    for (let i = 0; i < 1_000; i++) {
      const value = rng.int(2, 5);
      expect(value).toBeGreaterThanOrEqual(2);
      expect(value).toBeLessThanOrEqual(5);
      seen.add(value);
    }
    expect([...seen].sort()).toEqual([2, 3, 4, 5]);
    expect(() => rng.int(5, 2)).toThrow(RangeError);
    expect(rng.hex(12)).toMatch(/^[0-9a-f]{12}$/);
  });

  it("turns any randomness into a seed in range", () => {
    expect(seedFrom(() => 0)).toBe(0);
    expect(seedFrom(() => 0.999_999_999_9)).toBeLessThanOrEqual(MAX_SEED);
  });
});

describe("planChaos", () => {
  it("is the same plan for the same seed", () => {
    expect(planChaos({ seed: 99, runs: 4, kills: 3 })).toEqual(planChaos({ seed: 99, runs: 4, kills: 3 }));
    expect(planChaos({ seed: 99, runs: 4, kills: 3 }).kills).not.toEqual(planChaos({ seed: 100, runs: 4, kills: 3 }).kills);
  });

  it("gives each run its own issue, comment, token and counter lines", () => {
    const plan = planChaos({ seed: 5, runs: 6, kills: 2 });
    expect(plan.runs).toHaveLength(6);
    expect(new Set(plan.runs.map((run) => run.issueNumber)).size).toBe(6);
    expect(new Set(plan.runs.map((run) => run.commentId)).size).toBe(6);
    expect(new Set(plan.runs.map((run) => run.token)).size).toBe(6);
    const lines = plan.runs.flatMap((run) => run.steps.map((step) => step.line));
    expect(new Set(lines).size).toBe(lines.length);
    for (const line of lines) expect(line).toMatch(COUNTER_LINE);
    for (const run of plan.runs) {
      expect(parseRepo(run.repo).ok).toBe(true);
      expect(run.steps.length).toBeGreaterThanOrEqual(FULL_PROFILE.minSteps);
      expect(run.steps.length).toBeLessThanOrEqual(FULL_PROFILE.maxSteps);
      // The token is never spelled in what the model is told.
      expect(run.instruction).not.toContain(run.token);
    }
  });

  it("scripts sleeps, one appending bash call per step, a result and a reply", () => {
    const [run] = planChaos({ seed: 11, runs: 1, kills: 0, profile: SHORT_PROFILE }).runs;
    const script = planScript(run!.instruction);
    const bash = script.filter((step) => step.kind === "tool" && step.toolName === "bash");
    expect(bash.map((step) => (step.kind === "tool" ? step.input.command : null))).toEqual(run!.steps.map((step) => step.command));
    expect(bash.map((step) => step.delayMs)).toEqual(run!.steps.map((step) => step.sleepMs));
    for (const step of run!.steps) expect(step.command).toContain(`echo ${step.line} >> ${COUNTER_PATH}`);
    expect(script.at(-2)).toMatchObject({ kind: "tool", toolName: "report_result" });
    expect(script.at(-1)).toMatchObject({ kind: "reply" });
    expect(run!.scriptedMs).toBe(run!.steps.reduce((sum, step) => sum + step.sleepMs, 0));
  });

  it("draws kill delays within the profile", () => {
    const { kills } = planChaos({ seed: 3, runs: 1, kills: 40, profile: SHORT_PROFILE });
    expect(kills).toHaveLength(40);
    for (const kill of kills) {
      expect(kill.afterReadyMs).toBeGreaterThanOrEqual(SHORT_PROFILE.minKillDelayMs);
      expect(kill.afterReadyMs).toBeLessThanOrEqual(SHORT_PROFILE.maxKillDelayMs);
    }
  });

  it("dispatches every run before one of the kills, the first at once", () => {
    const plan = planChaos({ seed: 21, runs: 12, kills: 4 });
    expect(plan.runs[0]!.dispatch).toEqual({ start: 0, afterReadyMs: 0 });
    for (const run of plan.runs) {
      expect(run.dispatch.start).toBeGreaterThanOrEqual(0);
      expect(run.dispatch.start).toBeLessThan(plan.kills.length);
      expect(run.dispatch.afterReadyMs).toBeLessThanOrEqual(plan.kills[run.dispatch.start]!.afterReadyMs * DISPATCH_WINDOW);
    }
    expect(new Set(plan.runs.map((run) => run.dispatch.start)).size).toBeGreaterThan(1);
    // Without kills, everything goes out on the one start.
    expect(planChaos({ seed: 21, runs: 3, kills: 0 }).runs.map((run) => run.dispatch.start)).toEqual([0, 0, 0]);
  });

  it("reads the counter back with one bash call that writes nothing", () => {
    const script = planScript(readCounterInstruction());
    expect(script[0]).toMatchObject({ kind: "tool", toolName: "bash", input: { command: READ_COUNTER_COMMAND } });
    expect(READ_COUNTER_COMMAND).not.toContain(">>");
  });
});

describe("parseChaosArgs", () => {
  const fresh = () => 1234;
  it("defaults runs and kills and draws a seed", () => {
    expect(parseChaosArgs([], fresh)).toEqual({ ok: true, kind: "run", args: { seed: 1234, runs: DEFAULT_RUNS, kills: DEFAULT_KILLS, short: false, keep: false } });
  });

  it("takes every option, in both spellings", () => {
    expect(parseChaosArgs(["--seed", "7", "--runs=3", "--kills", "0", "--short", "--keep"], fresh)).toEqual({
      ok: true,
      kind: "run",
      args: { seed: 7, runs: 3, kills: 0, short: true, keep: true }
    });
    expect(parseChaosArgs(["-h"], fresh)).toEqual({ ok: true, kind: "help" });
  });

  it("refuses what is not a count or a seed", () => {
    for (const argv of [["--seed", "-1"], ["--seed", "4294967296"], ["--runs", "0"], ["--kills", "x"], ["--runs"], ["--fast"]]) {
      const parsed = parseChaosArgs(argv, fresh);
      expect(parsed.ok, argv.join(" ")).toBe(false);
    }
  });

  it("prints a replay command that parses back to the same run", () => {
    const args = { seed: 77, runs: 2, kills: 1, short: true };
    const command = replayCommand(args);
    expect(command).toBe("npm run chaos -- --seed 77 --runs 2 --kills 1 --short");
    expect(parseChaosArgs(command.split(" ").slice(4), fresh)).toEqual({ ok: true, kind: "run", args: { ...args, keep: false } });
  });
});
