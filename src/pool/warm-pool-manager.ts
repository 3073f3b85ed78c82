/**
 * The WarmPool's logic: bookkeeping (pool-book.ts) plus running its effects
 * on a ContainerFleet, logging each outcome as an `agent-think` line. claim()
 * and release() return once their bookkeeping is done, warming and stopping
 * run in the background; prime() waits for what it issued, reclaims what no
 * live turn holds (owners.ts) and reads WARM_POOL_SIZE at each call. Calls
 * for one Sandbox are chained, so a stop runs after a warm still in flight.
 * Pure: storage, fleet, owners, clock, ids and the background hook are
 * parameters. docs/containers.md, "WarmPool".
 */
import type { Logger } from "../run/log";
import { ContainerUnavailableError, describeError } from "./errors";
import type { ContainerFleet } from "./fleet";
import type { PoolOwners } from "./owners";
import { PoolBook, type OwnerAnswer, type PoolEffects, type PoolState, type PoolStore } from "./pool-book";
import type { ClaimResult, PoolOwner, PoolStats, ReleaseResult } from "./pool-types";
import { DEFAULT_WARM_POOL_SIZE, type WarmPoolSizeSetting } from "./warm-pool-size";

export const MAX_OWNER_LENGTH = 512;

export type WarmPoolManagerDeps = {
  store: PoolStore;
  /** The fleet, or null where no container engine runs (claims then fail fast). */
  fleet: () => ContainerFleet | null;
  /** Asks an assignment's owner whether it still holds its Sandbox; rejects when it cannot be reached. */
  owners: PoolOwners;
  /** The container lifetime (lifetime.ts). */
  maxLifetimeMs: number;
  log: Logger;
  now: () => number;
  createId: () => string;
  /** Keeps background work alive after the call returns (ctx.waitUntil). */
  background: (work: Promise<unknown>) => void;
  /** WARM_POOL_SIZE, parsed; the default when absent. */
  size?: () => WarmPoolSizeSetting;
};

export class WarmPoolManager {
  #book: PoolBook;
  #deps: WarmPoolManagerDeps;
  /** The tail of each Sandbox's call chain in this isolate. */
  #inflight = new Map<string, Promise<void>>();
  /** Owners being asked in this isolate, so overlapping primes ask (and count) each once. */
  #asking = new Set<PoolOwner>();

  constructor(deps: WarmPoolManagerDeps) {
    this.#deps = deps;
    this.#book = new PoolBook(deps.store, {
      now: deps.now,
      createId: deps.createId,
      maxLifetimeMs: deps.maxLifetimeMs,
      warmTarget: () => {
        const setting = deps.size?.();
        return setting?.ok ? setting.size : DEFAULT_WARM_POOL_SIZE;
      }
    });
  }

  claim(owner: PoolOwner): ClaimResult {
    checkOwner(owner);
    const fleet = this.#deps.fleet();
    if (!fleet) throw new ContainerUnavailableError();
    const { result, source, effects } = this.#book.claim(owner);
    this.#deps.log("pool:claim", { owner, sandboxId: result.sandboxId, reused: result.reused, source });
    this.#run(fleet, effects);
    return result;
  }

  release(owner: PoolOwner): ReleaseResult {
    checkOwner(owner);
    const { result, effects } = this.#book.release(owner);
    if (!result.released) return result;
    this.#deps.log("pool:release", { owner, sandboxId: result.sandboxId });
    const fleet = this.#deps.fleet();
    if (fleet) this.#run(fleet, effects);
    return result;
  }

  /**
   * Fill the warm slot, retry failed warms and due stops, replace an aging
   * warm one, and reclaim assignments no live turn holds; resolves when all
   * of it has run.
   */
  async prime(): Promise<PoolStats> {
    const fleet = this.#deps.fleet();
    if (!fleet) return this.stats();
    const setting = this.#deps.size?.();
    if (setting && !setting.ok) this.#deps.log("pool:config", { error: setting.error, size: DEFAULT_WARM_POOL_SIZE });
    const effects = this.#book.prime((sandboxId) => this.#inflight.has(sandboxId));
    await Promise.all([this.#run(fleet, effects), this.#reclaim(fleet)]);
    return this.stats();
  }

  stats(): PoolStats {
    return this.#book.stats();
  }

  snapshot(): PoolState {
    return this.#book.snapshot();
  }

  /** Resolves when every call issued so far has finished. */
  async idle(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.all(this.#inflight.values());
  }

  /** Ask the owner of every assignment past its grace period, and act on each answer as it comes. */
  async #reclaim(fleet: ContainerFleet): Promise<void> {
    const candidates = this.#book.reclaimCandidates().filter(({ owner }) => !this.#asking.has(owner));
    await Promise.all(candidates.map(({ owner, sandboxId }) => this.#check(fleet, owner, sandboxId)));
  }

  async #check(fleet: ContainerFleet, owner: PoolOwner, sandboxId: string): Promise<void> {
    this.#asking.add(owner);
    let answer: OwnerAnswer;
    try {
      answer = { holds: await this.#deps.owners.holds(owner, sandboxId) };
    } catch (error) {
      answer = { unreachable: describeError(error) };
    } finally {
      this.#asking.delete(owner);
    }
    const outcome = this.#book.ownerAnswered(owner, sandboxId, answer);
    const error = "unreachable" in answer ? answer.unreachable : undefined;
    if (outcome.verdict === "unreachable") {
      this.#deps.log("pool:owner", { owner, sandboxId, outcome: "unreachable", failures: outcome.failures, error });
    } else if (outcome.verdict === "reclaimed") {
      this.#deps.log("pool:reclaim", { owner, sandboxId, reason: outcome.reason, failures: outcome.failures, error });
      await this.#run(fleet, outcome.effects);
    }
  }

  #run(fleet: ContainerFleet, effects: PoolEffects): Promise<void> {
    const calls = [
      ...effects.warm.map((sandboxId) => this.#chain(sandboxId, () => this.#warm(fleet, sandboxId))),
      ...effects.stop.map((sandboxId) => this.#chain(sandboxId, () => this.#stop(fleet, sandboxId)))
    ];
    const all = Promise.all(calls).then(() => undefined);
    if (calls.length > 0) this.#deps.background(all);
    return all;
  }

  #chain(sandboxId: string, call: () => Promise<void>): Promise<void> {
    const previous = this.#inflight.get(sandboxId);
    const next = previous ? previous.then(call) : call();
    this.#inflight.set(sandboxId, next);
    void next.finally(() => {
      if (this.#inflight.get(sandboxId) === next) this.#inflight.delete(sandboxId);
    });
    return next;
  }

  async #warm(fleet: ContainerFleet, sandboxId: string): Promise<void> {
    const started = this.#deps.now();
    try {
      await fleet.warm(sandboxId);
      const slot = this.#book.warmSucceeded(sandboxId);
      this.#deps.log("pool:warm", { sandboxId, outcome: "ready", slot, ms: this.#deps.now() - started });
    } catch (error) {
      const slot = this.#book.warmFailed(sandboxId, describeError(error));
      this.#deps.log("pool:warm", { sandboxId, outcome: "failed", slot, ms: this.#deps.now() - started, error: describeError(error) });
    }
  }

  async #stop(fleet: ContainerFleet, sandboxId: string): Promise<void> {
    try {
      await fleet.stop(sandboxId);
      const { reason } = this.#book.stopSucceeded(sandboxId);
      this.#deps.log("pool:stop", { sandboxId, outcome: "stopped", reason });
    } catch (error) {
      const { failures, nextAttemptAt, reason } = this.#book.stopFailed(sandboxId, describeError(error));
      const retryInMs = nextAttemptAt === undefined ? undefined : nextAttemptAt - this.#deps.now();
      this.#deps.log("pool:stop", { sandboxId, outcome: "failed", reason, failures, retryInMs, error: describeError(error) });
    }
  }
}

function checkOwner(owner: unknown): asserts owner is PoolOwner {
  if (typeof owner !== "string" || owner.length === 0 || owner.length > MAX_OWNER_LENGTH) {
    throw new TypeError(`warm pool owner must be a non-empty string of at most ${MAX_OWNER_LENGTH} characters`);
  }
}
