/**
 * The command center's spend per calendar month (UTC), which
 * MONTHLY_COST_BUDGET is held to: one row per ended run in `cc_budget_runs`
 * (docs/storage.md), so a run's end counts once however often its event
 * arrives, and the month outlives the week `cc_runs` keeps. The
 * CommandCenterAgent records each `turn-ended` here in the same transaction
 * as the registry; the first time the table is made it takes the runs
 * `cc_runs` still holds. Exercised by the Workers-runtime tests.
 */
import type { Cost } from "../shared/command-center";
import { monthOf, type MonthlySpend } from "../shared/monthly-budget";
import type { SqlExec } from "./sql-store";

/** Months kept: this one and the one before (what an operator may still ask about). */
export const BUDGET_MONTHS_KEPT = 2;

const TABLE = "cc_budget_runs";

export class MonthlySpendLedger {
  readonly #sql: SqlExec;

  constructor(sql: SqlExec) {
    this.#sql = sql;
    const [existing] = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?", TABLE).toArray();
    sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      session TEXT NOT NULL,
      submission_id TEXT NOT NULL,
      month TEXT NOT NULL,
      ended_at REAL NOT NULL,
      usd REAL NOT NULL,
      complete INTEGER NOT NULL,
      PRIMARY KEY (session, submission_id)
    )`);
    sql.exec(`CREATE INDEX IF NOT EXISTS ${TABLE}_by_month ON ${TABLE} (month)`);
    if ((existing?.n ?? 0) === 0) this.#takeKeptRuns();
  }

  /** A run ended at `at` having cost `cost` (absent: unknown, so the month's total becomes a floor). The first end of a run counts; later ones change nothing. */
  recordEnd(end: { session: string; submissionId: string; at: number; cost?: Cost }): void {
    this.#sql.exec(
      `INSERT OR IGNORE INTO ${TABLE} (session, submission_id, month, ended_at, usd, complete) VALUES (?, ?, ?, ?, ?, ?)`,
      end.session,
      end.submissionId,
      monthOf(end.at),
      end.at,
      end.cost?.usd ?? 0,
      end.cost?.complete ? 1 : 0
    );
  }

  /** What the runs that ended in `at`'s month cost. */
  spendOf(at: number): MonthlySpend {
    const month = monthOf(at);
    const [row] = this.#sql
      .exec<{ usd: number; complete: number }>(
        `SELECT COALESCE(SUM(usd), 0) AS usd, COALESCE(MIN(complete), 1) AS complete FROM ${TABLE} WHERE month = ?`,
        month
      )
      .toArray();
    return { month, spent: { usd: row?.usd ?? 0, complete: (row?.complete ?? 1) === 1 } };
  }

  /** Forget the months before the ones kept. */
  prune(now: number): void {
    const date = new Date(now);
    const oldest = monthOf(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - (BUDGET_MONTHS_KEPT - 1), 1));
    this.#sql.exec(`DELETE FROM ${TABLE} WHERE month < ?`, oldest);
  }

  /** A deploy that had no ledger yet: the ended runs `cc_runs` still keeps count for their months. */
  #takeKeptRuns(): void {
    this.#sql.exec(
      `INSERT OR IGNORE INTO ${TABLE} (session, submission_id, month, ended_at, usd, complete)
       SELECT session, submission_id,
              strftime('%Y-%m', json_extract(data, '$.endedAt') / 1000, 'unixepoch'),
              json_extract(data, '$.endedAt'),
              COALESCE(json_extract(data, '$.cost.usd'), 0),
              COALESCE(json_extract(data, '$.cost.complete'), 0)
       FROM cc_runs WHERE json_extract(data, '$.endedAt') IS NOT NULL`
    );
  }
}
