/** The budgets: parsing MAX_STEPS and RUN_TOKEN_BUDGET, and the token budget's stop condition. */
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_STEPS, DEFAULT_RUN_TOKEN_BUDGET, parseMaxSteps, parseTokenBudget, tokenBudgetStop } from "../../src/run/budget";

const step = (input: number, output: number) => ({ usage: { inputTokens: input, outputTokens: output } });

describe("budgets", () => {
  it("parse, with defaults for missing or bad values and 0 for no token budget", () => {
    expect(parseMaxSteps("12")).toBe(12);
    expect(parseMaxSteps("nope")).toBe(DEFAULT_MAX_STEPS);
    expect(parseMaxSteps("0")).toBe(DEFAULT_MAX_STEPS);
    expect(parseTokenBudget(" 0 ")).toBe(0);
    expect(parseTokenBudget("5000")).toBe(5_000);
    expect(parseTokenBudget(undefined)).toBe(DEFAULT_RUN_TOKEN_BUDGET);
  });

  it("stop the loop once earlier and current tokens reach the budget, recording the hit", async () => {
    const hits: unknown[] = [];
    const stop = tokenBudgetStop({ budget: 100, usedBefore: 40, onHit: async (hit) => void hits.push(hit) });
    const run = (steps: ReturnType<typeof step>[]) => stop({ steps } as never);
    expect(await run([step(30, 10)])).toBe(false);
    expect(hits).toEqual([]);
    expect(await run([step(30, 10), step(15, 5)])).toBe(true);
    expect(hits).toEqual([{ used: 100, budget: 100 }]);
  });
});
