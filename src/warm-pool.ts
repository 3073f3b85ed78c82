/**
 * WarmPool (singleton `main`): keeps WARM_POOL_SIZE unassigned containers
 * warm and hands one out per claim; a thin shell over
 * src/pool/warm-pool-manager.ts and a fleet of Sandbox Durable Objects, each
 * a fresh UUID stopped for good on release. WorkspaceAgents claim and
 * release; the cron's `primeWarmPool(env)` refills and stops what no one
 * holds. See docs/containers.md.
 */
import { DurableObject } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { createLogger } from "./run/log";
import { containersEnabled } from "./pool/errors";
import { sandboxFleet, type ContainerFleet } from "./pool/fleet";
import { containerMaxLifetimeMs } from "./pool/lifetime";
import { workspaceOwners, type OwnerHolding, type PoolOwners } from "./pool/owners";
import type { ClaimResult, PoolOwner, PoolStats, ReleaseResult } from "./pool/pool-types";
import { WarmPoolManager } from "./pool/warm-pool-manager";
import { parseWarmPoolSize } from "./pool/warm-pool-size";

export const WARM_POOL_NAME = "main";

/** The pool's stub. Tests pass their own name; everything else uses the singleton. */
export function warmPool(env: Pick<Env, "WarmPool">, name: string = WARM_POOL_NAME): DurableObjectStub<WarmPool> {
  return env.WarmPool.getByName(name);
}

/**
 * For the Worker's `scheduled` handler: fill the warm slot, retry failed
 * warms and stops, reclaim containers no turn holds. Null where containers
 * are disabled (nothing to prime).
 */
export async function primeWarmPool(env: Pick<Env, "WarmPool" | "CONTAINERS_ENABLED">): Promise<PoolStats | null> {
  if (!containersEnabled(env)) return null;
  return await warmPool(env).prime();
}

export class WarmPool extends DurableObject<Env> {
  #pool: WarmPoolManager;

  /**
   * Seam: the containers this pool drives, or null where no container engine
   * runs. An instance property, so it is not on the RPC surface; tests swap
   * in a recording fake with runInDurableObject.
   */
  protected fleet: () => ContainerFleet | null = () => (containersEnabled(this.env) ? sandboxFleet(this.env.Sandbox) : null);

  /**
   * Seam: the owners the pool asks before reclaiming an assignment: the
   * issue's WorkspaceAgent (named by the owner's session) and its
   * `holding()`. Same seam rules as `fleet`.
   */
  protected owners: PoolOwners = workspaceOwners(async (session) => {
    // The narrow contract, not the agent's class: its stub type is too deep for tsc.
    const workspace = (await getAgentByName(this.env.WorkspaceAgent, session)) as unknown as {
      holding(): Promise<OwnerHolding>;
    };
    return await workspace.holding();
  });

  /** Seam: `WARM_POOL_SIZE`, read at each call. Same seam rules as `fleet`. */
  protected poolSize: () => string | undefined = () => this.env.WARM_POOL_SIZE;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#pool = new WarmPoolManager({
      store: ctx.storage.kv,
      fleet: () => this.fleet(),
      owners: { holds: (owner, sandboxId) => this.owners.holds(owner, sandboxId) },
      maxLifetimeMs: containerMaxLifetimeMs(env.CONTAINER_MAX_LIFETIME_MS),
      log: createLogger({ component: "warm-pool" }),
      now: () => Date.now(),
      createId: () => crypto.randomUUID(),
      background: (work) => ctx.waitUntil(work),
      size: () => parseWarmPoolSize(this.poolSize())
    });
  }

  /**
   * Hand `owner` a container: the one it already holds (`reused: true`),
   * else the warm one, else a fresh one; returns at once and warms the
   * replacement in the background. Throws where containers are disabled.
   */
  async claim(owner: PoolOwner): Promise<ClaimResult> {
    return this.#pool.claim(owner);
  }

  /** Stop and drop `owner`'s container, keep the warm slot filled. Unknown owner: `{ released: false }`. */
  async release(owner: PoolOwner): Promise<ReleaseResult> {
    return this.#pool.release(owner);
  }

  /** Fill the warm slot (none at WARM_POOL_SIZE=0), retry failed warms and stops, reclaim what no turn holds. Safe to call any time. */
  async prime(): Promise<PoolStats> {
    return await this.#pool.prime();
  }

  async stats(): Promise<PoolStats> {
    return this.#pool.stats();
  }
}
