/**
 * Starting a container that may have been inherited across a deploy: the
 * first start in an isolate destroys a running container, waits until the
 * platform reports it not running, then starts; never `restart()`, which
 * leaves an inherited container wedged. Attempts are bounded, each one
 * `sandbox:reconcile` line. Used by src/sandbox.ts (also `waitUntilStopped`
 * for `stop()`). Pure: time is the injected `sleep`. docs/containers.md,
 * "The stale-container reconcile, and why it is not `restart()`".
 */
import type { Logger } from "../run/log";
import { describeError, SandboxReconcileError } from "./errors";

export type ReconcilePolicy = {
  /** Whole destroy → wait → start rounds before giving up. */
  maxAttempts: number;
  /** First pause between `running` polls after destroy(); doubles up to `stopPollMaxMs`. */
  stopPollInitialMs: number;
  stopPollMaxMs: number;
  /** Longest wait (sum of pauses) for one destroy() to take effect. */
  stopWaitMs: number;
  /** Pause before another attempt. */
  retryDelayMs: number;
};

export const DEFAULT_RECONCILE_POLICY: ReconcilePolicy = {
  maxAttempts: 3,
  stopPollInitialMs: 100,
  stopPollMaxMs: 2_000,
  stopWaitMs: 20_000,
  retryDelayMs: 500
};

/** The part of `ctx.container` the reconcile touches; `start` is the host's launch. */
export interface ReconcileTarget<R> {
  isRunning(): boolean;
  destroy(): Promise<void>;
  start(): Promise<R>;
}

export type Sleep = (ms: number) => Promise<void>;

export type StopWait = { stopped: boolean; waitedMs: number };

/** Poll `isRunning` with backoff until it is false or `stopWaitMs` of pauses are spent. */
export async function waitUntilStopped(
  isRunning: () => boolean,
  sleep: Sleep,
  policy: Pick<ReconcilePolicy, "stopPollInitialMs" | "stopPollMaxMs" | "stopWaitMs">
): Promise<StopWait> {
  let waitedMs = 0;
  let delay = policy.stopPollInitialMs;
  while (isRunning()) {
    if (waitedMs >= policy.stopWaitMs) return { stopped: false, waitedMs };
    const pause = Math.min(delay, policy.stopWaitMs - waitedMs);
    await sleep(pause);
    waitedMs += pause;
    delay = Math.min(delay * 2, policy.stopPollMaxMs);
  }
  return { stopped: true, waitedMs };
}

/**
 * destroy → wait until not running → start, for a container this isolate did
 * not start. A container that is not running is simply started.
 */
export async function reconcileThenStart<R>(
  target: ReconcileTarget<R>,
  options: { policy?: ReconcilePolicy; sleep: Sleep; log: Logger }
): Promise<R> {
  const policy = options.policy ?? DEFAULT_RECONCILE_POLICY;
  let lastError = "no attempt made";
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    const line = { attempt, maxAttempts: policy.maxAttempts };
    const inherited = target.isRunning();
    let waitedMs = 0;
    let destroyError: string | undefined;
    if (inherited) {
      try {
        await target.destroy();
      } catch (error) {
        // The container may be half gone already; whether it stops is what the wait decides.
        destroyError = describeError(error);
      }
      const wait = await waitUntilStopped(() => target.isRunning(), options.sleep, policy);
      waitedMs = wait.waitedMs;
      if (!wait.stopped) {
        lastError = `container still running ${waitedMs} ms after destroy()`;
        options.log("sandbox:reconcile", { ...line, inherited, outcome: "still-running", waitedMs, destroyError });
        if (attempt < policy.maxAttempts) await options.sleep(policy.retryDelayMs);
        continue;
      }
    }
    try {
      const result = await target.start();
      options.log("sandbox:reconcile", { ...line, inherited, outcome: "started", waitedMs, destroyError });
      return result;
    } catch (error) {
      lastError = describeError(error);
      options.log("sandbox:reconcile", { ...line, inherited, outcome: "start-failed", waitedMs, destroyError, error: lastError });
      if (attempt < policy.maxAttempts) await options.sleep(policy.retryDelayMs);
    }
  }
  throw new SandboxReconcileError(policy.maxAttempts, lastError);
}
