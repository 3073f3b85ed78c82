/**
 * The reporter tier's places and money as the CommandCenterAgent keeps them:
 * one reservation per reporter run dispatched and not yet ended, in
 * `cc_reporter_reservations` (docs/storage.md), judged with today's ended
 * reporter runs from the registry by reporter-budget.ts's rule. Every
 * method is synchronous: the Durable Object runs each in one transaction,
 * so two reservations can never both take the last place. It does not read
 * the env or the clock: the caller passes both. Tested in the Workers runtime.
 */
import { dayOf } from "../shared/reporter-budget";
import { decideReservation, RESERVATION_MAX_AGE_MS, reporterLimits, type ReporterEnv, type ReporterSpend, type Reservation, type ReserveInput, type ReserveResult } from "./reporter-budget";
import type { SqlExec } from "./sql-store";
import type { RegistryStore } from "./store";

const TABLE = "cc_reporter_reservations";

export class ReporterReservations {
  readonly #sql: SqlExec;
  readonly #registry: Pick<RegistryStore, "reporterSpendSince">;

  /** After the registry's store: today's spend is read from its `cc_runs`. */
  constructor(sql: SqlExec, registry: Pick<RegistryStore, "reporterSpendSince">) {
    this.#sql = sql;
    this.#registry = registry;
    sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      session TEXT PRIMARY KEY,
      repo TEXT NOT NULL,
      usd REAL NOT NULL,
      at REAL NOT NULL
    )`);
    sql.exec(`CREATE INDEX IF NOT EXISTS ${TABLE}_by_repo ON ${TABLE} (repo)`);
  }

  /** What `repo`'s reporter runs that ended on `now`'s UTC day cost (the repository in any case). */
  spendToday(repo: string, now: number): ReporterSpend {
    const midnight = new Date(now);
    midnight.setUTCHours(0, 0, 0, 0);
    const row = this.#registry.reporterSpendSince(midnight.getTime()).find((entry) => entry.repo === repo.toLowerCase());
    return { day: dayOf(now), runs: row?.runs ?? 0, spent: row?.cost ?? { usd: 0, complete: true } };
  }

  /**
   * Hold a place and the run's cap for `session` in `repo`, or say why not.
   * Reservations older than RESERVATION_MAX_AGE_MS are dropped first. A
   * malformed input throws and changes nothing.
   */
  reserve(input: ReserveInput, env: ReporterEnv): ReserveResult {
    const { repo, session, now } = checked(input);
    this.#sql.exec(`DELETE FROM ${TABLE} WHERE at < ?`, now - RESERVATION_MAX_AGE_MS);
    const key = repo.toLowerCase();
    const [holds] = this.#sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${TABLE} WHERE session = ?`, session).toArray();
    const decision = decideReservation({
      limits: reporterLimits(env),
      repo,
      session,
      sessionHeld: (holds?.n ?? 0) > 0,
      held: this.held(key),
      spend: this.spendToday(key, now)
    });
    if (decision.ok) {
      this.#sql.exec(`INSERT INTO ${TABLE} (session, repo, usd, at) VALUES (?, ?, ?, ?)`, session, key, decision.reservedUsd, now);
    }
    return decision;
  }

  /** Drop `session`'s reservation: its run ended, or its dispatch failed. False when it held none. */
  release(session: string): boolean {
    const cursor = this.#sql.exec(`DELETE FROM ${TABLE} WHERE session = ?`, session);
    cursor.toArray();
    return cursor.rowsWritten > 0;
  }

  /** The reservations held, a repository's (lowercased) or all, oldest first. */
  held(repo?: string): Reservation[] {
    const rows = repo === undefined
      ? this.#sql.exec<Reservation>(`SELECT repo, session, usd, at FROM ${TABLE} ORDER BY at, session`)
      : this.#sql.exec<Reservation>(`SELECT repo, session, usd, at FROM ${TABLE} WHERE repo = ? ORDER BY at, session`, repo);
    return rows.toArray().map((row) => ({ repo: row.repo, session: row.session, usd: row.usd, at: row.at }));
  }
}

function checked(input: ReserveInput): ReserveInput {
  const { repo, session, now } = (input ?? {}) as Partial<ReserveInput>;
  if (typeof repo !== "string" || !/^[^/\s]+\/[^/\s]+$/.test(repo)) throw new TypeError("reserveReporterRun: repo must be owner/name");
  if (typeof session !== "string" || session.trim() === "") throw new TypeError("reserveReporterRun: session must be a session name");
  if (typeof now !== "number" || !Number.isFinite(now)) throw new TypeError("reserveReporterRun: now must be a time in milliseconds");
  return { repo, session, now };
}
