/**
 * Runs whose turn began and whose ending has not been handled to the end:
 * one key per submission (`agent-think:open-run:<submission id>`), written
 * when the submission starts running and deleted as the last step of its
 * ending (the closing comment queued, the command center told, the
 * container released). Think writes a submission's terminal status before
 * it calls `onSubmissionStatus`, and does not call it again after a
 * restart; a process killed between the two would leave a finished run
 * with no closing comment and a thread still running. On start the
 * ThinkAgent finishes every open run whose submission is terminal. Pure:
 * storage is the Durable Object's synchronous KV.
 */
export interface OpenRunStorage {
  put<T>(key: string, value: T): void;
  delete(key: string): boolean;
  list<T>(options: { prefix: string }): Iterable<[string, T]>;
}

const PREFIX = "agent-think:open-run:";

export class OpenRuns {
  readonly #storage: OpenRunStorage;
  constructor(storage: OpenRunStorage) {
    this.#storage = storage;
  }

  opened(submissionId: string, at: number): void {
    this.#storage.put(PREFIX + submissionId, { at });
  }

  closed(submissionId: string): void {
    this.#storage.delete(PREFIX + submissionId);
  }

  /** The submission ids still open, oldest first. */
  list(): string[] {
    return [...this.#storage.list<{ at: number }>({ prefix: PREFIX })]
      .sort(([, a], [, b]) => a.at - b.at)
      .map(([key]) => key.slice(PREFIX.length));
  }
}
