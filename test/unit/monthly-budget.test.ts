import { describe, expect, it } from "vitest";
import {
  budgetNoticeKey,
  budgetReached,
  isMonthlyBudgetRefusal,
  monthOf,
  MonthlyBudgetReachedError,
  nextMonthStart,
  parseMonthlyBudget
} from "../../src/shared/monthly-budget";

describe("parseMonthlyBudget", () => {
  it("reads empty as no cap and a positive number of dollars as the cap", () => {
    expect(parseMonthlyBudget("")).toEqual({ kind: "none" });
    expect(parseMonthlyBudget(undefined)).toEqual({ kind: "none" });
    expect(parseMonthlyBudget(" 100 ")).toEqual({ kind: "cap", usd: 100 });
    expect(parseMonthlyBudget("12.5")).toEqual({ kind: "cap", usd: 12.5 });
  });

  it("refuses zero, negatives and anything but a plain number, naming the variable", () => {
    for (const bad of ["0", "0.00", "-5", "$5", "5 USD", "1e3", "Infinity", "ten"]) {
      const parsed = parseMonthlyBudget(bad);
      expect(parsed.kind, bad).toBe("invalid");
      expect(parsed.kind === "invalid" && parsed.error).toBe(
        `MONTHLY_COST_BUDGET must be a positive number of US dollars, such as 100, or empty for no cap; got ${JSON.stringify(bad)}`
      );
    }
  });
});

describe("the month", () => {
  it("is the calendar month in UTC, and the next one starts at its first midnight", () => {
    expect(monthOf(Date.UTC(2026, 11, 31, 23, 59, 59))).toBe("2026-12");
    expect(monthOf(Date.UTC(2027, 0, 1))).toBe("2027-01");
    expect(nextMonthStart(Date.UTC(2026, 11, 31, 23))).toBe(Date.UTC(2027, 0, 1));
    expect(nextMonthStart(Date.UTC(2026, 1, 1))).toBe(Date.UTC(2026, 2, 1));
  });
});

describe("budgetReached", () => {
  const spend = (usd: number, complete = true) => ({ month: "2026-12", spent: { usd, complete } });
  it("is reached at the cap, a floor included, and never without one", () => {
    const cap = { kind: "cap" as const, usd: 10 };
    expect(budgetReached(cap, spend(9.99))).toBe(false);
    expect(budgetReached(cap, spend(10))).toBe(true);
    expect(budgetReached(cap, spend(12, false))).toBe(true);
    expect(budgetReached({ kind: "none" }, spend(1e9))).toBe(false);
  });
});

describe("the refusal", () => {
  const at = Date.UTC(2026, 11, 15);
  it("says what was spent of which cap, in which month, and when runs start again", () => {
    const error = new MonthlyBudgetReachedError(10, { month: "2026-12", spent: { usd: 10.4, complete: false } }, at);
    expect(error.message).toBe(
      "monthly cost budget reached: at least $10.40 of MONTHLY_COST_BUDGET $10.00 spent in 2026-12 (UTC), so agent-think starts no new runs until 2027-01-01 00:00 UTC or until the budget is raised; runs already going finish"
    );
    expect(error.code).toBe("monthly_budget_reached");
  });

  it("is recognised by its message, as it arrives after crossing RPC (a plain Error)", () => {
    const crossed = new Error(new MonthlyBudgetReachedError(1, { month: "2026-12", spent: { usd: 1, complete: true } }, at).message);
    expect(isMonthlyBudgetRefusal(crossed)).toBe(true);
    // A service binding may put the class name before the message.
    expect(isMonthlyBudgetRefusal(new Error(`MonthlyBudgetReachedError: ${crossed.message}`))).toBe(true);
    expect(isMonthlyBudgetRefusal(new Error("invalid input: repo: must be owner/name"))).toBe(false);
    expect(isMonthlyBudgetRefusal(undefined)).toBe(false);
  });

  it("is told once per issue per month: the notice key", () => {
    expect(budgetNoticeKey("Acme/Widgets", 7, at)).toBe("2026-12:acme/widgets#7");
    expect(budgetNoticeKey("acme/widgets", 7, Date.UTC(2027, 0, 2))).toBe("2027-01:acme/widgets#7");
  });
});
