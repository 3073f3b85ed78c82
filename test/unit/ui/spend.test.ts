import { describe, expect, it } from "vitest";
import { EMPTY_METRICS } from "../../../src/shared/empty-metrics";
import { spendTiles, spendView } from "../../../src/ui/view-models/spend";
import { readMetrics, readRun, readThread, readThreadDetail } from "../../../src/ui/view-models/wire";
import type { Metrics } from "../../../src/shared/command-center";
import { metrics as base, NOW, thread } from "./fixtures";

const metrics: Metrics = {
  ...base,
  spendToday: { usd: 0.42, complete: true },
  spend7d: { usd: 12.5, complete: false },
  spendByRepo: [
    { repo: "cloudflare/agents", runs: 9, cost: { usd: 10.25, complete: true } },
    { repo: "acme/widgets", runs: 3, cost: { usd: 0, complete: false } }
  ],
  costliestRuns: [
    { session: "cloudflare-agents-1859", repo: "cloudflare/agents", issueNumber: 1859, submissionId: "sub-1", endedAt: NOW - 3_600_000, cost: { usd: 4.2, complete: true } }
  ]
};

describe("spendTiles", () => {
  it("shows spend today and over 7 days, a floor as at least, with why", () => {
    expect(spendTiles(metrics)).toEqual([
      { id: "spend-today", label: "Spend today", value: "$0.42", detail: "since 00:00 UTC", tone: "neutral" },
      {
        id: "spend-7d",
        label: "Spend (7 days)",
        value: "≥ $12.50",
        detail: "runs ended in 7 days · at least",
        tone: "neutral",
        title: "some usage was not reported or not priced"
      }
    ]);
  });

  it("reads $0.00 when nothing ran, unknown when nothing was priced, and a dash before metrics arrive", () => {
    expect(spendTiles(EMPTY_METRICS).map((tile) => tile.value)).toEqual(["$0.00", "$0.00"]);
    expect(spendTiles({ ...metrics, spendToday: { usd: 0, complete: false } })[0]).toMatchObject({ value: "unknown", title: expect.any(String) });
    expect(spendTiles(null).map((tile) => tile.value)).toEqual(["—", "—"]);
  });
});

describe("spendView", () => {
  it("lists the 7 days per repository and the most expensive runs, each linking its thread", () => {
    expect(spendView(metrics, NOW)).toEqual({
      byRepo: [
        { repo: "cloudflare/agents", runs: "9 runs", cost: { text: "$10.25", kind: "complete" } },
        { repo: "acme/widgets", runs: "3 runs", cost: { text: "unknown", title: "no usage was reported or priced", kind: "unknown" } }
      ],
      costliest: [
        {
          key: "cloudflare-agents-1859:sub-1",
          href: "/thread/cloudflare-agents-1859",
          label: "cloudflare/agents #1859",
          cost: { text: "$4.20", kind: "complete" },
          when: "1 h ago",
          whenTitle: "ended 2026-11-29 11:00:00 UTC"
        }
      ]
    });
    expect(spendView(null, NOW)).toEqual({ byRepo: [], costliest: [] });
  });
});

describe("cost on the wire", () => {
  it("reads spend as unknown from a server that does not send it, and drops rows that do not read", () => {
    const { spendToday: _today, spend7d: _week, spendByRepo: _repos, costliestRuns: _runs, ...older } = metrics;
    expect(readMetrics(older)).toMatchObject({ spendToday: { usd: 0, complete: false }, spend7d: { usd: 0, complete: false }, spendByRepo: [], costliestRuns: [] });
    const read = readMetrics({ ...metrics, spendByRepo: [...metrics.spendByRepo, { repo: "x/y", runs: 1, cost: { usd: -1, complete: true } }], costliestRuns: [{ session: "s" }] });
    expect(read?.spendByRepo).toHaveLength(2);
    expect(read?.costliestRuns).toEqual([]);
  });

  it("reads a thread's cost, who continued it and its failures, leaving out what does not read", () => {
    const full = thread({ cost: { usd: 1, complete: true }, continuedBy: "ops@example.com", failures: 2 });
    expect(readThread(full)).toEqual(full);
    const read = readThread({ ...thread(), cost: { usd: "1" }, continuedBy: 5, failures: 0 });
    expect(read).toEqual(thread());
  });

  it("reads a thread's detail, dropping runs that do not read and extras that do not", () => {
    const detail = readThreadDetail({
      thread: thread(),
      runs: [
        { submissionId: "sub-2", status: "queued", toolCalls: 0, scripted: "yes", cost: null },
        { submissionId: "sub-1", status: "done", toolCalls: 4, cost: { usd: 0.1, complete: true }, continuedBy: "local operator", scripted: true },
        { submissionId: "sub-0", status: "paused", toolCalls: 1 }
      ]
    });
    expect(detail).toEqual({
      ok: true,
      value: {
        thread: thread(),
        runs: [
          { submissionId: "sub-2", status: "queued", toolCalls: 0 },
          { submissionId: "sub-1", status: "done", toolCalls: 4, cost: { usd: 0.1, complete: true }, continuedBy: "local operator", scripted: true }
        ]
      },
      dropped: 1
    });
    expect(readThreadDetail({ runs: [] })).toMatchObject({ ok: false, reason: "no readable thread" });
    expect(readThreadDetail({ thread: thread() })).toMatchObject({ ok: false, reason: "no run list" });
    expect(readRun({ submissionId: "s", status: "done" })).toBeNull();
    // The outcome it reported and its page come through; an outcome nobody knows does not.
    expect(readRun({ submissionId: "s", status: "done", toolCalls: 1, outcome: "reproduced", reproductionUrl: "https://bot.example/repro/ab/" })).toEqual({
      submissionId: "s",
      status: "done",
      toolCalls: 1,
      outcome: "reproduced",
      reproductionUrl: "https://bot.example/repro/ab/"
    });
    expect(readRun({ submissionId: "s", status: "done", toolCalls: 1, outcome: "<b>pwned</b>" })).toEqual({ submissionId: "s", status: "done", toolCalls: 1 });
  });
});
