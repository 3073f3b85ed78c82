/**
 * WarmPool: keeps exactly one unassigned container warm. (Being built: see
 * issue 3.)
 */
import { DurableObject } from "cloudflare:workers";
import type { ClaimResult, PoolOwner, PoolStats, ReleaseResult } from "./pool/pool-types";

export const WARM_POOL_NAME = "main";

export class WarmPool extends DurableObject<Env> {
  async claim(_owner: PoolOwner): Promise<ClaimResult> {
    throw new Error("WarmPool.claim: not built yet");
  }
  async release(_owner: PoolOwner): Promise<ReleaseResult> {
    return { released: false };
  }
  async prime(): Promise<PoolStats> {
    return this.stats();
  }
  async stats(): Promise<PoolStats> {
    return { warm: 0, assigned: 0, total: 0, target: 1 };
  }
}
