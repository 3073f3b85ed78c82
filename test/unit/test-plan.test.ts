import { describe, expect, test } from "vitest";
import { readdirSync } from "node:fs";
import { FULL_PLAN, QUICK_PLAN, runPlan, type TestJob } from "../../scripts/lib/test-plan";

const job = (name: string, after?: string[]): TestJob => ({ name, commands: [["true"]], ...(after ? { after } : {}) });

/** A runner whose jobs end when the test says so; it records what ran when. */
function controlled(fail: string[] = []) {
  const events: string[] = [];
  const pending = new Map<string, () => void>();
  let running = 0;
  let most = 0;
  const run = (ran: TestJob) =>
    new Promise<{ ok: boolean; ms: number }>((resolve) => {
      running += 1;
      most = Math.max(most, running);
      events.push(`start ${ran.name}`);
      pending.set(ran.name, () => {
        running -= 1;
        events.push(`end ${ran.name}`);
        resolve({ ok: !fail.includes(ran.name), ms: 1 });
      });
    });
  const finish = async (name: string) => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    const end = pending.get(name);
    if (!end) throw new Error(`${name} is not running (ran: ${events.join(", ")})`);
    pending.delete(name);
    end();
  };
  return { run, finish, events, most: () => most };
}

describe("npm test's plan", () => {
  test("never runs more than the slots allow, and starts a job as soon as its prerequisite passed", async () => {
    const runner = controlled();
    const done = runPlan([job("build"), job("e2e", ["build"]), job("workers"), job("unit")], 2, runner.run);
    await runner.finish("build");
    await runner.finish("workers");
    await runner.finish("e2e");
    await runner.finish("unit");
    const results = await done;
    expect(runner.events).toEqual(["start build", "start workers", "end build", "start e2e", "end workers", "start unit", "end e2e", "end unit"]);
    expect(runner.most()).toBe(2);
    expect(results.map((result) => [result.name, result.ok])).toEqual([["build", true], ["e2e", true], ["workers", true], ["unit", true]]);
  });

  test("a job whose prerequisite failed is not run, and the results say why; the others still run", async () => {
    const runner = controlled(["build"]);
    const done = runPlan([job("build"), job("e2e", ["build"]), job("unit")], 2, runner.run);
    await runner.finish("build");
    await runner.finish("unit");
    const results = await done;
    expect(runner.events).not.toContain("start e2e");
    expect(results).toEqual([
      { name: "build", ok: false, ms: 1 },
      { name: "e2e", ok: false, ms: 0, skipped: "build failed" },
      { name: "unit", ok: true, ms: 1 }
    ]);
  });

  test("a runner that throws is a failed job, not a hung plan", async () => {
    const results = await runPlan([job("unit"), job("workers")], 1, async (ran) => {
      if (ran.name === "unit") throw new Error("spawn failed");
      return { ok: true, ms: 2 };
    });
    expect(results.map((result) => result.ok)).toEqual([false, true]);
  });

  test("refuses a plan it could never finish, and a slot count that is not a whole number", async () => {
    const never = async () => ({ ok: true, ms: 0 });
    await expect(runPlan([job("e2e", ["build"])], 2, never)).rejects.toThrow("e2e waits for build, which is not in the plan");
    await expect(runPlan([job("a", ["b"]), job("b", ["a"])], 2, never)).rejects.toThrow("these jobs wait for each other: a, b");
    await expect(runPlan([job("a")], 0, never)).rejects.toThrow("jobs must be a whole number of at least 1, not 0");
    await expect(runPlan([job("a")], Number.NaN, never)).rejects.toThrow("not NaN");
  });

  test("the full plan runs every suite and the typecheck, the e2e suite after the build; the quick one only unit and Workers", () => {
    expect(FULL_PLAN.map((planned) => planned.name).sort()).toEqual(["build", "e2e", "e2e-browser", "ingress", "typecheck", "unit", "workers"]);
    expect(FULL_PLAN.find((planned) => planned.name === "e2e")?.after).toEqual(["build"]);
    expect(FULL_PLAN.find((planned) => planned.name === "e2e-browser")?.after).toEqual(["build"]);
    expect(QUICK_PLAN.map((planned) => planned.name).sort()).toEqual(["unit", "workers"]);
    const reports = FULL_PLAN.flatMap((planned) => planned.commands.flat().filter((arg) => arg.startsWith("--outputFile.json=")));
    expect(reports.sort()).toEqual(["e2e", "e2e-browser", "ingress", "unit", "workers"].map((name) => `--outputFile.json=test-results/${name}.json`).sort());
  });

  test("the two e2e jobs split the e2e files between them: every file in exactly one", () => {
    const files = readdirSync("tests-e2e").filter((name) => name.endsWith(".test.ts")).map((name) => `tests-e2e/${name}`);
    const browser = FULL_PLAN.find((planned) => planned.name === "e2e-browser")!.commands[0]!;
    const rest = FULL_PLAN.find((planned) => planned.name === "e2e")!.commands[0]!;
    const named = browser.filter((arg) => arg.startsWith("tests-e2e/") && arg.endsWith(".test.ts"));
    const excluded = rest.flatMap((arg, index) => (rest[index - 1] === "--exclude" ? [arg] : []));
    expect(named.sort()).toEqual(excluded.sort());
    for (const file of named) expect(files).toContain(file);
    expect(files.filter((file) => !named.includes(file)).length).toBeGreaterThan(0);
  });
});
