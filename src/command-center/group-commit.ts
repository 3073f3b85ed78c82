/**
 * Group commit for the CommandCenterAgent's `record(event)`: each call waits
 * for its group, and a group is applied by one `apply` (one storage
 * transaction) and answered together. A group closes when the thread is
 * next free (a timer) or when it is full, whichever comes first: a thread
 * flooded with calls runs its timers late, so a full group does not wait
 * for one. One commit per group rather than per call, since a commit costs
 * far more than applying an event. Pure: `apply` is the caller's.
 */

export class GroupCommit<Result> {
  readonly #apply: (events: readonly unknown[]) => Result[];
  readonly #max: number;
  #waiting: Array<{ event: unknown; resolve: (result: Result) => void; reject: (error: unknown) => void }> = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(apply: (events: readonly unknown[]) => Result[], max: number) {
    this.#apply = apply;
    this.#max = max;
  }

  /** Answered once `event` is applied with its group; rejected with the group's error if applying it threw. */
  add(event: unknown): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#waiting.push({ event, resolve, reject });
      if (this.#waiting.length >= this.#max) this.#commit();
      else this.#timer ??= setTimeout(() => this.#commit(), 0);
    });
  }

  #commit(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const group = this.#waiting.splice(0);
    if (group.length === 0) return;
    try {
      const results = this.#apply(group.map((waiting) => waiting.event));
      group.forEach((waiting, i) => waiting.resolve(results[i]!));
    } catch (error) {
      for (const waiting of group) waiting.reject(error);
    }
  }
}
