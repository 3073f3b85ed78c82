/**
 * The turn watchdog: while a turn runs, a timer in the isolate checks that
 * it did something (started, or finished a tool call) within the stale
 * window, and calls `onQuiet` once when it did not. A timer rather than a
 * scheduled callback, because an agent's scheduled callbacks wait while a
 * Think turn runs; a recovered turn arms it again. Pure: time, the activity
 * record and what to do are parameters.
 */
export type WatchdogDeps = {
  windowMs(): number;
  /** Still the running turn? A turn that ended stops the watch. */
  isCurrent(id: string): Promise<boolean>;
  lastActivity(id: string): Promise<number | undefined>;
  onQuiet(id: string, quietForMs: number): Promise<void>;
  onError(id: string, error: unknown): void;
  now?: () => number;
};

export class TurnWatchdog {
  readonly #deps: WatchdogDeps;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(deps: WatchdogDeps) {
    this.#deps = deps;
  }

  /** Watch `id`, first checking after `inMs` (the whole window by default). Replaces any earlier watch. */
  arm(id: string, inMs: number = this.#deps.windowMs()): void {
    this.stop();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#check(id).catch((error) => this.#deps.onError(id, error));
    }, inMs);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #check(id: string): Promise<void> {
    if (!(await this.#deps.isCurrent(id))) return;
    const now = this.#deps.now?.() ?? Date.now();
    const quietFor = now - ((await this.#deps.lastActivity(id)) ?? now);
    const windowMs = this.#deps.windowMs();
    if (quietFor < windowMs) {
      this.arm(id, windowMs - quietFor);
      return;
    }
    await this.#deps.onQuiet(id, quietFor);
  }
}
