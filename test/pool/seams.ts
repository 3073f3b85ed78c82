/**
 * Puts the recording fakes behind the real Durable Objects, through the
 * protected seams the classes keep for this (instance properties, so they are
 * not on the RPC surface): WarmPool.fleet and Sandbox.containerContext /
 * reconcilePolicy / healthPolicy. Workers runtime only.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import type { ContainerFleet } from "../../src/pool/fleet";
import type { HealthPolicy } from "../../src/pool/health";
import type { ReconcilePolicy } from "../../src/pool/reconcile";
import { sandboxStub, type ContainerContext, type Sandbox } from "../../src/sandbox";
import { warmPool, type WarmPool } from "../../src/warm-pool";
import type { FakeContainer } from "./fakes";

type WarmPoolSeam = { fleet: () => ContainerFleet | null };
type SandboxSeam = { containerContext: () => ContainerContext; reconcilePolicy: ReconcilePolicy; healthPolicy: HealthPolicy };

/** Short waits so the bounded reconcile finishes in milliseconds. */
export const FAST_RECONCILE: ReconcilePolicy = { maxAttempts: 3, stopPollInitialMs: 5, stopPollMaxMs: 20, stopWaitMs: 60, retryDelayMs: 5 };

/** Short health waits, for the same reason. */
export const FAST_HEALTH: HealthPolicy = { budgetMs: 60, probeTimeoutMs: 200, pollInitialMs: 5, pollMaxMs: 20 };

/** A WarmPool of its own (fresh name) driving `fleet`. */
export async function poolWithFleet(fleet: ContainerFleet | null) {
  const stub = warmPool(env, `test-${crypto.randomUUID()}`);
  await runInDurableObject(stub, (instance: WarmPool) => {
    (instance as unknown as WarmPoolSeam).fleet = () => fleet;
  });
  return stub;
}

/** Make the Sandbox behind `stub` drive `container` (again after an eviction: a new instance). */
export async function installContainer(stub: DurableObjectStub<Sandbox>, container: FakeContainer, policy = FAST_RECONCILE) {
  await runInDurableObject(stub, (instance: Sandbox, state) => {
    // One context object per instance: the container host keys its lifecycle state on it.
    // The real ctx.exports: the host hands the container the package's real WorkspaceProxy.
    const ctx = {
      container,
      storage: state.storage,
      id: state.id,
      exports: (state as unknown as { exports: unknown }).exports
    } as unknown as ContainerContext;
    const seam = instance as unknown as SandboxSeam;
    seam.containerContext = () => ctx;
    seam.reconcilePolicy = policy;
    seam.healthPolicy = FAST_HEALTH;
  });
}

/** A Sandbox of its own (fresh id) driving `container`. */
export async function sandboxWithContainer(container: FakeContainer, policy = FAST_RECONCILE) {
  const sandboxId = crypto.randomUUID();
  const stub = sandboxStub(env, sandboxId);
  await installContainer(stub, container, policy);
  return { sandboxId, stub };
}

/**
 * The error a stub call rejects with. Use it instead of `expect(stub.x()).rejects`:
 * vitest probes properties of the RpcPromise, and each probe is a pipelined
 * call that rejects again, unhandled.
 */
export async function rejectionOf(call: () => Promise<unknown>): Promise<Error> {
  try {
    await call();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to reject");
}

/**
 * The error `call` rejects (or throws) with, called on the object itself:
 * a refusal thrown across RPC is printed by workerd as uncaught, although it is caught.
 */
export async function rejectionIn<O extends Rpc.DurableObjectBranded>(stub: DurableObjectStub<O>, call: (instance: O) => unknown): Promise<Error> {
  return await runInDurableObject(stub, (instance: O) => rejectionOf(async () => await call(instance)));
}
