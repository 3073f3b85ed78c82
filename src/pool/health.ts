/**
 * Waiting for computerd to answer its health check after a warm start, so
 * the warm pool's "ready" means a daemon that answers, not just a process
 * that was started. A container that never turns healthy makes the warm
 * fail, and the pool retries it (pool-book.ts). Pure: the probe and time are
 * injected; the Sandbox probes `HEAD /health` through its container host.
 */
import { describeError } from "./errors";
import type { Sleep } from "./reconcile";

export type HealthPolicy = {
  /** Longest wait (sum of pauses) for the first healthy answer. */
  budgetMs: number;
  /** Longest a single probe may take. */
  probeTimeoutMs: number;
  /** First pause between probes; doubles up to `pollMaxMs`. */
  pollInitialMs: number;
  pollMaxMs: number;
};

/** Generous: a first boot pulls the image; a warm that gives up early only makes the pool retry it. */
export const DEFAULT_HEALTH_POLICY: HealthPolicy = {
  budgetMs: 120_000,
  probeTimeoutMs: 5_000,
  pollInitialMs: 250,
  pollMaxMs: 2_000
};

export const HEALTH_PATH = "/health";

export type HealthWait = { healthy: boolean; waitedMs: number; probes: number; lastError?: string };

/** Probe until one answers true or the budget is spent. A probe that throws counts as unhealthy. */
export async function waitUntilHealthy(probe: () => Promise<boolean>, sleep: Sleep, policy: HealthPolicy): Promise<HealthWait> {
  let waitedMs = 0;
  let probes = 0;
  let delay = policy.pollInitialMs;
  let lastError: string | undefined;
  for (;;) {
    probes++;
    try {
      if (await probe()) return { healthy: true, waitedMs, probes };
      lastError = "health check answered not ok";
    } catch (error) {
      lastError = describeError(error);
    }
    if (waitedMs >= policy.budgetMs) return { healthy: false, waitedMs, probes, lastError };
    const pause = Math.min(delay, policy.budgetMs - waitedMs);
    await sleep(pause);
    waitedMs += pause;
    delay = Math.min(delay * 2, policy.pollMaxMs);
  }
}
