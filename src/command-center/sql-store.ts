/**
 * The registry's store in the CommandCenterAgent's SQLite (`ctx.storage.sql`).
 * Tables, all prefixed `cc_` (docs/storage.md):
 *   cc_threads     one row per session, the ThreadRecord as JSON, indexed by last activity
 *                  (and, for the active ones only, by last activity again: reconciliation)
 *   cc_runs        one row per (session, submission), the RunRecord as JSON, indexed by touched_at
 *   cc_tool_calls  one row per reported tool call: the dedupe key, its time and outcome
 * Takes only the `exec` it needs, so it imports nothing from the runtime;
 * exercised by the Workers-runtime tests.
 */
import type { RegistryStore, RunRecord, Spend, ThreadCursor, ThreadRecord } from "./store";

type SqlValue = ArrayBuffer | string | number | null;

/** The part of `SqlStorage` this store uses. */
export interface SqlExec {
  exec<T extends Record<string, SqlValue>>(query: string, ...bindings: unknown[]): { toArray(): T[]; readonly rowsWritten: number };
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS cc_threads (
     session TEXT PRIMARY KEY,
     last_activity_at REAL NOT NULL,
     data TEXT NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS cc_threads_by_activity ON cc_threads (last_activity_at DESC, session DESC)`,
  // Only the active threads, for reconciliation (quietActiveThreads); the expression must match its query's.
  `CREATE INDEX IF NOT EXISTS cc_threads_active ON cc_threads (last_activity_at)
     WHERE json_extract(data, '$.status') IN ('running', 'recovering')`,
  `CREATE TABLE IF NOT EXISTS cc_runs (
     session TEXT NOT NULL,
     submission_id TEXT NOT NULL,
     touched_at REAL NOT NULL,
     data TEXT NOT NULL,
     PRIMARY KEY (session, submission_id)
   )`,
  `CREATE INDEX IF NOT EXISTS cc_runs_by_touched ON cc_runs (touched_at)`,
  `CREATE TABLE IF NOT EXISTS cc_tool_calls (
     session TEXT NOT NULL,
     submission_id TEXT NOT NULL,
     call_key TEXT NOT NULL,
     at REAL NOT NULL,
     ok INTEGER NOT NULL,
     PRIMARY KEY (session, submission_id, call_key)
   )`,
  `CREATE INDEX IF NOT EXISTS cc_tool_calls_by_at ON cc_tool_calls (at)`
];

export class SqlRegistryStore implements RegistryStore {
  readonly #sql: SqlExec;

  constructor(sql: SqlExec) {
    this.#sql = sql;
    for (const statement of SCHEMA) sql.exec(statement);
  }

  getThread(session: string): ThreadRecord | undefined {
    const [row] = this.#sql.exec<{ data: string }>("SELECT data FROM cc_threads WHERE session = ?", session).toArray();
    return row ? (JSON.parse(row.data) as ThreadRecord) : undefined;
  }

  putThread(thread: ThreadRecord): void {
    this.#sql.exec(
      `INSERT INTO cc_threads (session, last_activity_at, data) VALUES (?, ?, ?)
       ON CONFLICT (session) DO UPDATE SET last_activity_at = excluded.last_activity_at, data = excluded.data`,
      thread.session,
      thread.lastActivityAt,
      JSON.stringify(thread)
    );
  }

  quietActiveThreads(before: number, limit: number): ThreadRecord[] {
    return this.#sql
      .exec<{ data: string }>(
        `SELECT data FROM cc_threads
         WHERE json_extract(data, '$.status') IN ('running', 'recovering') AND last_activity_at < ?
         ORDER BY last_activity_at, session LIMIT ?`,
        before,
        limit
      )
      .toArray()
      .map((row) => JSON.parse(row.data) as ThreadRecord);
  }

  quietestUnsettled(now: number, staleRunMs: number): ThreadRecord | undefined {
    // staleness.ts isStale, in SQL: quiet, and claimed or asked after it went quiet.
    const [row] = this.#sql
      .exec<{ data: string }>(
        `SELECT data FROM cc_threads
         WHERE json_extract(data, '$.status') IN ('running', 'recovering')
           AND NOT (last_activity_at < ? AND (json_extract(data, '$.claim') IS NOT NULL
                    OR COALESCE(json_extract(data, '$.quietCheckedAt'), 0) > last_activity_at + ?))
         ORDER BY last_activity_at, session LIMIT 1`,
        now - staleRunMs,
        staleRunMs
      )
      .toArray();
    return row ? (JSON.parse(row.data) as ThreadRecord) : undefined;
  }

  pageThreads(after: ThreadCursor | undefined, limit: number): ThreadRecord[] {
    const rows = after
      ? this.#sql.exec<{ data: string }>(
          `SELECT data FROM cc_threads WHERE (last_activity_at, session) < (?, ?)
           ORDER BY last_activity_at DESC, session DESC LIMIT ?`,
          after.lastActivityAt,
          after.session,
          limit
        )
      : this.#sql.exec<{ data: string }>(
          "SELECT data FROM cc_threads ORDER BY last_activity_at DESC, session DESC LIMIT ?",
          limit
        );
    return rows.toArray().map((row) => JSON.parse(row.data) as ThreadRecord);
  }

  countThreads(): number {
    const [row] = this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM cc_threads").toArray();
    return row?.n ?? 0;
  }

  getRun(session: string, submissionId: string): RunRecord | undefined {
    const [row] = this.#sql
      .exec<{ data: string }>("SELECT data FROM cc_runs WHERE session = ? AND submission_id = ?", session, submissionId)
      .toArray();
    return row ? (JSON.parse(row.data) as RunRecord) : undefined;
  }

  putRun(run: RunRecord): void {
    this.#sql.exec(
      `INSERT INTO cc_runs (session, submission_id, touched_at, data) VALUES (?, ?, ?, ?)
       ON CONFLICT (session, submission_id) DO UPDATE SET touched_at = excluded.touched_at, data = excluded.data`,
      run.session,
      run.submissionId,
      run.touchedAt,
      JSON.stringify(run)
    );
  }

  runsTouchedSince(since: number): RunRecord[] {
    return this.#sql
      .exec<{ data: string }>("SELECT data FROM cc_runs WHERE touched_at >= ?", since)
      .toArray()
      .map((row) => JSON.parse(row.data) as RunRecord);
  }

  addToolCall(call: { session: string; submissionId: string; key: string; at: number; ok: boolean }): boolean {
    const cursor = this.#sql.exec(
      "INSERT OR IGNORE INTO cc_tool_calls (session, submission_id, call_key, at, ok) VALUES (?, ?, ?, ?, ?)",
      call.session,
      call.submissionId,
      call.key,
      call.at,
      call.ok ? 1 : 0
    );
    cursor.toArray();
    return cursor.rowsWritten > 0;
  }

  toolCallStats(since: number): { calls: number; errors: number } {
    const [row] = this.#sql
      .exec<{ calls: number; errors: number | null }>(
        "SELECT COUNT(*) AS calls, SUM(1 - ok) AS errors FROM cc_tool_calls WHERE at >= ?",
        since
      )
      .toArray();
    return { calls: row?.calls ?? 0, errors: row?.errors ?? 0 };
  }

  runsOf(session: string): RunRecord[] {
    return this.#sql
      .exec<{ data: string }>("SELECT data FROM cc_runs WHERE session = ?", session)
      .toArray()
      .map((row) => JSON.parse(row.data) as RunRecord);
  }

  spendSince(since: number, top: number): Spend {
    // A run ends after it is touched, so touched_at (indexed) bounds the scan; a run without a cost is unknown (complete 0).
    const ended = `FROM cc_runs WHERE touched_at >= ?1 AND json_extract(data, '$.endedAt') >= ?1`;
    const usd = `COALESCE(SUM(json_extract(data, '$.cost.usd')), 0)`;
    const complete = `COALESCE(MIN(COALESCE(json_extract(data, '$.cost.complete'), 0)), 1)`;
    const [total] = this.#sql.exec<{ usd: number; complete: number }>(`SELECT ${usd} AS usd, ${complete} AS complete ${ended}`, since).toArray();
    if (top <= 0) return { total: { usd: total?.usd ?? 0, complete: (total?.complete ?? 1) === 1 }, byRepo: [], costliest: [] };
    const byRepo = this.#sql
      .exec<{ repo: string; runs: number; usd: number; complete: number }>(
        `SELECT json_extract(data, '$.repo') AS repo, COUNT(*) AS runs, ${usd} AS usd, ${complete} AS complete ${ended}
         AND json_extract(data, '$.repo') IS NOT NULL GROUP BY repo ORDER BY usd DESC, repo LIMIT ?2`,
        since,
        top
      )
      .toArray()
      .map((row) => ({ repo: row.repo, runs: row.runs, cost: { usd: row.usd, complete: row.complete === 1 } }));
    const costliest = this.#sql
      .exec<{ data: string }>(
        `SELECT data ${ended} AND json_extract(data, '$.cost.usd') > 0 ORDER BY json_extract(data, '$.cost.usd') DESC LIMIT ?2`,
        since,
        top
      )
      .toArray()
      .map((row) => JSON.parse(row.data) as RunRecord);
    return { total: { usd: total?.usd ?? 0, complete: (total?.complete ?? 1) === 1 }, byRepo, costliest };
  }

  reporterSpendSince(since: number): Spend["byRepo"] {
    // Every reporter-tier run that ended in the window, its dispatch and its end in whichever order they arrived (both are on the run's record).
    return this.#sql
      .exec<{ repo: string; runs: number; usd: number; complete: number }>(
        `SELECT lower(json_extract(data, '$.repo')) AS repo, COUNT(*) AS runs,
                COALESCE(SUM(json_extract(data, '$.cost.usd')), 0) AS usd,
                COALESCE(MIN(COALESCE(json_extract(data, '$.cost.complete'), 0)), 1) AS complete
         FROM cc_runs WHERE touched_at >= ?1 AND json_extract(data, '$.endedAt') >= ?1
         AND json_extract(data, '$.tier') = 'reporter' AND json_extract(data, '$.repo') IS NOT NULL
         GROUP BY repo ORDER BY usd DESC, repo`,
        since
      )
      .toArray()
      .map((row) => ({ repo: row.repo, runs: row.runs, cost: { usd: row.usd, complete: row.complete === 1 } }));
  }

  prune(runsBefore: number, toolCallsBefore: number): void {
    this.#sql.exec("DELETE FROM cc_runs WHERE touched_at < ?", runsBefore);
    this.#sql.exec("DELETE FROM cc_tool_calls WHERE at < ?", toolCallsBefore);
  }
}
