/**
 * Runs whose turn began and whose ending is not handled to the end: one key per submission
 * (`agent-think:open-run:<submission id>`), written when it starts running and deleted as the
 * last step of its ending (closing comment queued, command center told, container released).
 * Think writes the terminal status before `onSubmissionStatus` and does not call it again after
 * a restart, so on start the ThinkAgent finishes every open run whose submission is terminal
 * (docs/reporting.md, "Exactly once"). Pure: storage is the Durable Object's synchronous KV.
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
