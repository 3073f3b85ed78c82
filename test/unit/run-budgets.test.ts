/**
 * RunBudgets (src/run/run-budgets.ts): each finished step is kept with its
 * price and whether the scripted model ran it; a turn gets the stop
 * conditions of the budgets that are set, counting earlier attempts (the
 * token budget as it weighed them, cached input at its price); a
 * malformed MODEL_PRICES prices nothing, so costs show as unknown.
 */
import { describe, expect, it } from "vitest";
import { memoryLedgerStorage } from "./memory-storage";
import { RunBudgets, type BudgetLimits } from "../../src/run/run-budgets";
import { RunLedger } from "../../src/run/run-ledger";


function setup(limits: BudgetLimits) {
  const ledger = new RunLedger(memoryLedgerStorage());
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

  it("counts a recovered turn's earlier steps as the token budget weighed them: cached input at its price", async () => {
    const { ledger, budgets } = setup({ tokens: 1_000_000, cost: 0, prices: undefined });
    // 900k of 1M input read from cache, at gpt-5.5's tenth: 100k + 90k counted.
    const cached = { usage: { inputTokens: 1_000_000, outputTokens: 0, inputTokenDetails: { cacheReadTokens: 900_000 } }, model: { provider: "openai", modelId: "gpt-5.5" } };
    await budgets.stepFinished("s1", { ...cached, finishReason: "tool-calls" });
    expect(await ledger.usage("s1")).toMatchObject({ input: 1_000_000, budgetTokens: 190_000 });
    const [stop] = await budgets.stops("s1");
    const run = (steps: unknown[]) => stop!({ steps } as never);
    expect(await run([cached, cached, cached, cached])).toBe(false);
    expect(await run([cached, cached, cached, cached, cached])).toBe(true);
    expect(await ledger.facts("s1")).toMatchObject({ budgetHit: { used: 1_140_000, budget: 1_000_000 } });
  });

  it("counts every token of usage kept before the weighed count existed", async () => {
    const storage = memoryLedgerStorage();
    await storage.put("agent-think:usage:s1", { input: 900, output: 100, steps: 3, cost: { usd: 0, complete: true } });
    const ledger = new RunLedger(storage);
    const budgets = new RunBudgets({ ledger, limits: () => ({ tokens: 1_500, cost: 0, prices: undefined }), scriptedProvider: "agent-think.scripted", log: () => {} });
    const [stop] = await budgets.stops("s1");
    expect(await stop!({ steps: [{ usage: { inputTokens: 499, outputTokens: 0 }, model: { modelId: "gpt-5.5" } }] } as never)).toBe(false);
    expect(await stop!({ steps: [{ usage: { inputTokens: 500, outputTokens: 0 }, model: { modelId: "gpt-5.5" } }] } as never)).toBe(true);
  });

  it("prices nothing with a malformed MODEL_PRICES, and says so in the log", async () => {
    const { ledger, budgets, events } = setup({ tokens: 0, cost: 0, prices: "{broken" });
    await budgets.stepFinished("s1", step("openai", "gpt-5.5"));
    expect((await ledger.usage("s1"))?.cost).toEqual({ usd: 0, complete: false });
    expect(events).toEqual(["pricing:invalid"]);
  });
});
