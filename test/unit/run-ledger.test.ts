/** The run ledger over an in-memory storage: steps add up, facts read back together, forget drops them all. */
import { describe, expect, it } from "vitest";
import { memoryLedgerStorage } from "./memory-storage";
import { RunLedger } from "../../src/run/run-ledger";
import { MAX_PRIVATE_SOURCES } from "../../src/shared/command-center";


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

  it("keeps a run's private sources as a sorted list of hosts, each once, at most MAX_PRIVATE_SOURCES, until forget", async () => {
    const storage = memoryLedgerStorage();
    const ledger = new RunLedger(storage);
    expect(await ledger.recordPrivateSource("s1", "npm.zeta.example")).toEqual({ hosts: ["npm.zeta.example"], first: true });
    expect(await ledger.recordPrivateSource("s1", "maven.acme.example")).toEqual({ hosts: ["maven.acme.example", "npm.zeta.example"], first: true });
    expect(await ledger.recordPrivateSource("s1", "npm.zeta.example")).toEqual({ hosts: ["maven.acme.example", "npm.zeta.example"], first: false });
    // Another run's list is its own.
    expect(await ledger.recordPrivateSource("s2", "npm.zeta.example")).toEqual({ hosts: ["npm.zeta.example"], first: true });
    expect((await ledger.facts("s1")).privateSources).toEqual(["maven.acme.example", "npm.zeta.example"]);
    expect((await ledger.facts("s3")).privateSources).toBeUndefined();

    for (let index = 0; index < MAX_PRIVATE_SOURCES; index++) await ledger.recordPrivateSource("s1", `r${String(index).padStart(2, "0")}.acme.example`);
    const full = (await ledger.facts("s1")).privateSources!;
    expect(full).toHaveLength(MAX_PRIVATE_SOURCES);
    expect(full).toEqual([...full].sort());
    expect(full.slice(0, 2)).toEqual(["maven.acme.example", "npm.zeta.example"]);
    // A full list takes no more.
    expect(await ledger.recordPrivateSource("s1", "aaa.acme.example")).toEqual({ hosts: full, first: false });

    await ledger.forget("s1");
    expect((await ledger.facts("s1")).privateSources).toBeUndefined();
    expect([...storage.map.keys()]).toEqual(["agent-think:private-sources:s2"]);
  });
});
