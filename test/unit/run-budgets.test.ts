/**
 * RunBudgets (src/run/run-budgets.ts): each finished step is kept with its
 * price and whether the scripted model ran it; a turn gets the stop
 * conditions of the budgets that are set, counting earlier attempts; a
 * malformed MODEL_PRICES prices nothing, so costs show as unknown.
 */
import { describe, expect, it } from "vitest";
import { RunBudgets, type BudgetLimits } from "../../src/run/run-budgets";
import { RunLedger } from "../../src/run/run-ledger";

function memoryStorage() {
  const map = new Map<string, unknown>();
  return {
    map,
    async get<T>(key: string | string[]): Promise<never> {
      if (Array.isArray(key)) return new Map(key.filter((k) => map.has(k)).map((k) => [k, map.get(k)])) as never;
      return map.get(key) as T as never;
    },
    async put<T>(key: string, value: T) {
      map.set(key, value);
    },
    async delete(keys: string[]) {
      let n = 0;
      for (const key of keys) if (map.delete(key)) n++;
      return n;
    }
  };
}

function setup(limits: BudgetLimits) {
  const ledger = new RunLedger(memoryStorage());
  const events: string[] = [];
  const budgets = new RunBudgets({ ledger, limits: () => limits, scriptedProvider: "agent-think.scripted", log: (event) => events.push(event) });
  return { ledger, budgets, events };
}

const step = (provider: string, modelId: string, input = 1_000_000) => ({ usage: { inputTokens: input, outputTokens: 0 }, model: { provider, modelId }, finishReason: "stop" });

describe("RunBudgets", () => {
  it("keeps each step's price and marks a scripted one", async () => {
    const { ledger, budgets } = setup({ tokens: 0, cost: 0, prices: undefined });
    await budgets.stepFinished("s1", step("openai", "gpt-5.5"));
    await budgets.stepFinished("s1", step("agent-think.scripted", "scripted"));
    expect(await ledger.usage("s1")).toMatchObject({ steps: 2, cost: { usd: 5, complete: true }, scripted: true });
  });

  it("gives a turn only the budgets that are set", async () => {
    expect(await setup({ tokens: 0, cost: 0, prices: undefined }).budgets.stops("s1")).toHaveLength(0);
    expect(await setup({ tokens: 10, cost: 0, prices: undefined }).budgets.stops("s1")).toHaveLength(1);
    expect(await setup({ tokens: 10, cost: 1, prices: undefined }).budgets.stops("s1")).toHaveLength(2);
  });

  it("prices nothing with a malformed MODEL_PRICES, and says so in the log", async () => {
    const { ledger, budgets, events } = setup({ tokens: 0, cost: 0, prices: "{broken" });
    await budgets.stepFinished("s1", step("openai", "gpt-5.5"));
    expect((await ledger.usage("s1"))?.cost).toEqual({ usd: 0, complete: false });
    expect(events).toEqual(["pricing:invalid"]);
  });
});
