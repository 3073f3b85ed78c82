/**
 * The containers a warm pool drives, as narrow as the pool needs: warm one
 * up, stop one for good. The WarmPool wires `sandboxFleet(env.Sandbox)`;
 * tests put a recording fake behind the same interface. Pure.
 */

export interface ContainerFleet {
  /** Start (or confirm running) the container of Sandbox `sandboxId` with the shared launch spec. */
  warm(sandboxId: string): Promise<void>;
  /** Destroy the container of Sandbox `sandboxId`; the Sandbox never starts again. */
  stop(sandboxId: string): Promise<void>;
}

/** What `sandboxFleet` needs of the Sandbox namespace binding. */
export interface SandboxNamespaceLike {
  getByName(name: string): { warm(): Promise<unknown>; stop(): Promise<unknown> };
}

/** A fleet of Sandbox Durable Objects, one per sandbox id. */
export function sandboxFleet(namespace: SandboxNamespaceLike): ContainerFleet {
  return {
    async warm(sandboxId) {
      await namespace.getByName(sandboxId).warm();
    },
    async stop(sandboxId) {
      await namespace.getByName(sandboxId).stop();
    }
  };
}
