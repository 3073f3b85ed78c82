/**
 * Which container a workspace's turn holds, and giving it back: the
 * WorkspaceAgent's side of the warm pool. The first container command of a
 * turn claims one (`sandbox()`), `end` gives it back. A claim never outlives
 * its turn, a release is recorded before it is tried and retried until the
 * pool has it, and a retired container is replaced, not retried;
 * `beforeRelease` lets the last sync finish first. Pure: storage, pool,
 * clock and scheduler are parameters. docs/containers.md, "A turn's
 * container always goes back".
 */
import type { Logger } from "../run/log";
import { describeError } from "./errors";
import { poolOwner, type ClaimResult, type PoolOwner, type ReleaseResult } from "./pool-types";

/** The turn a workspace call belongs to. */
export type TurnRef = { session: string; submissionId: string };

export type TurnState = { owner: PoolOwner; submissionId: string; sandboxId?: string };

export type PendingRelease = {
  sandboxId: string;
  outcome: string;
  attempts: number;
  nextAttemptAt: number;
  lastError?: string;
};

/** Asynchronous key-value storage: the Durable Object's `ctx.storage`. */
export interface TurnStore {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

export type TurnPool = {
  claim(owner: PoolOwner): Promise<ClaimResult>;
  release(owner: PoolOwner): Promise<ReleaseResult>;
};

export type TurnContainerDeps = {
  store: TurnStore;
  pool: () => TurnPool;
  log: Logger;
  now: () => number;
  /** Be called back (`retryReleases`) in `ms`; durable (the agent's scheduler). */
  scheduleRetry: (ms: number) => Promise<void>;
  /** Let the last sync from the container finish and drop the connection to it. */
  beforeRelease: () => Promise<void>;
  /** Backoff of failed releases; the defaults below unless a test shortens them. */
  retryPolicy?: () => RetryPolicy;
};

export type RetryPolicy = { initialMs: number; maxMs: number };

export const TURN_KEY = "agent-think:workspace-turn";
export const RELEASES_KEY = "agent-think:workspace-releases";
/** First retry of a failed release after this long; doubling up to the cap. */
export const RELEASE_RETRY_INITIAL_MS = 5_000;
export const RELEASE_RETRY_MAX_MS = 5 * 60_000;
const DEFAULT_RETRY_POLICY: RetryPolicy = { initialMs: RELEASE_RETRY_INITIAL_MS, maxMs: RELEASE_RETRY_MAX_MS };

/** The turn ended while its container was being claimed; the container went back at once. */
export class TurnEndedError extends Error {
  override readonly name = "TurnEndedError";
  constructor() {
    super("the turn ended while its container was being claimed; the container was given back");
  }
}

export class TurnContainers {
  readonly #deps: TurnContainerDeps;

  constructor(deps: TurnContainerDeps) {
    this.#deps = deps;
  }

  /** Name the turn container use belongs to; a different turn still recorded gives its container back first. Idempotent. */
  async begin(turn: TurnRef): Promise<void> {
    const current = await this.current();
    if (current?.submissionId === turn.submissionId) return;
    await this.#deps.store.put<TurnState>(TURN_KEY, { owner: poolOwner(turn.session, turn.submissionId), submissionId: turn.submissionId });
    if (current) await this.#release(current, "superseded");
  }

  /** The turn ended: forget it and give its container back. `released` is false when it held none or the release is still pending. */
  async end(turn: TurnRef, outcome: string): Promise<{ released: boolean; pending: boolean }> {
    const current = await this.current();
    if (current?.submissionId !== turn.submissionId) return { released: false, pending: false };
    // Forget the turn first: a claim still in flight sees it gone and gives its container back itself.
    await this.#deps.store.delete(TURN_KEY);
    return await this.#release(current, outcome);
  }

  async current(): Promise<TurnState | undefined> {
    return await this.#deps.store.get<TurnState>(TURN_KEY);
  }

  /** The turn and container this workspace holds (the WarmPool asks this before reclaiming). */
  async holding(): Promise<{ submissionId?: string; sandboxId?: string }> {
    const current = await this.current();
    return { submissionId: current?.submissionId, sandboxId: current?.sandboxId };
  }

  /** The turn's container, claiming one on first use. Throws when no turn is running or it ended during the claim. */
  async sandbox(): Promise<string> {
    const current = await this.current();
    if (!current) throw new Error("no turn is running in this workspace, so it holds no container");
    if (current.sandboxId) return current.sandboxId;
    const claim = await this.#deps.pool().claim(current.owner);
    const latest = await this.current();
    if (latest?.submissionId !== current.submissionId) {
      this.#deps.log("container:claim-after-end", { owner: current.owner, sandboxId: claim.sandboxId });
      // Never used by the turn: nothing to sync back, nothing to wait for.
      await this.#release({ ...current, sandboxId: claim.sandboxId }, "turn-ended-during-claim", { settle: false });
      throw new TurnEndedError();
    }
    await this.#deps.store.put<TurnState>(TURN_KEY, { ...latest, sandboxId: claim.sandboxId });
    this.#deps.log("container:claimed", { owner: current.owner, sandboxId: claim.sandboxId, reused: claim.reused });
    return claim.sandboxId;
  }

  /** `sandboxId` was stopped under the turn (it never starts again): give it back; the next `sandbox()` claims a fresh one. */
  async replaceRetired(sandboxId: string): Promise<void> {
    const current = await this.current();
    if (current?.sandboxId !== sandboxId) return;
    const { sandboxId: _retired, ...rest } = current;
    await this.#deps.store.put<TurnState>(TURN_KEY, rest);
    // Nothing to wait for: the container is already stopped.
    await this.#release(current, "retired", { settle: false });
  }

  /** Scheduled callback: retry the releases that are due. Resolves to how many are still pending. */
  async retryReleases(): Promise<{ pending: number }> {
    const pending = await this.#pending();
    const now = this.#deps.now();
    for (const [owner, entry] of Object.entries(pending)) {
      if (entry.nextAttemptAt <= now) await this.#attempt(owner, entry);
    }
    const left = await this.#pending();
    await this.#scheduleNext(left);
    return { pending: Object.keys(left).length };
  }

  /** Releases not yet accepted by the pool (tests, the dashboard). */
  async pendingReleases(): Promise<Record<PoolOwner, PendingRelease>> {
    return await this.#pending();
  }

  async #release(state: TurnState, outcome: string, options = { settle: true }): Promise<{ released: boolean; pending: boolean }> {
    if (!state.sandboxId) return { released: false, pending: false };
    const entry: PendingRelease = { sandboxId: state.sandboxId, outcome, attempts: 0, nextAttemptAt: this.#deps.now() };
    await this.#putPending(state.owner, entry);
    if (options.settle) {
      try {
        await this.#deps.beforeRelease();
      } catch (error) {
        this.#deps.log("container:before-release-failed", { owner: state.owner, error: describeError(error) });
      }
    }
    const released = await this.#attempt(state.owner, entry);
    if (!released) await this.#scheduleNext(await this.#pending());
    return { released, pending: !released };
  }

  /** One attempt; true when the pool has it (a release of an owner the pool no longer knows counts). */
  async #attempt(owner: PoolOwner, entry: PendingRelease): Promise<boolean> {
    try {
      const result = await this.#deps.pool().release(owner);
      await this.#deletePending(owner);
      this.#deps.log("container:released", { owner, sandboxId: entry.sandboxId, outcome: entry.outcome, released: result.released, attempts: entry.attempts + 1 });
      return true;
    } catch (error) {
      const attempts = entry.attempts + 1;
      const policy = this.#deps.retryPolicy?.() ?? DEFAULT_RETRY_POLICY;
      const delay = Math.min(policy.initialMs * 2 ** (attempts - 1), policy.maxMs);
      await this.#putPending(owner, { ...entry, attempts, nextAttemptAt: this.#deps.now() + delay, lastError: describeError(error) });
      this.#deps.log("container:release-failed", { owner, sandboxId: entry.sandboxId, attempts, retryInMs: delay, error: describeError(error) });
      return false;
    }
  }

  async #scheduleNext(pending: Record<PoolOwner, PendingRelease>): Promise<void> {
    const due = Object.values(pending).map((entry) => entry.nextAttemptAt);
    if (due.length === 0) return;
    await this.#deps.scheduleRetry(Math.max(0, Math.min(...due) - this.#deps.now()));
  }

  async #pending(): Promise<Record<PoolOwner, PendingRelease>> {
    return (await this.#deps.store.get<Record<PoolOwner, PendingRelease>>(RELEASES_KEY)) ?? {};
  }

  async #putPending(owner: PoolOwner, entry: PendingRelease): Promise<void> {
    await this.#deps.store.put(RELEASES_KEY, { ...(await this.#pending()), [owner]: entry });
  }

  async #deletePending(owner: PoolOwner): Promise<void> {
    const { [owner]: _done, ...rest } = await this.#pending();
    await this.#deps.store.put(RELEASES_KEY, rest);
  }
}
