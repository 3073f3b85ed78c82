import { describe, expect, it } from "vitest";
import { waitUntilHealthy } from "../../src/pool/health";

const policy = { budgetMs: 100, probeTimeoutMs: 10, pollInitialMs: 10, pollMaxMs: 40 };

describe("waitUntilHealthy", () => {
  it("returns at the first healthy answer", async () => {
    const answers = [false, false, true];
    const sleeps: number[] = [];
    const result = await waitUntilHealthy(async () => answers.shift()!, async (ms) => void sleeps.push(ms), policy);
    expect(result).toEqual({ healthy: true, waitedMs: 30, probes: 3 });
    expect(sleeps).toEqual([10, 20]);
  });

  it("treats a throwing probe as unhealthy and gives up at the budget", async () => {
    const sleeps: number[] = [];
    const result = await waitUntilHealthy(
      async () => {
        throw new Error("connection refused");
      },
      async (ms) => void sleeps.push(ms),
      policy
    );
    expect(result).toEqual({ healthy: false, waitedMs: 100, probes: 5, lastError: "connection refused" });
    expect(sleeps).toEqual([10, 20, 40, 30]);
  });
});
