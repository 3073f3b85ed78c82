/** RetentionSweep: the registry, the monthly ledger and the repositories' records pruned at most once an hour, with the cut-offs each keeps. */
import { describe, expect, it } from "vitest";
import { PRUNE_INTERVAL_MS, RetentionSweep, RUN_RETENTION_MS, TOOL_CALL_RETENTION_MS } from "../../src/command-center/retention";
import { METRICS_WINDOW_MS, SPEND_WINDOW_MS } from "../../src/command-center/metrics";
import { REPOSITORY_RECORD_MS } from "../../src/command-center/repository-figures";

describe("RetentionSweep", () => {
  it("prunes on its first sweep, not again within the hour, and again after it", () => {
    const registry: Array<[number, number]> = [];
    const ledger: number[] = [];
    const repositories: number[] = [];
    const sweep = new RetentionSweep({
      registry: () => ({ prune: (runsBefore, toolCallsBefore) => void registry.push([runsBefore, toolCallsBefore]) }),
      ledger: () => ({ prune: (now) => void ledger.push(now) }),
      repositories: () => ({ prune: (before) => void repositories.push(before) })
    });
    const t0 = 10 * SPEND_WINDOW_MS;
    expect(sweep.sweep(t0)).toBe(true);
    expect(sweep.sweep(t0 + PRUNE_INTERVAL_MS)).toBe(false);
    expect(sweep.sweep(t0 + PRUNE_INTERVAL_MS + 1)).toBe(true);
    expect(registry).toEqual([
      [t0 - RUN_RETENTION_MS, t0 - TOOL_CALL_RETENTION_MS],
      [t0 + PRUNE_INTERVAL_MS + 1 - RUN_RETENTION_MS, t0 + PRUNE_INTERVAL_MS + 1 - TOOL_CALL_RETENTION_MS]
    ]);
    expect(ledger).toEqual([t0, t0 + PRUNE_INTERVAL_MS + 1]);
    expect(repositories).toEqual([t0 - REPOSITORY_RECORD_MS, t0 + PRUNE_INTERVAL_MS + 1 - REPOSITORY_RECORD_MS]);
  });

  it("keeps runs a week and a day, tool calls 25 hours, each repository's record 90 days", () => {
    expect(RUN_RETENTION_MS).toBe(SPEND_WINDOW_MS + METRICS_WINDOW_MS);
    expect(TOOL_CALL_RETENTION_MS).toBe(25 * 60 * 60 * 1000);
    expect(REPOSITORY_RECORD_MS).toBe(90 * 24 * 60 * 60 * 1000);
  });
});
