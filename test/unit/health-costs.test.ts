import { describe, expect, it } from "vitest";
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
      detail: "warm pool: 1 standard-2 container, about $41.35 a month (Containers' rates of 2026-12-01); no monthly cap (MONTHLY_COST_BUDGET is empty)"
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
