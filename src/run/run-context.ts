/**
 * The run context: who the current run is for and the token it may use.
 *
 * It is the only place an installation token is stored. Each dispatch
 * replaces it, so a queued turn uses the newest (short-lived) token. The
 * transcript, the envelope and the logs never carry the token. Pure: storage
 * is a narrow interface the Durable Object fills with `ctx.storage`.
 */
export type RunContext = {
  repo: string;
  issueNumber: number;
  issueTitle?: string;
  requestedBy?: { login: string; avatarUrl?: string };
  commentId?: number;
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
  async clear(): Promise<void> {
    await this.#storage.delete(KEY);
  }
}
