/**
 * At most one pending one-shot job per scheduled callback of an agent, due
 * at the earliest time asked for. The agents SDK adds a row for every
 * `schedule()` call (its `idempotent` option keeps the first row's time, so
 * an earlier request would be lost); `request` cancels and replaces instead.
 * A callback run through `run` settles every row due before it started, so
 * the row that is firing never counts as pending. Pure: the agent's schedule
 * methods are the parameter. The rule: AGENTS.md, "Rules we hold ourselves to".
 */
import type { Schedule } from "agents";

/** The agent's own schedule methods (an `Agent` has them). */
export type ScheduleHost<C extends string> = {
  listSchedules(): Promise<Schedule<unknown>[]>;
  schedule(when: Date, callback: C): Promise<Schedule<unknown>>;
  cancelSchedule(id: string): Promise<boolean>;
};

export class OneShotSchedules<C extends string> {
  readonly #host: ScheduleHost<C>;
  /** Per callback, its requests and run endings, one at a time in order: two interleaved ones would each add a row. */
  readonly #queues = new Map<C, Promise<void>>();
  /** Per callback, when each of its runs going on now started. */
  readonly #running = new Map<C, number[]>();

  constructor(host: ScheduleHost<C>) {
    this.#host = host;
  }

  /** Have `callback` run at `atMs` or earlier: one job stays pending, the earliest asked for (whole seconds, rounded up). */
  request(callback: C, atMs: number): Promise<void> {
    return this.#inTurn(callback, () => this.#request(callback, atMs));
  }

  /**
   * Run `callback`'s work: its scheduled call, or any direct one. Done, it
   * cancels the jobs due before it started, the firing one among them (they
   * asked for no more than this run did). Not awaited: settling waits its
   * turn behind this callback's requests, which may wait on the agent's start.
   */
  async run<T>(callback: C, work: () => Promise<T>): Promise<T> {
    const startedAt = Date.now();
    const starts = this.#running.get(callback) ?? [];
    starts.push(startedAt);
    this.#running.set(callback, starts);
    let done = false;
    try {
      const result = await work();
      done = true;
      return result;
    } finally {
      void this.#inTurn(callback, async () => {
        starts.splice(starts.indexOf(startedAt), 1);
        // A failed run settles nothing: the jobs it would have answered fire and try again.
        if (done) for (const job of await this.#jobs(callback)) if (job.time * 1000 <= startedAt) await this.#host.cancelSchedule(job.id);
      }).catch(() => {});
    }
  }

  async #request(callback: C, atMs: number): Promise<void> {
    // After the newest run's start (a job of ours never lands at or before it), on a whole second: the SDK keeps seconds.
    const dueMs = Math.ceil(Math.max(atMs, Date.now() + 1) / 1000) * 1000;
    // A job due before a run going on now started is that run's to settle (maybe the firing one): it counts for nothing.
    const floor = Math.max(-Infinity, ...(this.#running.get(callback) ?? []));
    const pending = (await this.#jobs(callback)).filter((job) => job.time * 1000 > floor).sort((a, b) => a.time - b.time);
    const keep = pending[0] && pending[0].time * 1000 <= dueMs ? pending[0] : undefined;
    for (const job of pending) if (job !== keep) await this.#host.cancelSchedule(job.id);
    if (!keep) await this.#host.schedule(new Date(dueMs), callback);
  }

  async #jobs(callback: C): Promise<Schedule<unknown>[]> {
    return (await this.#host.listSchedules()).filter((job) => job.callback === callback && (job.type === "scheduled" || job.type === "delayed"));
  }

  /** `step` after everything asked before it for `callback`, whether that failed or not. */
  #inTurn(callback: C, step: () => Promise<void>): Promise<void> {
    const next = (this.#queues.get(callback) ?? Promise.resolve()).catch(() => {}).then(step);
    this.#queues.set(callback, next);
    return next;
  }
}
