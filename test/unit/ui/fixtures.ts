import type { Metrics, ThreadSummary } from "../../../src/shared/command-center";
import type { RunEnvelope } from "../../../src/run/envelope";

export const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

export function thread(overrides: Partial<ThreadSummary> = {}): ThreadSummary {
  return {
    session: "cloudflare-agents-1859",
    repo: "cloudflare/agents",
    issueNumber: 1859,
    issueTitle: "Streams stall after deploy",
    requestedBy: { login: "octocat" },
    instructionSummary: "reproduce this issue",
    status: "done",
    stale: false,
    runCount: 1,
    toolCalls: 4,
    toolErrors: 0,
    submissionId: "sub-1",
    startedAt: NOW - 10 * 60_000,
    lastActivityAt: NOW - 2 * 60_000,
    firstToolMs: 800,
    durationMs: 42_000,
    ...overrides
  };
}

export const metrics: Metrics = {
  runs24h: 12,
  successRate: 0.75,
  durationP50Ms: 42_000,
  durationP95Ms: 180_000,
  firstToolP50Ms: 900,
  firstToolP95Ms: 2_400,
  toolErrorRate: 0.03,
  recovering: 1,
  recoveries24h: 3,
  spendToday: { usd: 1.25, complete: true },
  spend7d: { usd: 8.5, complete: false },
  spendByRepo: [{ repo: "acme/widgets", runs: 9, cost: { usd: 6.1, complete: true } }],
  costliestRuns: []
};

/** A run's envelope as the transcript opens it, ten minutes before NOW. */
export const envelope = (overrides: Partial<RunEnvelope> = {}): RunEnvelope => ({
  repository: "cloudflare/agents",
  issue: { number: 1859, title: "Streams stall", url: "https://github.com/cloudflare/agents/issues/1859" },
  instruction: "reproduce this issue",
  requestedBy: { login: "octocat" },
  session: "cloudflare-agents-1859",
  submittedAt: new Date(NOW - 10 * 60_000).toISOString(),
  ...overrides
});
