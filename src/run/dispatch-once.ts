/**
 * Answers a duplicate dispatch of a triggering comment before any work it does not need. The
 * first dispatch of a comment runs and its submission id is kept under
 * `agent-think:dispatch:<commentId>`; a duplicate gets that id back with `accepted: false` and
 * stores nothing, so a late redelivery cannot replace a newer run's context, and one arriving
 * while the first runs shares its promise. Think's idempotency key stays the guarantee; this is
 * the cheap path in front of it. Dispatches with no comment id pass through. Storage is a
 * narrow interface the Durable Object fills with `ctx.storage`.
 */

export type DispatchOnceStorage = {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
};

export type DispatchOutcome = { submissionId: string; accepted: boolean };

export function dispatchKey(commentId: number): string {
  return `agent-think:dispatch:${commentId}`;
}

export class DispatchOnce {
  readonly #storage: DispatchOnceStorage;
  readonly #inFlight = new Map<number, Promise<DispatchOutcome>>();
  constructor(storage: DispatchOnceStorage) {
    this.#storage = storage;
  }

  run(commentId: number | undefined, start: () => Promise<DispatchOutcome>): Promise<DispatchOutcome> {
    if (commentId === undefined) return start();
    const pending = this.#inFlight.get(commentId);
    if (pending) return pending.then(({ submissionId }) => ({ submissionId, accepted: false }));
    const first = this.#first(commentId, start).finally(() => this.#inFlight.delete(commentId));
    this.#inFlight.set(commentId, first);
    return first;
  }

  async #first(commentId: number, start: () => Promise<DispatchOutcome>): Promise<DispatchOutcome> {
    const known = await this.#storage.get<string>(dispatchKey(commentId));
    if (known !== undefined) return { submissionId: known, accepted: false };
    const outcome = await start();
    await this.#storage.put(dispatchKey(commentId), outcome.submissionId);
    return outcome;
  }
}
