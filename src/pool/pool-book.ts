/**
 * The warm pool's bookkeeping: which Sandbox is the warm one, which turn
 * holds which Sandbox, which are being stopped. Every transition is
 * synchronous over the Durable Object's `ctx.storage.kv`, so a claim is done
 * before the first await and no two owners get the same Sandbox; each
 * returns the effects to run, which warm-pool-manager.ts runs. Every
 * container is the warm slot, assigned, or retiring until its stop succeeds
 * (the failure rules: docs/containers.md, "No container without an owner").
 * Pure.
 */
import type { ClaimResult, PoolOwner, PoolStats, ReleaseResult } from "./pool-types";

export const POOL_STATE_KEY = "warm-pool:state";
/** Unassigned containers the pool keeps by default (WARM_POOL_SIZE, warm-pool-size.ts). */
export const WARM_TARGET = 1;
export const MAX_WARM_ATTEMPTS = 3;
/** 2 minutes: an assignment younger than this is not checked with its owner, which may be between its claim and recording it. */
export const RECLAIM_GRACE_MS = 2 * 60 * 1000;
/** Consecutive primes an owner may fail to answer before its container is stopped. */
export const MAX_OWNER_UNREACHABLE = 5;
/** The first retry of a failed stop waits 2^1 of these; each further failure doubles it. */
export const STOP_RETRY_BASE_MS = 60 * 1000;
/** 60 minutes: the longest wait between retries of a failed stop. */
export const STOP_RETRY_MAX_MS = 60 * 60 * 1000;

/** How long after its `failures`-th failed stop a Sandbox's stop is tried again: min(2^failures minutes, 60 minutes). */
export function stopRetryDelayMs(failures: number): number {
  return Math.min(STOP_RETRY_BASE_MS * 2 ** Math.min(failures, 32), STOP_RETRY_MAX_MS);
}

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
  /** When the pool first asked for this Sandbox: its container is no older. (Absent in state stored before it existed: `since`.) */
  createdAt?: number;
  /** Failed warms of this Sandbox so far. */
  failures: number;
  error?: string;
};

export type Assignment = {
  sandboxId: string;
  claimedAt: number;
  /** Consecutive primes on which the owner could not be asked. */
  unreachable?: number;
  error?: string;
};

/** Why a Sandbox is being stopped. */
export type RetireReason = "released" | "reclaimed" | "warm-failed" | "warm-expired" | "warm-unwanted";

export type Retiring = {
  since: number;
  failures: number;
  error?: string;
  reason?: RetireReason;
  /** No retry before this time (set after a failed stop). */
  nextAttemptAt?: number;
};

export type PoolState = {
  warm: WarmSlot | null;
  assigned: Record<PoolOwner, Assignment>;
  retiring: Record<string, Retiring>;
};

/** Sandboxes to warm and to stop, in that order of issue. */
export type PoolEffects = { warm: string[]; stop: string[] };

/** Where a claim's Sandbox came from. */
export type ClaimSource = "reused" | "warm" | "starting" | "fresh";

/** What an owner said when the pool asked whether it still holds its Sandbox. */
export type OwnerAnswer = { holds: boolean } | { unreachable: string };

/** Why an assignment was taken back without a release. */
export type ReclaimReason = "turn-over" | "unreachable" | "lifetime";

/** What the book did with an owner's answer. `stale`: the assignment changed meanwhile (released, or another Sandbox). */
export type OwnerVerdict =
  | { verdict: "kept" }
  | { verdict: "stale" }
  | { verdict: "unreachable"; failures: number }
  | { verdict: "reclaimed"; reason: ReclaimReason; failures: number };

export type PoolBookDeps = {
  now: () => number;
  createId: () => string;
  /** The container lifetime (lifetime.ts): warm slots are replaced at half of it. */
  maxLifetimeMs: number;
  /** Unassigned containers to keep, 0 or 1 (WARM_TARGET when absent); asked at each transition. */
  warmTarget?: () => number;
};

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
        if (slot) this.#retire(state, effects, slot.sandboxId, "warm-failed", slot.error);
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
      this.#retire(state, effects, held.sandboxId, "released");
      this.#fill(state, effects);
      return { result: { released: true, sandboxId: held.sandboxId } };
    });
  }

  /**
   * Fill the warm slot and retry what is unfinished: a failed or orphaned
   * warm, a stop whose retry is due. Replaces a warm slot past half the
   * lifetime. `busy` says which Sandboxes have a call in flight in this
   * isolate (those are left alone). A ready slot is warmed again as a
   * liveness check (Sandbox.warm() is a no-op on a running container).
   */
  prime(busy: (sandboxId: string) => boolean): PoolEffects {
    return this.#update((state, effects) => {
      const now = this.#deps.now();
      const slot = state.warm;
      if (slot && this.#target() === 0 && !busy(slot.sandboxId)) {
        this.#retire(state, effects, slot.sandboxId, "warm-unwanted", slot.error);
        state.warm = null;
      } else if (slot?.status === "failed" && slot.failures >= MAX_WARM_ATTEMPTS) {
        this.#retire(state, effects, slot.sandboxId, "warm-failed", slot.error);
        state.warm = null;
      } else if (slot && now - (slot.createdAt ?? slot.since) >= this.#deps.maxLifetimeMs / 2) {
        this.#retire(state, effects, slot.sandboxId, "warm-expired");
        state.warm = null;
      }
      if (!this.#fill(state, effects) && state.warm && !busy(state.warm.sandboxId)) {
        if (state.warm.status === "failed") state.warm = { ...state.warm, status: "starting", since: now };
        effects.warm.push(state.warm.sandboxId);
      }
      for (const [sandboxId, entry] of Object.entries(state.retiring)) {
        if (busy(sandboxId) || effects.stop.includes(sandboxId)) continue;
        if ((entry.nextAttemptAt ?? 0) <= now) effects.stop.push(sandboxId);
      }
      return {};
    }).effects;
  }

  /** The assignments old enough to check with their owners (see RECLAIM_GRACE_MS). */
  reclaimCandidates(): Array<{ owner: PoolOwner; sandboxId: string }> {
    const now = this.#deps.now();
    return Object.entries(this.snapshot().assigned)
      .filter(([, held]) => now - held.claimedAt >= RECLAIM_GRACE_MS)
      .map(([owner, held]) => ({ owner, sandboxId: held.sandboxId }));
  }

  /**
   * Record what `owner` answered about `sandboxId`: it holds it (kept, the
   * unreachable count starts over), it does not (reclaimed: stopped, as by a
   * release), or it could not be asked (counted; reclaimed after
   * MAX_OWNER_UNREACHABLE in a row, or once the assignment outlived the
   * container lifetime).
   */
  ownerAnswered(owner: PoolOwner, sandboxId: string, answer: OwnerAnswer): OwnerVerdict & { effects: PoolEffects } {
    return this.#update((state, effects): OwnerVerdict => {
      const held = state.assigned[owner];
      if (held?.sandboxId !== sandboxId) return { verdict: "stale" };
      if ("holds" in answer) {
        if (answer.holds) {
          if (held.unreachable) state.assigned[owner] = { sandboxId, claimedAt: held.claimedAt };
          return { verdict: "kept" };
        }
        this.#reclaim(state, effects, owner, held);
        return { verdict: "reclaimed", reason: "turn-over", failures: 0 };
      }
      const failures = (held.unreachable ?? 0) + 1;
      const reason: ReclaimReason | null =
        failures >= MAX_OWNER_UNREACHABLE
          ? "unreachable"
          : this.#deps.now() - held.claimedAt >= this.#deps.maxLifetimeMs
            ? "lifetime"
            : null;
      if (reason) {
        this.#reclaim(state, effects, owner, held);
        return { verdict: "reclaimed", reason, failures };
      }
      state.assigned[owner] = { ...held, unreachable: failures, error: answer.unreachable };
      return { verdict: "unreachable", failures };
    });
  }

  /** A warm() succeeded. True when `sandboxId` is still the warm slot (it may have been claimed meanwhile). */
  warmSucceeded(sandboxId: string): boolean {
    return this.#write((state) => {
      const slot = state.warm;
      if (slot?.sandboxId !== sandboxId) return false;
      state.warm = { sandboxId, status: "ready", since: this.#deps.now(), createdAt: slot.createdAt ?? slot.since, failures: 0 };
      return true;
    });
  }

  /** A warm() threw. True when `sandboxId` is still the warm slot, which is now marked failed. */
  warmFailed(sandboxId: string, error: string): boolean {
    return this.#write((state) => {
      const slot = state.warm;
      if (slot?.sandboxId !== sandboxId) return false;
      state.warm = {
        sandboxId,
        status: "failed",
        since: this.#deps.now(),
        createdAt: slot.createdAt ?? slot.since,
        failures: slot.failures + 1,
        error
      };
      return true;
    });
  }

  /** A stop() succeeded: the Sandbox is forgotten. Returns why it was being stopped. */
  stopSucceeded(sandboxId: string): { reason?: RetireReason } {
    return this.#write((state): { reason?: RetireReason } => {
      const reason = state.retiring[sandboxId]?.reason;
      delete state.retiring[sandboxId];
      return reason ? { reason } : {};
    });
  }

  /**
   * A stop() threw. The Sandbox stays retiring (it may still be running and
   * billing) and its next retry waits stopRetryDelayMs(failures).
   */
  stopFailed(sandboxId: string, error: string): { failures: number; nextAttemptAt?: number; reason?: RetireReason } {
    return this.#write((state): { failures: number; nextAttemptAt?: number; reason?: RetireReason } => {
      const entry = state.retiring[sandboxId];
      if (!entry) return { failures: 0 };
      const failures = entry.failures + 1;
      const nextAttemptAt = this.#deps.now() + stopRetryDelayMs(failures);
      state.retiring[sandboxId] = { ...entry, failures, error, nextAttemptAt };
      return { failures, nextAttemptAt, ...(entry.reason ? { reason: entry.reason } : {}) };
    });
  }

  stats(): PoolStats {
    const state = this.snapshot();
    const warm = state.warm && state.warm.status !== "failed" ? 1 : 0;
    const assigned = Object.keys(state.assigned).length;
    const retiring = Object.keys(state.retiring).length;
    return { warm, assigned, total: warm + assigned, retiring, target: this.#target() };
  }

  snapshot(): PoolState {
    const stored = this.#store.get<PoolState>(POOL_STATE_KEY);
    return stored ? structuredClone(stored) : emptyState();
  }

  /** One read, one transition, one write: no await in between. */
  #write<R>(transition: (state: PoolState) => R): R {
    const state = this.snapshot();
    const result = transition(state);
    this.#store.put(POOL_STATE_KEY, state);
    return result;
  }

  /** A transition that also collects the effects to run. */
  #update<R extends object>(transition: (state: PoolState, effects: PoolEffects) => R): R & { effects: PoolEffects } {
    const effects = noEffects();
    const result = this.#write((state) => transition(state, effects));
    return { ...result, effects };
  }

  #target(): number {
    return this.#deps.warmTarget?.() ?? WARM_TARGET;
  }

  /** Start a fresh warm Sandbox when the slot is empty and the target wants one. True when it did. */
  #fill(state: PoolState, effects: PoolEffects): boolean {
    if (state.warm || this.#target() === 0) return false;
    const sandboxId = this.#deps.createId();
    const now = this.#deps.now();
    state.warm = { sandboxId, status: "starting", since: now, createdAt: now, failures: 0 };
    effects.warm.push(sandboxId);
    return true;
  }

  /** Take `owner`'s Sandbox back without its release: stopped exactly as a released one. */
  #reclaim(state: PoolState, effects: PoolEffects, owner: PoolOwner, held: Assignment): void {
    delete state.assigned[owner];
    this.#retire(state, effects, held.sandboxId, "reclaimed");
    this.#fill(state, effects);
  }

  #retire(state: PoolState, effects: PoolEffects, sandboxId: string, reason: RetireReason, error?: string): void {
    state.retiring[sandboxId] = { since: this.#deps.now(), failures: 0, reason, ...(error === undefined ? {} : { error }) };
    effects.stop.push(sandboxId);
  }
}
