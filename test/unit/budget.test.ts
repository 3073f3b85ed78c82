/** The budgets: parsing MAX_STEPS and RUN_TOKEN_BUDGET, the token budget's stop condition, and what a step counts against it. */
import { describe, expect, it } from "vitest";
import { budgetTokens, DEFAULT_MAX_STEPS, DEFAULT_RUN_TOKEN_BUDGET, parseMaxSteps, parseTokenBudget, tokenBudgetStop } from "../../src/run/budget";
import { DEFAULT_PRICES, priceTable } from "../../src/shared/pricing";

const step = (input: number, output: number) => ({ usage: { inputTokens: input, outputTokens: output } });
const cachedStep = (modelId: string, input: number, cacheRead: number, output = 0) => ({
  usage: { inputTokens: input, outputTokens: output, inputTokenDetails: { cacheReadTokens: cacheRead } },
  model: { modelId }
});

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
    const stop = tokenBudgetStop({ budget: 100, usedBefore: 40, prices: DEFAULT_PRICES, onHit: async (hit) => void hits.push(hit) });
    const run = (steps: ReturnType<typeof step>[]) => stop({ steps } as never);
    expect(await run([step(30, 10)])).toBe(false);
    expect(hits).toEqual([]);
    expect(await run([step(30, 10), step(15, 5)])).toBe(true);
    expect(hits).toEqual([{ used: 100, budget: 100 }]);
  });

  it("counts cache-read input at the served model's cachedInput / input price, every other token in full", () => {
    // gpt-5.5: $0.50 cached against $5 input, a tenth.
    expect(budgetTokens(DEFAULT_PRICES, cachedStep("gpt-5.5", 100_000, 90_000, 2_000))).toBe(10_000 + 9_000 + 2_000);
    // claude-opus-5-5: $0.20 against $4, a twentieth; the provider's own answer names the model served.
    const fallback = { ...cachedStep("gpt-5.5", 100_000, 80_000), response: { modelId: "claude-opus-5-5-20270101" } };
    expect(budgetTokens(DEFAULT_PRICES, fallback)).toBe(20_000 + 4_000);
    // Nothing read from cache: every token, as before.
    expect(budgetTokens(DEFAULT_PRICES, cachedStep("gpt-5.5", 5_000, 0, 100))).toBe(5_100);
    expect(budgetTokens(DEFAULT_PRICES, step(5_000, 100))).toBe(5_100);
  });

  it("counts cached input in full for a model with no price or no input price, never undercounting the unknown", () => {
    expect(budgetTokens(DEFAULT_PRICES, cachedStep("mystery-model", 100_000, 90_000))).toBe(100_000);
    expect(budgetTokens({}, cachedStep("gpt-5.5", 100_000, 90_000))).toBe(100_000);
    const free = priceTable('{"free-model": {"input": 0, "cachedInput": 0, "output": 0}}');
    expect(budgetTokens(free, cachedStep("free-model", 100_000, 90_000))).toBe(100_000);
  });

  it("rounds a step's weighed cache up and never counts more cached tokens than its input", () => {
    expect(budgetTokens(DEFAULT_PRICES, cachedStep("gpt-5.5", 15, 15))).toBe(2);
    expect(budgetTokens(DEFAULT_PRICES, cachedStep("gpt-5.5", 10, 50))).toBe(1);
  });

  it("lets a warm-cache run go on as long as its cost says, weighing the steps with the price table", async () => {
    const hits: unknown[] = [];
    const stop = tokenBudgetStop({ budget: 100_000, usedBefore: 0, prices: DEFAULT_PRICES, onHit: async (hit) => void hits.push(hit) });
    // Each step: 50k input of which 45k cached, and 400 output: 5k + 4.5k + 400 counted, not 50.4k.
    const steps = Array.from({ length: 10 }, () => cachedStep("gpt-5.5", 50_000, 45_000, 400));
    expect(await stop({ steps } as never)).toBe(false);
    expect(await stop({ steps: [...steps, cachedStep("gpt-5.5", 50_000, 45_000, 400)] } as never)).toBe(true);
    expect(hits).toEqual([{ used: 108_900, budget: 100_000 }]);
  });
});
