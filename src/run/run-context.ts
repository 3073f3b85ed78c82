/**
 * The run context: who the current run is for and the token it may use.
 *
 * It is the only place an installation token is stored. Each dispatch
 * replaces it, so a queued turn uses the newest (short-lived) token. The
 * transcript, the envelope and the logs never carry the token. Pure: storage
 * is a narrow interface the Durable Object fills with `ctx.storage`.
 */
import type { RepoVisibility } from "../shared/dispatch";

export type RunContext = {
  repo: string;
  issueNumber: number;
  issueTitle?: string;
  requestedBy?: { login: string; avatarUrl?: string };
  commentId?: number;
  /** The repository's visibility as the webhook reported it; a reproduction is public only for "public". */
  repoVisibility?: RepoVisibility;
  /** The latest dispatch's instruction, which a continuation carries on. */
  instruction: string;
  installationToken: string;
  updatedAt: number;
};

export interface RunContextStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

const KEY = "agent-think:run-context";

export class RunContextStore {
  readonly #storage: RunContextStorage;
  constructor(storage: RunContextStorage) {
    this.#storage = storage;
  }
  get(): Promise<RunContext | undefined> {
    return this.#storage.get<RunContext>(KEY);
  }
  put(context: RunContext): Promise<void> {
    return this.#storage.put(KEY, context);
  }
  /** Make `token` the run's token (a continuation, a `stop` comment, a refresh after a 401); null without a run. */
  async setToken(token: string, now: number): Promise<RunContext | null> {
    const run = await this.get();
    if (!run) return null;
    const next = { ...run, installationToken: token, updatedAt: now };
    await this.put(next);
    return next;
  }

  async clear(): Promise<void> {
    await this.#storage.delete(KEY);
  }
}
