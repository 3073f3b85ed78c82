/**
 * The warm pool's bookkeeping: which Sandbox is the warm one, which turn
 * holds which Sandbox, which are being stopped.
 *
 * Every transition is synchronous over a synchronous store (the Durable
 * Object's `ctx.storage.kv`), so the WarmPool finishes a claim's bookkeeping
 * before its first await: two owners can never be handed the same Sandbox.
 * Transitions return the effects to run (Sandboxes to warm, to stop); running
 * them, and reporting back, is the caller's job (warm-pool-manager.ts). Pure.
 *
 * Failed warms: the slot is marked `failed`. It does not count as warm, a
 * claim never hands it out (the claimer gets a fresh Sandbox that its own
 * backend starts), and the next prime retries it, up to MAX_WARM_ATTEMPTS,
 * after which it is stopped and replaced by a fresh Sandbox.
 * Failed stops: the Sandbox stays in `retiring` and the next prime retries
 * the stop, up to MAX_STOP_ATTEMPTS, after which it is dropped and logged.
 */
import type { ClaimResult, PoolOwner, PoolStats, ReleaseResult } from "./pool-types";

export const POOL_STATE_KEY = "warm-pool:state";
/** Unassigned containers the pool keeps. */
export const WARM_TARGET = 1;
export const MAX_WARM_ATTEMPTS = 3;
export const MAX_STOP_ATTEMPTS = 5;

/** The storage the book needs: `ctx.storage.kv` in the Durable Object, a Map in tests. */
export interface PoolStore {
  get<T>(key: string): T | undefined;
  put<T>(key: string, value: T): void;
}

export type WarmSlot = {
  sandboxId: string;
  /** starting: a warm() was issued; ready: it succeeded; failed: it threw (see header). */
  status: "starting" | "ready" | "failed";
  since: number;
  /** Failed warms of this Sandbox so far. */
  failures: number;
  error?: string;
};

export type Assignment = { sandboxId: string; claimedAt: number };

export type Retiring = { since: number; failures: number; error?: string };

export type PoolState = {
  warm: WarmSlot | null;
  assigned: Record<PoolOwner, Assignment>;
  retiring: Record<string, Retiring>;
};

/** Sandboxes to warm and to stop, in that order of issue. */
export type PoolEffects = { warm: string[]; stop: string[] };

/** Where a claim's Sandbox came from. */
export type ClaimSource = "reused" | "warm" | "starting" | "fresh";

export type PoolBookDeps = { now: () => number; createId: () => string };

const emptyState = (): PoolState => ({ warm: null, assigned: {}, retiring: {} });
const noEffects = (): PoolEffects => ({ warm: [], stop: [] });

export class PoolBook {
  #store: PoolStore;
  #deps: PoolBookDeps;

  constructor(store: PoolStore, deps: PoolBookDeps) {
    this.#store = store;
    this.#deps = deps;
  }

  /** Hand `owner` a Sandbox: the one it already holds, else the warm one, else a fresh one. */
  claim(owner: PoolOwner): { result: ClaimResult; source: ClaimSource; effects: PoolEffects } {
    return this.#update((state, effects) => {
      const held = state.assigned[owner];
      if (held) {
        this.#fill(state, effects);
        return { result: { sandboxId: held.sandboxId, reused: true }, source: "reused" as const };
      }
      let sandboxId: string;
      let source: ClaimSource;
      const slot = state.warm;
      if (slot && slot.status !== "failed") {
        sandboxId = slot.sandboxId;
        source = slot.status === "ready" ? "warm" : "starting";
      } else {
        if (slot) this.#retire(state, effects, slot.sandboxId, slot.error);
        sandboxId = this.#deps.createId();
        source = "fresh";
      }
      state.warm = null;
      state.assigned[owner] = { sandboxId, claimedAt: this.#deps.now() };
      this.#fill(state, effects);
      return { result: { sandboxId, reused: false }, source };
    });
  }

  /** Drop `owner`'s Sandbox (to be stopped) and keep the warm slot filled. Unknown owners change nothing. */
  release(owner: PoolOwner): { result: ReleaseResult; effects: PoolEffects } {
    return this.#update((state, effects) => {
      const held = state.assigned[owner];
      if (!held) return { result: { released: false } };
      delete state.assigned[owner];
      this.#retire(state, effects, held.sandboxId);
      this.#fill(state, effects);
      return { result: { released: true, sandboxId: held.sandboxId } };
    });
  }

  /**
   * Fill the warm slot and retry what is unfinished: a failed or orphaned
   * warm, a failed stop. `busy` says which Sandboxes have a call in flight
   * in this isolate (those are left alone). A ready slot is warmed again as
   * a liveness check (Sandbox.warm() is a no-op on a running container).
   */
  prime(busy: (sandboxId: string) => boolean): PoolEffects {
    return this.#update((state, effects) => {
      const slot = state.warm;
      if (slot?.status === "failed" && slot.failures >= MAX_WARM_ATTEMPTS) {
        this.#retire(state, effects, slot.sandboxId, slot.error);
        state.warm = null;
      }
      if (!this.#fill(state, effects) && state.warm && !busy(state.warm.sandboxId)) {
        if (state.warm.status === "failed") state.warm = { ...state.warm, status: "starting", since: this.#deps.now() };
        effects.warm.push(state.warm.sandboxId);
      }
      for (const sandboxId of Object.keys(state.retiring)) {
        if (!busy(sandboxId) && !effects.stop.includes(sandboxId)) effects.stop.push(sandboxId);
      }
      return {};
    }).effects;
  }

  /** A warm() succeeded. True when `sandboxId` is still the warm slot (it may have been claimed meanwhile). */
  warmSucceeded(sandboxId: string): boolean {
    return this.#update((state) => {
      if (state.warm?.sandboxId !== sandboxId) return { slot: false };
      state.warm = { sandboxId, status: "ready", since: this.#deps.now(), failures: 0 };
      return { slot: true };
    }).slot;
  }

  /** A warm() threw. True when `sandboxId` is still the warm slot, which is now marked failed. */
  warmFailed(sandboxId: string, error: string): boolean {
    return this.#update((state) => {
      const slot = state.warm;
      if (slot?.sandboxId !== sandboxId) return { slot: false };
      state.warm = { sandboxId, status: "failed", since: this.#deps.now(), failures: slot.failures + 1, error };
      return { slot: true };
    }).slot;
  }

  stopSucceeded(sandboxId: string): void {
    this.#update((state) => {
      delete state.retiring[sandboxId];
      return {};
    });
  }

  /** A stop() threw. `abandoned`: it failed MAX_STOP_ATTEMPTS times and is no longer retried. */
  stopFailed(sandboxId: string, error: string): { abandoned: boolean; failures: number } {
    const { abandoned, failures } = this.#update((state) => {
      const entry = state.retiring[sandboxId];
      if (!entry) return { abandoned: false, failures: 0 };
      const failures = entry.failures + 1;
      if (failures >= MAX_STOP_ATTEMPTS) {
        delete state.retiring[sandboxId];
        return { abandoned: true, failures };
      }
      state.retiring[sandboxId] = { ...entry, failures, error };
      return { abandoned: false, failures };
    });
    return { abandoned, failures };
  }

  stats(): PoolStats {
    const state = this.snapshot();
    const warm = state.warm && state.warm.status !== "failed" ? 1 : 0;
    const assigned = Object.keys(state.assigned).length;
    return { warm, assigned, total: warm + assigned, target: WARM_TARGET };
  }

  snapshot(): PoolState {
    const stored = this.#store.get<PoolState>(POOL_STATE_KEY);
    return stored ? structuredClone(stored) : emptyState();
  }

  /** One read, one transition, one write: no await in between. */
  #update<R extends object>(transition: (state: PoolState, effects: PoolEffects) => R): R & { effects: PoolEffects } {
    const state = this.snapshot();
    const effects = noEffects();
    const result = transition(state, effects);
    this.#store.put(POOL_STATE_KEY, state);
    return { ...result, effects };
  }

  /** Start a fresh warm Sandbox when the slot is empty. True when it did. */
  #fill(state: PoolState, effects: PoolEffects): boolean {
    if (state.warm) return false;
    const sandboxId = this.#deps.createId();
    state.warm = { sandboxId, status: "starting", since: this.#deps.now(), failures: 0 };
    effects.warm.push(sandboxId);
    return true;
  }

  #retire(state: PoolState, effects: PoolEffects, sandboxId: string, error?: string): void {
    state.retiring[sandboxId] = { since: this.#deps.now(), failures: 0, ...(error === undefined ? {} : { error }) };
    effects.stop.push(sandboxId);
  }
}
