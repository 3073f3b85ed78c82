/**
 * The price table and what usage costs (src/shared/pricing.ts), and the
 * money budget's stop condition (src/run/budget.ts): cached tokens at their
 * own price, unknown usage or an unpriced model never counted as zero,
 * configuration over the defaults with errors that name the entry.
 */
import { describe, expect, it } from "vitest";
import { costBudgetStop, parseCostBudget, priceStep, DEFAULT_RUN_COST_BUDGET } from "../../src/run/budget";
import { addCost, DEFAULT_PRICES, formatCost, priceOf, priceTable, stepCost } from "../../src/shared/pricing";
import type { BudgetHit } from "../../src/run/run-ledger";

describe("the price table", () => {
  it("has a documented price for the configured models, and the scripted model costs nothing", () => {
    expect(priceOf(DEFAULT_PRICES, "gpt-5.5")).toEqual({ input: 5, cachedInput: 0.5, output: 30 });
    expect(priceOf(DEFAULT_PRICES, "claude-opus-4-5")).toMatchObject({ input: 5, cachedInput: 0.5, output: 25 });
    expect(priceOf(DEFAULT_PRICES, "scripted")).toEqual({ input: 0, cachedInput: 0, output: 0 });
  });

  it("finds a dated model id by the longest entry it starts with, and nothing for an unknown one", () => {
    expect(priceOf(DEFAULT_PRICES, "claude-opus-4-5-20251101")).toBe(DEFAULT_PRICES["claude-opus-4-5"]);
    expect(priceOf(DEFAULT_PRICES, "claude-opus-5-5-20260901")).toBe(DEFAULT_PRICES["claude-opus-5-5"]);
    expect(priceOf(DEFAULT_PRICES, "gpt-5.55")).toBeNull();
    expect(priceOf(DEFAULT_PRICES, "some-other-model")).toBeNull();
  });

  it("takes MODEL_PRICES over the defaults, and says which entry is wrong", () => {
    const table = priceTable('{"gpt-5.5": {"input": 1, "cachedInput": 0.1, "output": 2}, "my-model": {"input": 3, "cachedInput": 0, "output": 4, "cacheWrite": 3.75}}');
    expect(table["gpt-5.5"]).toEqual({ input: 1, cachedInput: 0.1, output: 2 });
    expect(table["my-model"]).toEqual({ input: 3, cachedInput: 0, output: 4, cacheWrite: 3.75 });
    expect(table["claude-opus-4-5"]).toBe(DEFAULT_PRICES["claude-opus-4-5"]);
    expect(priceTable("")).toBe(DEFAULT_PRICES);
    expect(() => priceTable("{not json")).toThrow(/MODEL_PRICES must be JSON/);
    expect(() => priceTable("[1]")).toThrow("MODEL_PRICES must be a JSON object keyed by model id");
    expect(() => priceTable('{"x": {"input": 1, "output": 2}}')).toThrow("MODEL_PRICES.x.cachedInput must be a price in US dollars per million tokens");
    expect(() => priceTable('{"x": {"input": -1, "cachedInput": 0, "output": 2}}')).toThrow("MODEL_PRICES.x.input must be");
  });
});

describe("what a step costs", () => {
  it("prices fresh input, cached input, cache writes and output each at their own rate", () => {
    // 1M input of which 400k read from the cache and 100k written to it, and 10k output, on claude-opus-4-5.
    const cost = stepCost(DEFAULT_PRICES, "claude-opus-4-5", { inputTokens: 1_000_000, cacheReadTokens: 400_000, cacheWriteTokens: 100_000, outputTokens: 10_000 });
    expect(cost.complete).toBe(true);
    expect(cost.usd).toBeCloseTo(0.5 * 5 + 0.4 * 0.5 + 0.1 * 6.25 + 0.01 * 25, 10);
    // Without a cache-write price, writes cost the input price.
    expect(stepCost(DEFAULT_PRICES, "gpt-5.5", { inputTokens: 1_000, cacheWriteTokens: 1_000, outputTokens: 0 }).usd).toBeCloseTo(0.005, 10);
  });

  it("is unknown, not zero, when the provider reported no usage or the model has no price", () => {
    expect(stepCost(DEFAULT_PRICES, "gpt-5.5", { outputTokens: 10 })).toEqual({ usd: 0, complete: false });
    expect(stepCost(DEFAULT_PRICES, "gpt-5.5", { inputTokens: 10 })).toEqual({ usd: 0, complete: false });
    expect(stepCost(DEFAULT_PRICES, "mystery", { inputTokens: 10, outputTokens: 10 })).toEqual({ usd: 0, complete: false });
    expect(addCost({ usd: 1, complete: true }, { usd: 0, complete: false })).toEqual({ usd: 1, complete: false });
  });

  it("reads the served model from the provider's answer first (a fallback names its own)", () => {
    const step = {
      usage: { inputTokens: 1_000_000, outputTokens: 0, inputTokenDetails: { cacheReadTokens: 0 } },
      model: { modelId: "gpt-5.5", provider: "fallback" },
      response: { modelId: "claude-opus-4-5-20251101" }
    };
    expect(priceStep(DEFAULT_PRICES, step)).toEqual({ usd: 5, complete: true });
  });

  it.each([
    [{ usd: 0.4237, complete: true }, "$0.42"],
    [{ usd: 0, complete: true }, "$0.00"],
    [{ usd: 0.001, complete: true }, "<$0.01"],
    [{ usd: 1.5, complete: false }, "≥ $1.50"],
    [{ usd: 0, complete: false }, "unknown"],
    [undefined, "unknown"]
  ])("shows %j as %s", (cost, shown) => {
    expect(formatCost(cost)).toBe(shown);
  });
});

describe("the money budget", () => {
  it("is RUN_COST_BUDGET dollars, 0 for none, the default when unset or bad", () => {
    expect(parseCostBudget("2.5")).toBe(2.5);
    expect(parseCostBudget("0")).toBe(0);
    expect(parseCostBudget(undefined)).toBe(DEFAULT_RUN_COST_BUDGET);
    expect(parseCostBudget("-3")).toBe(DEFAULT_RUN_COST_BUDGET);
    expect(parseCostBudget("a lot")).toBe(DEFAULT_RUN_COST_BUDGET);
  });

  it("stops the loop once what was spent before and this turn's steps reach it, and records the hit", async () => {
    const hits: BudgetHit[] = [];
    const stop = costBudgetStop({ budget: 1, spentBefore: { usd: 0.6, complete: true }, prices: DEFAULT_PRICES, onHit: async (hit) => void hits.push(hit) });
    const step = (input: number) => ({ usage: { inputTokens: input, outputTokens: 0 }, model: { modelId: "gpt-5.5" } });
    // 50k input on gpt-5.5 is $0.25: 0.85 spent, under the budget.
    expect(await stop({ steps: [step(50_000)] } as never)).toBe(false);
    expect(await stop({ steps: [step(50_000), step(30_000)] } as never)).toBe(true);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ kind: "cost", budget: 1 });
    expect(hits[0]!.used).toBeCloseTo(1, 10);
  });
});
