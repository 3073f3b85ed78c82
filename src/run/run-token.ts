/**
 * The run's installation token as a ThinkAgent holds it: the one stored
 * copy is the run context's (run-context.ts); this keeps the copy in memory
 * the agent redacts with, replaces it (a new dispatch, a continuation, a
 * `stop` comment, a refresh after a 401), remembers which token the
 * workspace last authenticated git with, and redacts it (and anything shaped
 * like a GitHub token) out of everything the run sends anywhere.
 *
 * Every token it holds is also registered with the isolate's console guard,
 * so a library that prints it prints `[redacted]`. Pure apart from its
 * narrow dependencies.
 */
import { redactDeep, redactSecrets } from "./redact";
import type { RunContext, RunContextStore } from "./run-context";

export type RunTokenDeps = {
  runs: Pick<RunContextStore, "get" | "setToken">;
  /** A fresh installation token for `repo` from the token broker. */
  mint(repo: string): Promise<string>;
  /** Where every token this run holds is registered for the console guard. */
  secrets: { add(secret: string): void };
  now(): number;
};

export class RunToken {
  readonly #deps: RunTokenDeps;
  #token = "";
  /** The token last handed to the workspace for git auth, in this isolate. */
  #synced: string | undefined;

  constructor(deps: RunTokenDeps) {
    this.#deps = deps;
  }

  /** The token in memory ("" before one is known). */
  get value(): string {
    return this.#token;
  }

  /** Hold `token` as the run's (it is already stored in the run context, or is about to be). */
  adopt(token: string): void {
    this.#token = token;
    this.#deps.secrets.add(token);
  }

  /** The stored token, held in memory too. */
  async load(): Promise<string> {
    this.adopt((await this.#deps.runs.get())?.installationToken ?? "");
    return this.#token;
  }

  /** Store `token` as the run's and hold it; null when there is no run to give it to. */
  async replace(token: string): Promise<RunContext | null> {
    const run = await this.#deps.runs.setToken(token, this.#deps.now());
    if (run) this.adopt(token);
    return run;
  }

  /** After a 401: a fresh token from the broker, stored for the run; null when none can be had. */
  async refresh(repo: string): Promise<string | null> {
    const token = await this.#deps.mint(repo);
    if (!token || !(await this.replace(token))) return null;
    return token;
  }

  /** Forget the token in memory (the run context was cleared). */
  clear(): void {
    this.#token = "";
    this.#synced = undefined;
  }

  /** Whether the workspace must authenticate git again: the stored token is not the one it last got. */
  needsGitSync(token: string): boolean {
    return token !== this.#synced;
  }

  gitSynced(token: string): void {
    this.#synced = token;
  }

  /** The turn ended: the next turn authenticates its container afresh. */
  forgetGitSync(): void {
    this.#synced = undefined;
  }

  /** The secrets a log line of this run must not hold. */
  secrets(): string[] {
    return this.#token ? [this.#token] : [];
  }

  redact(text: string): string {
    return redactSecrets(text, this.secrets());
  }

  redactDeep<T>(value: T): T {
    return redactDeep(value, this.secrets());
  }
}
