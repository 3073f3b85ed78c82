/**
 * The Sandbox Durable Object over a recording fake container (this machine
 * has no container engine): fail-fast when containers are disabled, warm with
 * the shared spec, adoption by the real ContainerBackend, the stale-container
 * reconcile, and stop.
 */
import { env } from "cloudflare:workers";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ContainerBackend, WorkspaceContainerAPI } from "@cloudflare/computer/backends/container";
import { LOG_PREFIX } from "../../src/run/log";
import { CONTAINERS_UNAVAILABLE_MESSAGE } from "../../src/pool/errors";
import { callingSideHolder } from "../../src/pool/calling-side-host";
import { CONTAINER_CONNECT_TIMEOUT_MS, containerBackendOptions, warmLaunchSpec } from "../../src/pool/launch-spec";
import { sandboxStub, type Sandbox } from "../../src/sandbox";
import { captureConsole } from "../helpers";
import { FakeContainer } from "./fakes";
import { installContainer, rejectionIn, sandboxWithContainer } from "./seams";

/** A backend wired as the WorkspaceAgent wires its own: the Sandbox (across RPC), through the calling-side host. */
function backendOver(sandbox: DurableObjectStub<Sandbox> | Sandbox) {
  return new ContainerBackend({
    ...containerBackendOptions({}, { fetch: async () => new Response("gateway") } as unknown as Fetcher),
    container: () => callingSideHolder(sandbox),
    workspace: { binding: "WorkspaceAgent", id: "workspace-under-test" },
    connectTimeoutMs: 400,
    restartAttempts: 0,
    heartbeatIntervalMs: 0
  });
}

const backendFor = (sandboxId: string) => backendOver(sandboxStub(env, sandboxId));

/** The refusal of that backend's connect over the Sandbox itself, in the object (across RPC, workerd prints the Sandbox's refusal as uncaught). */
const connectRefusal = (stub: DurableObjectStub<Sandbox>) => rejectionIn(stub, (sandbox: Sandbox) => backendOver(sandbox).connect());

const reconcileLines = (lines: string[]) =>
  lines
    .filter((line) => line.startsWith(LOG_PREFIX))
    .map((line) => JSON.parse(line.slice(LOG_PREFIX.length)) as Record<string, unknown>)
    .filter((line) => line.event === "sandbox:reconcile");

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * "Fast" against what it replaces: a wait for a container that never comes
 * lasts CONTAINER_CONNECT_TIMEOUT_MS (three minutes). A loaded machine takes
 * seconds, never minutes, so the bound is a tenth of that wait.
 */
const FAST_MS = CONTAINER_CONNECT_TIMEOUT_MS / 10;

describe("Sandbox without a container engine", () => {
  it("fails fast with a clear error from every method", async () => {
    const stub = sandboxStub(env, crypto.randomUUID());
    const started = Date.now();
    expect((await rejectionIn(stub, (sandbox) => sandbox.warm())).message).toBe(CONTAINERS_UNAVAILABLE_MESSAGE);
    expect((await rejectionIn(stub, (sandbox) => sandbox.stop())).message).toBe(CONTAINERS_UNAVAILABLE_MESSAGE);
    expect((await rejectionIn(stub, (sandbox) => sandbox.getWorkspaceContainer())).message).toBe(CONTAINERS_UNAVAILABLE_MESSAGE);
    expect(Date.now() - started).toBeLessThan(FAST_MS);
  });

  it("fails a ContainerBackend's connect at once", async () => {
    const started = Date.now();
    expect((await connectRefusal(sandboxStub(env, crypto.randomUUID()))).message).toContain(CONTAINERS_UNAVAILABLE_MESSAGE);
    expect(Date.now() - started).toBeLessThan(FAST_MS);
  });
});

describe("Sandbox.warm", () => {
  it("launches the container with the shared launch spec", async () => {
    const container = new FakeContainer();
    const { stub } = await sandboxWithContainer(container);
    expect(await stub.warm()).toMatchObject({ outcome: "launched" });
    const spec = warmLaunchSpec();
    expect(container.startOptions).toHaveLength(1);
    expect(container.startOptions[0]).toMatchObject({
      enableInternet: spec.enableInternet,
      image: container.images[spec.name],
      env: { ...spec.env, RPC_CLIENT_SECRET: expect.any(String) }
    });
    expect(container.requests[0]).toBe("HEAD /health");
    // Warm again (the cron's liveness check): nothing restarts.
    expect(await stub.warm()).toMatchObject({ outcome: "running" });
    expect(container.lifecycle()).toEqual(["start"]);
  });

  it("fails, logged, when computerd never answers its health check", async () => {
    const container = new FakeContainer();
    container.healthStatus = 503;
    const { stub } = await sandboxWithContainer(container);
    const { result, lines } = await captureConsole(() => rejectionIn(stub, (sandbox) => sandbox.warm()));
    expect(result.message).toMatch(/container not healthy \d+ ms after start: health check answered not ok/);
    expect(lines.some((line) => line.includes('"event":"sandbox:warm"') && line.includes('"healthy":false'))).toBe(true);
    // A later warm (the pool's retry) adopts the running container and checks again.
    container.healthStatus = 200;
    expect(await stub.warm()).toMatchObject({ outcome: "running" });
    expect(container.lifecycle()).toEqual(["start"]);
  });

  it("is adopted by the WorkspaceAgent's ContainerBackend instead of relaunched", async () => {
    const container = new FakeContainer();
    const { sandboxId, stub } = await sandboxWithContainer(container);
    await stub.warm();
    // The fake daemon answers health and auth, then fails /connect: past start, where a real computerd is needed.
    await expect(backendFor(sandboxId).connect()).rejects.toThrow(/stage=connect/);
    expect(container.lifecycle()).toEqual(["start"]);
    expect(container.intercepted).toEqual(["computer.internal"]);
    expect(container.requests).toContain("POST /connect");
  });

  it("serializes a backend start racing the warm, which then adopts", async () => {
    const container = new FakeContainer();
    const { sandboxId, stub } = await sandboxWithContainer(container);
    const warming = stub.warm();
    await expect(backendFor(sandboxId).connect()).rejects.toThrow(/stage=connect/);
    await warming;
    expect(container.lifecycle()).toEqual(["start"]);
  });
});

describe("Sandbox stale-container reconcile", () => {
  it("destroys an inherited container, waits until it is not running, then starts; never restart()", async () => {
    const restart = vi.spyOn(WorkspaceContainerAPI.prototype, "restart");
    const container = new FakeContainer({ running: true });
    container.stopLagReads = 2;
    const { stub } = await sandboxWithContainer(container);
    const { result, lines } = await captureConsole(() => stub.warm());
    expect(result).toMatchObject({ outcome: "launched" });
    expect(container.lifecycle()).toEqual(["destroy", "start"]);
    const between = container.calls.slice(container.calls.indexOf("destroy") + 1, container.calls.indexOf("start"));
    expect(between).toContain("running:true");
    expect(between.at(-1)).toBe("running:false");
    expect(restart).not.toHaveBeenCalled();
    expect(reconcileLines(lines)).toMatchObject([{ component: "sandbox", attempt: 1, maxAttempts: 3, inherited: true, outcome: "started" }]);
  });

  it("reconciles a container the new instance did not start (after an eviction, as after a deploy)", async () => {
    const container = new FakeContainer();
    const { stub } = await sandboxWithContainer(container);
    await stub.warm();
    await evictDurableObject(stub);
    await installContainer(stub, container);
    // The launch record in storage matches, so without the reconcile the host would adopt it blindly.
    expect(await stub.warm()).toMatchObject({ outcome: "launched" });
    expect(container.lifecycle()).toEqual(["start", "destroy", "start"]);
  });

  it("gives up after bounded attempts, each logged, without starting", async () => {
    const restart = vi.spyOn(WorkspaceContainerAPI.prototype, "restart");
    const container = new FakeContainer({ running: true });
    container.neverStops = true;
    const { stub } = await sandboxWithContainer(container);
    const { result, lines } = await captureConsole(() =>
      runInDurableObject(stub, (sandbox: Sandbox) => sandbox.warm().then(() => "warmed", (error: Error) => error.message))
    );
    expect(result).toMatch(/did not start after 3 reconcile attempts/);
    expect(container.lifecycle()).toEqual(["destroy", "destroy", "destroy"]);
    expect(restart).not.toHaveBeenCalled();
    expect(reconcileLines(lines).map((line) => [line.attempt, line.outcome])).toEqual([
      [1, "still-running"],
      [2, "still-running"],
      [3, "still-running"]
    ]);
  });
});

describe("Sandbox.stop", () => {
  it("destroys the container, waits for it, and never starts again", async () => {
    const container = new FakeContainer();
    const { stub } = await sandboxWithContainer(container);
    await stub.warm();
    expect(await stub.stop()).toEqual({ stopped: true, wasRunning: true });
    expect(container.running).toBe(false);
    expect(await stub.stop()).toEqual({ stopped: true, wasRunning: false });
    expect((await rejectionIn(stub, (sandbox) => sandbox.warm())).message).toMatch(/was stopped and is never started again/);
    expect((await connectRefusal(stub)).message).toMatch(/stage=start/);
    expect(container.lifecycle()).toEqual(["start", "destroy"]);
  });

  it("runs after a warm still in flight, so the warm cannot revive it", async () => {
    const container = new FakeContainer();
    const { stub } = await sandboxWithContainer(container);
    const warming = stub.warm();
    const stopping = stub.stop();
    await warming;
    expect(await stopping).toEqual({ stopped: true, wasRunning: true });
    expect(container.running).toBe(false);
  });
});
