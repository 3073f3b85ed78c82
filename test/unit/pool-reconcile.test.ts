import { describe, expect, it } from "vitest";
import { createLogger, LOG_PREFIX } from "../../src/run/log";
import { reconcileThenStart, waitUntilStopped, type ReconcilePolicy } from "../../src/pool/reconcile";
import { FakeContainer } from "../pool/fakes";

const policy: ReconcilePolicy = { maxAttempts: 3, stopPollInitialMs: 10, stopPollMaxMs: 40, stopWaitMs: 100, retryDelayMs: 5 };

/** The reconcile target over a FakeContainer, recording sleeps and any restart() call. */
function harness(container: FakeContainer, start?: () => Promise<string>) {
  const sleeps: number[] = [];
  const lines: string[] = [];
  const restarts: string[] = [];
  const target = {
    isRunning: () => container.running,
    destroy: () => container.destroy(),
    start:
      start ??
      (async () => {
        container.start({});
        return "started";
      }),
    // Present so a regression that reaches for it is caught.
    restart: async () => void restarts.push("restart")
  };
  const options = {
    policy,
    sleep: async (ms: number) => void sleeps.push(ms),
    log: createLogger({ component: "sandbox" }, () => [], (line) => lines.push(line))
  };
  const events = () => lines.map((line) => JSON.parse(line.slice(LOG_PREFIX.length)) as Record<string, unknown>);
  return { target, options, sleeps, lines, events, restarts };
}

describe("reconcileThenStart", () => {
  it("just starts a container that is not running", async () => {
    const container = new FakeContainer();
    const h = harness(container);
    expect(await reconcileThenStart(h.target, h.options)).toBe("started");
    expect(container.lifecycle()).toEqual(["start"]);
    expect(h.events()).toEqual([
      { event: "sandbox:reconcile", component: "sandbox", attempt: 1, maxAttempts: 3, inherited: false, outcome: "started", waitedMs: 0 }
    ]);
  });

  it("destroys an inherited container, waits until it is not running, then starts", async () => {
    const container = new FakeContainer({ running: true });
    container.stopLagReads = 3;
    const h = harness(container);
    await reconcileThenStart(h.target, h.options);
    expect(container.lifecycle()).toEqual(["destroy", "start"]);
    // Between destroy and start the container was polled until it reported not running.
    const afterDestroy = container.calls.slice(container.calls.indexOf("destroy") + 1, container.calls.indexOf("start"));
    expect(afterDestroy.at(-1)).toBe("running:false");
    expect(afterDestroy.filter((call) => call === "running:true").length).toBe(3);
    expect(h.sleeps).toEqual([10, 20, 40]);
    expect(h.restarts).toEqual([]);
    expect(h.events()).toMatchObject([{ attempt: 1, inherited: true, outcome: "started", waitedMs: 70 }]);
  });

  it("gives up after the bounded attempts, logging each, without starting or restarting", async () => {
    const container = new FakeContainer({ running: true });
    container.neverStops = true;
    const h = harness(container);
    await expect(reconcileThenStart(h.target, h.options)).rejects.toThrow(/did not start after 3 reconcile attempts: container still running 100 ms after destroy/);
    expect(container.lifecycle()).toEqual(["destroy", "destroy", "destroy"]);
    expect(h.restarts).toEqual([]);
    expect(h.events().map((line) => [line.attempt, line.outcome])).toEqual([
      [1, "still-running"],
      [2, "still-running"],
      [3, "still-running"]
    ]);
    expect(h.lines.every((line) => line.startsWith(LOG_PREFIX) && !line.includes("\n"))).toBe(true);
  });

  it("retries when start throws, reconciling again if the container came up", async () => {
    const container = new FakeContainer({ running: true });
    container.stopLagReads = 0;
    let starts = 0;
    const h = harness(container, async () => {
      starts++;
      if (starts === 1) throw new Error("already running");
      container.start({});
      return "started";
    });
    expect(await reconcileThenStart(h.target, h.options)).toBe("started");
    expect(h.events().map((line) => [line.attempt, line.outcome, line.error])).toEqual([
      [1, "start-failed", "already running"],
      [2, "started", undefined]
    ]);
  });

  it("records a destroy() that throws and still waits for the container to stop", async () => {
    const container = new FakeContainer({ running: true });
    container.stopLagReads = 0;
    const h = harness(container);
    h.target.destroy = async () => {
      await container.destroy();
      throw new Error("destroy: no such container");
    };
    await reconcileThenStart(h.target, h.options);
    expect(h.events()).toMatchObject([{ outcome: "started", destroyError: "destroy: no such container" }]);
  });
});

describe("waitUntilStopped", () => {
  it("backs off and stops at the budget", async () => {
    const sleeps: number[] = [];
    const result = await waitUntilStopped(() => true, async (ms) => void sleeps.push(ms), {
      stopPollInitialMs: 100,
      stopPollMaxMs: 400,
      stopWaitMs: 1_000
    });
    expect(result).toEqual({ stopped: false, waitedMs: 1_000 });
    expect(sleeps).toEqual([100, 200, 400, 300]);
  });
});
