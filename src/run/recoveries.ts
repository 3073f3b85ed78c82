/**
 * A run's recoveries: how many times Think's chat recovery took its interrupted turn over, and
 * whether the latest has resumed. The ThinkAgent counts one in `onChatRecovery` and marks it
 * resumed when the continuation turn begins; each change is a `recovery` event (the command
 * center's `recovering` status and count). Kept durably, one key per submission
 * (`agent-think:recovery:<submission id>`), since a recovery spans isolates; forgotten when the
 * run ends. Pure: storage is the Durable Object's synchronous KV.
 */
import type { RecoveryEvent } from "../shared/command-center-events";

export interface RecoveryStorage {
  get<T>(key: string): T | undefined;
  put<T>(key: string, value: T): void;
  delete(key: string): boolean;
}

export type RecoveryState = { count: number; state: "recovering" | "resumed" };

const key = (submissionId: string) => `agent-think:recovery:${submissionId}`;

export class RunRecoveries {
  readonly #storage: RecoveryStorage;
  constructor(storage: RecoveryStorage) {
    this.#storage = storage;
  }

  get(submissionId: string): RecoveryState | undefined {
    return this.#storage.get<RecoveryState>(key(submissionId));
  }

  /** Think took the run's turn over: one more recovery, and the event that says so. */
  interrupted(session: string, submissionId: string, at: number): RecoveryEvent {
    const count = (this.get(submissionId)?.count ?? 0) + 1;
    this.#storage.put<RecoveryState>(key(submissionId), { count, state: "recovering" });
    return { type: "recovery", session, submissionId, state: "recovering", recoveries: count, at };
  }

  /** The run's turn is running again: the event that says so, or null when no recovery waits to resume. */
  resumed(session: string, submissionId: string, at: number): RecoveryEvent | null {
    const known = this.get(submissionId);
    if (known?.state !== "recovering") return null;
    this.#storage.put<RecoveryState>(key(submissionId), { count: known.count, state: "resumed" });
    return { type: "recovery", session, submissionId, state: "resumed", recoveries: known.count, at };
  }

  forget(submissionId: string): void {
    this.#storage.delete(key(submissionId));
  }
}
