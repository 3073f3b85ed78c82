import { describe, expect, it } from "vitest";
import type { RepoReporterSpend } from "../../src/command-center/reporter-budget";
import { costsHealth } from "../../src/health/costs";
import type { MonthlySpend } from "../../src/shared/monthly-budget";

const NOW = Date.UTC(2026, 11, 15);
const deployed = { CONTAINERS_ENABLED: "1", CONTAINER_INSTANCE_TYPE: "standard-2", WARM_POOL_SIZE: "1", MONTHLY_COST_BUDGET: "" };
const spend = (usd: number, complete = true) => async (): Promise<MonthlySpend> => ({ month: "2026-12", spent: { usd, complete } });
const never = async (): Promise<MonthlySpend> => {
  throw new Error("the test said the command center must not be asked");
};

describe("costsHealth", () => {
  it("states the warm pool's monthly cost and no cap, without asking the command center", async () => {
    expect(await costsHealth(deployed, never, { now: NOW })).toEqual({
      id: "costs",
      label: "Costs",
      status: "ok",
      detail:
        "warm pool: 1 standard-2 container, about $41.35 a month (Containers' rates of 2026-12-01); no monthly cap (MONTHLY_COST_BUDGET is empty); reporter runs: REPORTER_DAILY_BUDGET $5.00 per repository"
    });
  });

  it("says no container is kept warm at WARM_POOL_SIZE=0, and none with containers off", async () => {
    expect((await costsHealth({ ...deployed, WARM_POOL_SIZE: "0" }, never, { now: NOW })).detail).toMatch(/^no container kept warm \(WARM_POOL_SIZE=0\)/);
    expect((await costsHealth({ ...deployed, CONTAINERS_ENABLED: "" }, never, { now: NOW })).detail).toMatch(/^no warm pool \(containers off\)/);
  });

  it("warns, naming the fix, when WARM_POOL_SIZE does not parse (the pool keeps one warm)", async () => {
    const line = await costsHealth({ ...deployed, WARM_POOL_SIZE: "2" }, never, { now: NOW });
    expect(line).toMatchObject({ status: "warn", fix: "set WARM_POOL_SIZE to 0 or 1" });
    expect(line.detail).toContain('WARM_POOL_SIZE must be 0 (no warm container) or 1 (one kept warm); got "2", so the pool keeps its default of 1');
  });

  it("shows the month's spend against the cap: ok below 80%, a warning from there, a block once reached", async () => {
    const capped = { ...deployed, MONTHLY_COST_BUDGET: "50" };
    const below = await costsHealth(capped, spend(12.5), { now: NOW });
    expect(below).toMatchObject({ status: "ok" });
    expect(below.detail).toContain("2026-12: $12.50 of MONTHLY_COST_BUDGET $50.00");
    expect(await costsHealth(capped, spend(40), { now: NOW })).toMatchObject({ status: "warn", fix: expect.stringContaining("MONTHLY_COST_BUDGET") });
    const reached = await costsHealth(capped, spend(50.2, false), { now: NOW });
    expect(reached).toMatchObject({ status: "block", fix: "raise MONTHLY_COST_BUDGET to start runs again this month" });
    expect(reached.detail).toContain("2026-12: at least $50.20 of MONTHLY_COST_BUDGET $50.00: the budget is reached, so new runs are refused until 2027-01-01");
  });

  it("blocks a budget that does not parse, and a spend that cannot be read while a cap is set", async () => {
    expect(await costsHealth({ ...deployed, MONTHLY_COST_BUDGET: "lots" }, never, { now: NOW })).toMatchObject({
      status: "block",
      detail: expect.stringContaining("MONTHLY_COST_BUDGET must be a positive number of US dollars")
    });
    const unread = await costsHealth({ ...deployed, MONTHLY_COST_BUDGET: "5" }, never, { now: NOW, secrets: ["s3cret"] });
    expect(unread).toMatchObject({ status: "block", fix: expect.stringContaining("CommandCenterAgent") });
    expect(unread.detail).toContain("the test said the command center must not be asked");
    const slow = await costsHealth({ ...deployed, MONTHLY_COST_BUDGET: "5" }, () => new Promise(() => {}), { now: NOW, timeoutMs: 10 });
    expect(slow.status).toBe("block");
  });
});

describe("costsHealth: the reporter tier's day, apart", () => {
  const rows = (...list: RepoReporterSpend[]) => async () => list;
  const row = (repo: string, runs: number, usd: number, complete = true): RepoReporterSpend => ({ repo, runs, cost: { usd, complete } });

  it("shows today's reporter runs and their spend per repository against REPORTER_DAILY_BUDGET, after the month", async () => {
    const line = await costsHealth({ ...deployed, MONTHLY_COST_BUDGET: "50", REPORTER_DAILY_BUDGET: "5" }, spend(12.5), {
      now: NOW,
      reporterSpend: rows(row("acme/widgets", 2, 1, true), row("cloudflare/agents", 1, 0.2, false))
    });
    expect(line).toEqual({
      id: "costs",
      label: "Costs",
      status: "ok",
      detail:
        "warm pool: 1 standard-2 container, about $41.35 a month (Containers' rates of 2026-12-01); 2026-12: $12.50 of MONTHLY_COST_BUDGET $50.00; " +
        "reporter runs today (2026-12-15 UTC) against REPORTER_DAILY_BUDGET $5.00 per repository: 3 runs, at least $1.20 (acme/widgets $1.00 by 2 runs, cloudflare/agents at least $0.20 by 1 run)"
    });
  });

  it("says none when no reporter run ended today, and no cap at 0", async () => {
    expect((await costsHealth(deployed, never, { now: NOW, reporterSpend: rows() })).detail).toMatch(/; reporter runs today \(2026-12-15 UTC\) against REPORTER_DAILY_BUDGET \$5\.00 per repository: none$/);
    const uncapped = await costsHealth({ ...deployed, REPORTER_DAILY_BUDGET: "0" }, never, { now: NOW, reporterSpend: rows(row("acme/widgets", 40, 9)) });
    expect(uncapped).toMatchObject({ status: "ok" });
    expect(uncapped.detail).toMatch(/against no reporter daily cap \(REPORTER_DAILY_BUDGET is 0\): 40 runs, \$9\.00 \(acme\/widgets \$9\.00 by 40 runs\)$/);
  });

  it("warns, naming the repository, once its reporter runs reached the cap (a floor counts): maintainers' runs go on", async () => {
    const line = await costsHealth({ ...deployed, REPORTER_DAILY_BUDGET: "2" }, never, {
      now: NOW,
      reporterSpend: rows(row("acme/widgets", 3, 2.1, false), row("x/y", 1, 1.99))
    });
    expect(line).toMatchObject({ status: "warn", fix: "raise REPORTER_DAILY_BUDGET to take more reporter runs today" });
    expect(line.detail).toContain("reporter runs are refused until 00:00 UTC in acme/widgets (maintainers' runs go on)");
    expect(line.detail).not.toContain("in acme/widgets, x/y");
    // The month's own warning and fix stay, the reporter tier's joins them.
    const both = await costsHealth({ ...deployed, MONTHLY_COST_BUDGET: "50", REPORTER_DAILY_BUDGET: "2" }, spend(45), { now: NOW, reporterSpend: rows(row("acme/widgets", 1, 2)) });
    expect(both.status).toBe("warn");
    expect(both.fix).toMatch(/^new runs are refused once the month's spend reaches \$50\.00: .*; raise REPORTER_DAILY_BUDGET to take more reporter runs today$/);
  });

  it("names only the cap when not given the day's figures, and never lets the reporter tier lift or replace a block", async () => {
    expect((await costsHealth({ ...deployed, REPORTER_DAILY_BUDGET: "7.5" }, never, { now: NOW })).detail).toMatch(/; reporter runs: REPORTER_DAILY_BUDGET \$7\.50 per repository$/);
    const blocked = await costsHealth({ ...deployed, MONTHLY_COST_BUDGET: "5", REPORTER_DAILY_BUDGET: "1" }, spend(6), { now: NOW, reporterSpend: rows(row("acme/widgets", 1, 1)) });
    expect(blocked).toMatchObject({ status: "block", fix: "raise MONTHLY_COST_BUDGET to start runs again this month" });
    expect(blocked.detail).toContain("reporter runs are refused until 00:00 UTC in acme/widgets");
  });

  it("warns on a REPORTER_DAILY_BUDGET that does not parse (every reporter run refused), without asking for the day", async () => {
    const line = await costsHealth({ ...deployed, REPORTER_DAILY_BUDGET: "$5" }, never, { now: NOW, reporterSpend: never as unknown as () => Promise<RepoReporterSpend[]> });
    expect(line).toMatchObject({ status: "warn", fix: "set REPORTER_DAILY_BUDGET to a number of US dollars, such as 5, or 0 for no cap" });
    expect(line.detail).toContain('REPORTER_DAILY_BUDGET must be a number of US dollars, such as 5, or 0 for no cap; got "$5": every reporter-tier run is refused');
  });

  it("warns when the day cannot be read while the cap is set (reporter dispatches fail closed), and only says unknown without a cap", async () => {
    const failing = async (): Promise<RepoReporterSpend[]> => {
      throw new Error("command center down, token s3cret-health-0123456789");
    };
    const line = await costsHealth(deployed, never, { now: NOW, secrets: ["s3cret-health-0123456789"], reporterSpend: failing });
    expect(line).toMatchObject({ status: "warn", fix: "check the CommandCenterAgent binding, or set REPORTER_DAILY_BUDGET to 0" });
    expect(line.detail).toContain("today's reporter spend cannot be read (command center down");
    expect(line.detail).not.toContain("s3cret-health");
    const slow = await costsHealth(deployed, never, { now: NOW, timeoutMs: 10, reporterSpend: () => new Promise(() => {}) });
    expect(slow.status).toBe("warn");
    const uncapped = await costsHealth({ ...deployed, REPORTER_DAILY_BUDGET: "0" }, never, { now: NOW, reporterSpend: failing });
    expect(uncapped).toMatchObject({ status: "ok" });
    expect(uncapped.detail).toContain("reporter runs today: unknown (command center down");
  });

  it("gives no total for a list the metrics cut short", async () => {
    const five = [1, 2, 3, 4, 5].map((n) => row(`o/r${n}`, 1, 6 - n));
    const line = await costsHealth(deployed, never, { now: NOW, reporterSpend: rows(...five) });
    expect(line.detail).toContain("per repository: the 5 repositories that spent most: o/r1 $5.00 by 1 run, o/r2 $4.00 by 1 run");
    expect(line.detail).not.toContain("5 runs");
    expect(line).toMatchObject({ status: "warn" });
    expect(line.detail).toContain("refused until 00:00 UTC in o/r1 (");
  });
});

