/**
 * The Sandbox's hard lifetime over a recording fake container: a launch arms
 * a Durable Object alarm for its first start plus the lifetime, the alarm
 * stops the container then (and retries a failed stop a minute later), a
 * relaunch does not extend it, and nothing starts past it. The lifetime is
 * shortened through the Sandbox's `maxLifetimeMs` seam; the alarm is fired
 * with runDurableObjectAlarm.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LIFETIME_STOP_RETRY_MS } from "../../src/pool/lifetime";
import type { Sandbox } from "../../src/sandbox";
import { LOG_PREFIX } from "../../src/run/log";
import { captureConsole, eventually } from "../helpers";
import { FakeContainer } from "./fakes";
import { installContainer, rejectionIn, sandboxWithContainer } from "./seams";

const HOUR = 60 * 60 * 1000;

type Stub = DurableObjectStub<Sandbox>;

async function setLifetime(stub: Stub, ms: number): Promise<void> {
  await runInDurableObject(stub, (instance: Sandbox) => {
    (instance as unknown as { maxLifetimeMs: number }).maxLifetimeMs = ms;
  });
}

const alarmOf = (stub: Stub) => runInDurableObject(stub, (_instance: Sandbox, state) => state.storage.getAlarm());

async function warmedSandbox(lifetimeMs = HOUR) {
  const container = new FakeContainer();
  const { sandboxId, stub } = await sandboxWithContainer(container);
  await setLifetime(stub, lifetimeMs);
  const before = Date.now();
  await stub.warm();
  const after = Date.now();
  return { container, sandboxId, stub, before, after };
}

const lifetimeLines = (lines: string[]) =>
  lines
    .filter((line) => line.startsWith(LOG_PREFIX))
    .map((line) => JSON.parse(line.slice(LOG_PREFIX.length)) as Record<string, unknown>)
    .filter((line) => line.event === "sandbox:lifetime");

describe("Sandbox lifetime", () => {
  it("arms an alarm for the first launch plus the lifetime", async () => {
    const { stub, before, after } = await warmedSandbox(HOUR);
    const alarm = await alarmOf(stub);
    expect(alarm).toBeGreaterThanOrEqual(before + HOUR);
    expect(alarm).toBeLessThanOrEqual(after + HOUR);
  });

  it("sets an alarm that fires early again for the deadline, and leaves the container running", async () => {
    const { container, stub } = await warmedSandbox(HOUR);
    const deadline = await alarmOf(stub);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await alarmOf(stub)).toBe(deadline);
    expect(container.lifecycle()).toEqual(["start"]);
    expect(await stub.warm()).toMatchObject({ outcome: "running" });
  });

  it("stops the container past its lifetime, logged, and it never starts again", async () => {
    const { container, stub } = await warmedSandbox(HOUR);
    // As if the hour had passed.
    await setLifetime(stub, 1);
    const { result, lines } = await captureConsole(() => runDurableObjectAlarm(stub));
    expect(result).toBe(true);
    expect(container.running).toBe(false);
    expect(container.lifecycle()).toEqual(["start", "destroy"]);
    expect(lifetimeLines(lines)).toMatchObject([{ component: "sandbox", outcome: "stopped", wasRunning: true, lifetimeMs: 1 }]);
    expect(await alarmOf(stub)).toBeNull();
    expect((await rejectionIn(stub, (sandbox) => sandbox.warm())).message).toMatch(/was stopped and is never started again/);
    // stop() stays idempotent afterwards.
    expect(await stub.stop()).toEqual({ stopped: true, wasRunning: false });
  });

  it("retries a stop that failed a minute later, until it succeeds", async () => {
    const { container, stub } = await warmedSandbox(HOUR);
    await setLifetime(stub, 1);
    container.neverStops = true;
    const failed = await captureConsole(() => runDurableObjectAlarm(stub));
    const retryAt = await alarmOf(stub);
    expect(retryAt).toBeGreaterThan(Date.now() + LIFETIME_STOP_RETRY_MS - 5_000);
    expect(retryAt).toBeLessThanOrEqual(Date.now() + LIFETIME_STOP_RETRY_MS);
    expect(lifetimeLines(failed.lines)).toMatchObject([
      { outcome: "stop-failed", retryInMs: LIFETIME_STOP_RETRY_MS, error: expect.stringMatching(/still running/) }
    ]);
    // Retired already: nothing starts it meanwhile.
    expect((await rejectionIn(stub, (sandbox) => sandbox.warm())).message).toMatch(/never started again/);

    container.neverStops = false;
    const retried = await captureConsole(() => runDurableObjectAlarm(stub));
    expect(lifetimeLines(retried.lines)).toMatchObject([{ outcome: "stopped", wasRunning: true }]);
    expect(container.running).toBe(false);
    expect(await alarmOf(stub)).toBeNull();
  });

  it("is not extended by a relaunch, and refuses a launch past it", async () => {
    const { container, stub } = await warmedSandbox(HOUR);
    const deadline = await alarmOf(stub);
    // A new instance (as after a deploy) reconciles: destroy, wait, start again.
    await evictDurableObject(stub);
    await installContainer(stub, container);
    await setLifetime(stub, HOUR);
    expect(await stub.warm()).toMatchObject({ outcome: "launched" });
    expect(container.lifecycle()).toEqual(["start", "destroy", "start"]);
    expect(await alarmOf(stub)).toBe(deadline);

    // Past the deadline a launch is refused, and with no alarm left (lost,
    // say) it sets one for now: the runtime fires it and it stops the container.
    await evictDurableObject(stub);
    await installContainer(stub, container);
    await setLifetime(stub, 1);
    await runInDurableObject(stub, (_instance: Sandbox, state) => state.storage.deleteAlarm());
    expect((await rejectionIn(stub, (sandbox) => sandbox.warm())).message).toMatch(/reached its maximum lifetime of 1 ms/);
    await eventually(() => expect(container.running).toBe(false));
    expect(await alarmOf(stub)).toBeNull();
  });

  it("forgets its alarm when the pool stops it first", async () => {
    const { stub } = await warmedSandbox(HOUR);
    expect(await alarmOf(stub)).not.toBeNull();
    expect(await stub.stop()).toEqual({ stopped: true, wasRunning: true });
    expect(await alarmOf(stub)).toBeNull();
    // An alarm that fires anyway (set before the stop) finds nothing to do.
    expect(await runDurableObjectAlarm(stub)).toBe(false);
  });
});
