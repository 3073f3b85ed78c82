/**
 * MONTHLY_COST_BUDGET against a real CommandCenterAgent's SQLite: the
 * month's spend from recorded run ends (once per run, current or not, a
 * missing cost a floor, other months apart, kept across a ledger made after
 * the runs), dispatch and Continue refused once it is reached (nothing
 * written to the issue's agent), a bad value refused before any Durable
 * Object, and the costs line of the health report. Each test has its own
 * command center, put behind the service's singleton name.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { commandCenter, type CommandCenterAgent } from "../../src/command-center";
import { costsHealth } from "../../src/health/costs";
import { createService } from "../../src/service";
import type { Cost } from "../../src/shared/command-center";
import type { DispatchedEvent } from "../../src/shared/command-center-events";
import { isMonthlyBudgetRefusal, MONTHLY_BUDGET_REFUSAL } from "../../src/shared/monthly-budget";
import { agentFor, evict, uniqueRepo, freshCenterName, renamedCommandCenter } from "../helpers";


let issue = 0;
function dispatched(at: number): DispatchedEvent {
  issue++;
  return {
    type: "dispatched",
    session: `acme-budget-${issue}`,
    repo: "acme/budget",
    issueNumber: issue,
    instruction: "reproduce this issue",
    submissionId: crypto.randomUUID(),
    at
  };
}

const ended = (run: DispatchedEvent, at: number, cost?: Cost) => ({
  type: "turn-ended" as const,
  session: run.session,
  submissionId: run.submissionId,
  status: "done" as const,
  ...(cost ? { cost } : {}),
  at
});

async function spent(name: string, usd: number, at = Date.now()) {
  const center = await commandCenter(env, name);
  const run = dispatched(at - 1_000);
  await center.recordBatch([run, ended(run, at, { usd, complete: true })]);
  return run;
}

const DEC_2026 = Date.UTC(2026, 11, 15);

describe("the month's spend", () => {
  it("sums each run's end once, current run or not, in the month it ended", async () => {
    const name = freshCenterName();
    const center = await commandCenter(env, name);
    const stub = (await getAgentByName(env.CommandCenterAgent, name)) as unknown as DurableObjectStub<CommandCenterAgent>;
    await runInDurableObject(stub, (instance: CommandCenterAgent) => {
      instance.clock = () => DEC_2026;
    });
    const first = dispatched(DEC_2026 - 60_000);
    // A second run on the same issue: the first is no longer the thread's current run when it ends.
    const second = { ...dispatched(DEC_2026 - 30_000), session: first.session, issueNumber: first.issueNumber };
    const november = dispatched(Date.UTC(2026, 10, 30, 23));
    await center.recordBatch([first, second, november, ended(november, Date.UTC(2026, 10, 30, 23, 59), { usd: 100, complete: true })]);
    await center.recordBatch([ended(first, DEC_2026 - 20_000, { usd: 1.5, complete: true }), ended(second, DEC_2026 - 10_000, { usd: 2.25, complete: true })]);
    // Resent (an outbox retry): counted once.
    await center.recordBatch([ended(first, DEC_2026 - 5_000, { usd: 1.5, complete: true })]);
    expect(await center.monthlySpend()).toEqual({ month: "2026-12", spent: { usd: 3.75, complete: true } });

    // A run that ended with no cost known makes the month's total a floor.
    const unknown = dispatched(DEC_2026 - 4_000);
    await center.recordBatch([unknown, ended(unknown, DEC_2026 - 3_000)]);
    expect(await center.monthlySpend()).toEqual({ month: "2026-12", spent: { usd: 3.75, complete: false } });
  });

  it("is rebuilt from the runs the registry keeps when the ledger is made after them", async () => {
    const name = freshCenterName();
    await spent(name, 4);
    await spent(name, 0.5);
    const stub = (await getAgentByName(env.CommandCenterAgent, name)) as unknown as DurableObjectStub<CommandCenterAgent>;
    // A deploy from before the ledger: the runs are in cc_runs, and there is no cc_budget_runs.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("DROP TABLE cc_budget_runs");
    });
    await evict(stub, "the ledger is made again by a new instance");
    const center = await commandCenter(env, name);
    expect((await center.monthlySpend()).spent).toEqual({ usd: 4.5, complete: true });
  });
});

describe("dispatch under MONTHLY_COST_BUDGET", () => {
  // A run that starts answers at once: the scripted demonstration would only add work beside the next tests.
  const input = (repo: string) => ({ repo, issueNumber: 7, instruction: "reproduce this issue\nTEST: reply done", installationToken: "", commentId: 7 });

  it("starts runs below the cap and refuses new ones once the month's spend reaches it, writing nothing", async () => {
    const name = freshCenterName();
    const budgeted = { ...env, MONTHLY_COST_BUDGET: "5", CommandCenterAgent: renamedCommandCenter(name) };
    await spent(name, 4.99);
    const repo = uniqueRepo();
    const started = await createService(budgeted).dispatch(input(repo));
    expect(started.submissionId).not.toBe("");

    await spent(name, 0.01);
    const other = uniqueRepo();
    const refusal = await createService(budgeted).dispatch(input(other)).catch((error: unknown) => error);
    expect(isMonthlyBudgetRefusal(refusal)).toBe(true);
    expect((refusal as Error).message).toMatch(
      new RegExp(`^${MONTHLY_BUDGET_REFUSAL} \\$5\\.00 of MONTHLY_COST_BUDGET \\$5\\.00 spent in \\d{4}-\\d{2} \\(UTC\\), so agent-think starts no new runs until \\d{4}-\\d{2}-01 00:00 UTC or until the budget is raised; runs already going finish$`)
    );
    expect((refusal as { code?: string }).code).toBe("monthly_budget_reached");
    // The refused issue's agent was never asked to start anything.
    const session = (await createService(env).dispatch({ ...input(other), instruction: "stop", commentId: 8 })).session;
    expect(await (await agentFor(session)).transcript()).toEqual([]);

    // A stop starts nothing and is not refused; a higher cap lets runs start again.
    await expect(createService(budgeted).dispatch({ ...input(repo), instruction: "stop", commentId: 9 })).resolves.toMatchObject({ session: expect.any(String) });
    await expect(createService({ ...budgeted, MONTHLY_COST_BUDGET: "5.01" }).dispatch({ ...input(other), commentId: 10 })).resolves.toMatchObject({
      submissionId: expect.any(String)
    });
  });

  it("refuses Continue the same way", async () => {
    const name = freshCenterName();
    await spent(name, 10);
    const service = createService({ ...env, MONTHLY_COST_BUDGET: "10", CommandCenterAgent: renamedCommandCenter(name) });
    const refusal = await service.continueRun("acme-widgets-1").catch((error: unknown) => error);
    expect(isMonthlyBudgetRefusal(refusal)).toBe(true);
  });

  it("refuses every dispatch, naming the variable, when MONTHLY_COST_BUDGET does not parse", async () => {
    for (const bad of ["0", "-3", "ten", "5$", "1e3"]) {
      const refusal = await createService({ ...env, MONTHLY_COST_BUDGET: bad })
        .dispatch(input(uniqueRepo()))
        .catch((error: unknown) => error);
      expect((refusal as Error).message, bad).toContain("MONTHLY_COST_BUDGET must be a positive number of US dollars");
      expect((refusal as { code?: string }).code).toBe("bad_monthly_budget");
    }
  });
});

describe("the costs line", () => {
  it("reads this month's spend from the command center and blocks once the budget is reached", async () => {
    const name = freshCenterName();
    await spent(name, 3);
    const center = await commandCenter(env, name);
    const config = { MONTHLY_COST_BUDGET: "3", CONTAINERS_ENABLED: "1", WARM_POOL_SIZE: "1", CONTAINER_INSTANCE_TYPE: "standard-2" };
    const line = await costsHealth(config, () => center.monthlySpend(), { now: Date.now() });
    expect(line).toMatchObject({ id: "costs", status: "block", fix: expect.stringContaining("MONTHLY_COST_BUDGET") });
    expect(line.detail).toContain("$3.00 of MONTHLY_COST_BUDGET $3.00");
    expect(line.detail).toContain("warm pool: 1 standard-2 container, about $41.35 a month");
  });
});
