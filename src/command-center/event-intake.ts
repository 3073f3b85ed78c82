/**
 * One lifecycle event as the CommandCenterAgent takes it in (`record`,
 * `recordBatch`): parsed (a malformed one is refused and logged, never
 * thrown), a run's end counted for its month, applied to the registry, a
 * run's first end giving back its session's reporter reservation, and its
 * repository's record following its dispatch, end and first message. Pure
 * over the books handed in; the agent runs a batch in one transaction.
 * docs/command-center.md, "Events".
 */
import type { Logger } from "../run/log";
import { commandCenterEventSchema, type RecordResult, type TurnEndedEvent } from "../shared/command-center-events";
import { recordEvent } from "./registry";
import type { RegistryStore, RunRecord } from "./store";

/** The stores an event touches, each made on first use. */
export type CommandCenterBooks = {
  registry: () => RegistryStore;
  /** The monthly ledger (monthly-budget.ts): keeps a run's first end. */
  ledger: () => { recordEnd(event: TurnEndedEvent): void };
  /** The reporter reservations (reporter-reservations.ts). */
  reservations: () => { release(session: string): unknown };
  /** Each repository's record (repository-book.ts): keeps a run as its dispatch, end and first message change it. */
  repositories: () => { noteRun(run: RunRecord | undefined): void };
};

/** The events that change what a repository's record keeps of a run. */
const NOTED: ReadonlySet<string> = new Set(["dispatched", "turn-ended", "notice"]);

export function takeEvent(event: unknown, books: CommandCenterBooks, log: Logger): RecordResult {
  const parsed = commandCenterEventSchema.safeParse(event);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    log("event:invalid", { field: issue?.path.join(".") ?? "", error: issue?.message });
    return { applied: false, reason: "invalid" };
  }
  const { data } = parsed;
  // Every run's end counts for its month, its thread's current run or not (the ledger keeps the first).
  if (data.type === "turn-ended") books.ledger().recordEnd(data);
  const result = recordEvent(books.registry(), data);
  if (NOTED.has(data.type) && (result.applied || result.reason === "not_current")) {
    books.repositories().noteRun(books.registry().getRun(data.session, data.submissionId));
  }
  // A run's first end gives back its session's reservation (a reporter session has only reporter runs).
  if (data.type === "turn-ended" && (result.applied || result.reason !== "duplicate")) books.reservations().release(data.session);
  return result;
}
