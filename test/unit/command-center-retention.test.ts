/** RetentionSweep: the registry and the monthly ledger pruned at most once an hour, with the cut-offs each keeps. */
import { describe, expect, it } from "vitest";
import { PRUNE_INTERVAL_MS, RetentionSweep, RUN_RETENTION_MS, TOOL_CALL_RETENTION_MS } from "../../src/command-center/retention";
import { METRICS_WINDOW_MS, SPEND_WINDOW_MS } from "../../src/command-center/metrics";

describe("RetentionSweep", () => {
  it("prunes on its first sweep, not again within the hour, and again after it", () => {
    const registry: Array<[number, number]> = [];
    const ledger: number[] = [];
    const sweep = new RetentionSweep({
      registry: () => ({ prune: (runsBefore, toolCallsBefore) => void registry.push([runsBefore, toolCallsBefore]) }),
      ledger: () => ({ prune: (now) => void ledger.push(now) })
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
  });

  it("keeps runs a week and a day, tool calls 25 hours", () => {
    expect(RUN_RETENTION_MS).toBe(SPEND_WINDOW_MS + METRICS_WINDOW_MS);
    expect(TOOL_CALL_RETENTION_MS).toBe(25 * 60 * 60 * 1000);
  });
});
