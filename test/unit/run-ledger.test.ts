/** The run ledger over an in-memory storage: steps add up, facts read back together, forget drops them all. */
import { describe, expect, it } from "vitest";
import { memoryLedgerStorage } from "./memory-storage";
import { RunLedger } from "../../src/run/run-ledger";


describe("RunLedger", () => {
  it("sums steps and keeps each fact of a submission apart from another's", async () => {
    const storage = memoryLedgerStorage();
    const ledger = new RunLedger(storage);
    await ledger.addStep("s1", { inputTokens: 10, outputTokens: 2, finishReason: "tool-calls" });
    await ledger.addStep("s1", { inputTokens: 5, finishReason: "stop" });
    await ledger.recordResult("s1", { outcome: "no-pr", summary: "x" });
    await ledger.recordBudgetHit("s1", { used: 17, budget: 10 });
    await ledger.recordCancel("s2", "stopped by @a");
    await ledger.touch("s1", 1_234);
    expect(await ledger.facts("s1")).toEqual({
      // The second step's output went unreported: its cost is unknown, so the run's is a floor.
      // Given no weighed count, a step counts every token against the token budget.
      usage: { input: 15, output: 2, budgetTokens: 17, steps: 2, lastFinishReason: "stop", cost: { usd: 0, complete: false } },
      result: { outcome: "no-pr", summary: "x" },
      budgetHit: { used: 17, budget: 10 },
      cancelReason: undefined,
      reproductionUrl: undefined,
      setupFailure: undefined,
      toolCalls: undefined
    });
    expect(await ledger.lastActivity("s1")).toBe(1_234);
    await ledger.forget("s1");
    expect([...storage.map.keys()]).toEqual(["agent-think:cancel:s2"]);
  });
});
