/**
 * The model that served a run, from its steps to the thread page: the
 * ledger keeps each step's served model once, in order (src/run/run-ledger.ts,
 * run-budgets.ts); the command center's run record carries it from the
 * `turn-ended` event (registry, snapshot); the thread page reads it and
 * says it on the run's figures and an older run's line (src/ui/view-models).
 */
import { describe, expect, it } from "vitest";
import { memoryLedgerStorage } from "./memory-storage";
import { recordEvent } from "../../src/command-center/registry";
import { threadDetail } from "../../src/command-center/snapshot";
import { RunBudgets } from "../../src/run/run-budgets";
import { RunLedger } from "../../src/run/run-ledger";
import { threadDetailSchema, type RunSummary } from "../../src/shared/command-center";
import { MAX_SERVED_MODELS, turnEndedEventSchema } from "../../src/shared/command-center-events";
import { modelsText, runViews } from "../../src/ui/view-models/runs";
import { threadStatusView } from "../../src/ui/view-models/thread";
import { readRun } from "../../src/ui/view-models/wire";
import { MemoryRegistryStore } from "../command-center/memory-store";
import { NOW, thread } from "./ui/fixtures";


const step = (asked: string, answered?: string) => ({
  usage: { inputTokens: 100, outputTokens: 10 },
  model: { modelId: asked, provider: asked.startsWith("claude") ? "anthropic.messages" : "openai.responses" },
  ...(answered ? { response: { modelId: answered } } : {})
});

describe("the served models of a run", () => {
  it("are kept per step by the provider's answer, each once, in the order they first served", async () => {
    const ledger = new RunLedger(memoryLedgerStorage());
    const budgets = new RunBudgets({ ledger, limits: () => ({ tokens: 0, cost: 0, prices: undefined }), scriptedProvider: "scripted", log: () => {} });
    // A fallback answers under its own name, though the step asked the chain's primary.
    await budgets.stepFinished("s1", step("claude-opus-4-5"));
    await budgets.stepFinished("s1", step("claude-opus-4-5", "gpt-5.5-2026-01-01"));
    await budgets.stepFinished("s1", step("claude-opus-4-5"));
    expect((await ledger.usage("s1"))?.models).toEqual(["claude-opus-4-5", "gpt-5.5-2026-01-01"]);
    expect((await ledger.usage("s1"))?.cost?.usd).toBeGreaterThan(0);
  });

  it("leave out the scripted model's steps, which say they are scripted instead", async () => {
    const ledger = new RunLedger(memoryLedgerStorage());
    const budgets = new RunBudgets({ ledger, limits: () => ({ tokens: 0, cost: 0, prices: undefined }), scriptedProvider: "scripted", log: () => {} });
    await budgets.stepFinished("s1", { usage: { inputTokens: 1, outputTokens: 1 }, model: { modelId: "scripted", provider: "scripted" } });
    expect(await ledger.usage("s1")).toMatchObject({ scripted: true });
    expect((await ledger.usage("s1"))?.models).toBeUndefined();
  });

  it(`keep at most ${MAX_SERVED_MODELS}`, async () => {
    const ledger = new RunLedger(memoryLedgerStorage());
    for (let i = 0; i < MAX_SERVED_MODELS + 2; i++) await ledger.addStep("s1", { inputTokens: 1, outputTokens: 1, model: `gpt-${i}` });
    expect((await ledger.usage("s1"))?.models).toHaveLength(MAX_SERVED_MODELS);
    await ledger.addStep("s2", { inputTokens: 1, outputTokens: 1 });
    expect((await ledger.usage("s2"))?.models).toBeUndefined();
  });

  it("reach the command center's run record with the turn-ended event", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, {
      type: "dispatched",
      session: "acme-widgets-7",
      repo: "acme/widgets",
      issueNumber: 7,
      instruction: "reproduce this issue",
      submissionId: "s1",
      at: NOW
    });
    const ended = turnEndedEventSchema.parse({
      type: "turn-ended",
      session: "acme-widgets-7",
      submissionId: "s1",
      status: "done",
      cost: { usd: 0.42, complete: true },
      models: ["claude-opus-4-5"],
      at: NOW + 100
    });
    recordEvent(store, ended);
    const detail = threadDetail(store, "acme-widgets-7", NOW + 200, 600_000);
    expect(detail?.runs[0]).toMatchObject({ submissionId: "s1", models: ["claude-opus-4-5"], cost: { usd: 0.42, complete: true } });
    expect(threadDetailSchema.parse(detail)).toEqual(detail);
  });

  it("are refused on the wire beyond the bound", () => {
    const models = Array.from({ length: MAX_SERVED_MODELS + 1 }, (_, i) => `gpt-${i}`);
    expect(turnEndedEventSchema.safeParse({ type: "turn-ended", session: "s", submissionId: "s1", status: "done", models, at: 1 }).success).toBe(false);
  });
});

describe("the thread page", () => {
  const base = { submissionId: "s1", status: "done", dispatchedAt: NOW - 60_000, endedAt: NOW - 30_000, toolCalls: 2, cost: { usd: 0.42, complete: true } } as const;

  it("reads the served models, leaving out entries that do not read", () => {
    expect(readRun({ ...base, models: ["gpt-5.5", 3, ""] })?.models).toEqual(["gpt-5.5"]);
    expect(readRun({ ...base, models: "gpt-5.5" })?.models).toBeUndefined();
  });

  it("names the model on the run's figures and an older run's line; a scripted run says it is scripted instead", () => {
    const runs: RunSummary[] = [
      { ...base, submissionId: "s2", models: ["gpt-5.5"], scripted: true },
      { ...base, models: ["claude-opus-4-5", "gpt-5.5"] }
    ];
    const summary = thread({ status: "done", submissionId: "s2", runCount: 2 });
    const header = threadStatusView(summary, { streaming: false, turnError: null, recovering: false, hasMessages: false });
    const [latest, older] = runViews({ items: [], runs, thread: summary, header, now: NOW });
    expect(older).toMatchObject({ model: "claude-opus-4-5 then gpt-5.5" });
    expect(older!.line).toContain("$0.42 · claude-opus-4-5 then gpt-5.5 · 2 tool calls");
    expect(latest!.scripted).toBe(true);
    expect(latest!.line).not.toContain("gpt-5.5");
    expect(modelsText(["gpt-5.4"])).toBe("gpt-5.4");
  });
});
