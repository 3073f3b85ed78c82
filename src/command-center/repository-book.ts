/**
 * Each repository's record in the CommandCenterAgent's SQLite, kept
 * REPOSITORY_RECORD_DAYS (docs/storage.md): `cc_repo_runs`, one row per
 * dispatched run, copied from its run record whenever its dispatch, end or
 * first message changes it (so it outlives the week `cc_runs` keeps), and
 * `cc_pull_requests`, one row per pull request of the App's, its latest
 * state. Made on first use from the runs `cc_runs` still holds. The figures
 * are repository-figures.ts's. Exercised by the Workers-runtime tests.
 */
import type { PullRequestEvent, RecordResult } from "../shared/command-center-events";
import type { PullRequestRow, RepoRunRow } from "./repository-figures";
import type { SqlExec } from "./sql-store";
import type { RunRecord } from "./store";

const RUNS = "cc_repo_runs";
const PULLS = "cc_pull_requests";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS ${RUNS} (
     session TEXT NOT NULL,
     submission_id TEXT NOT NULL,
     repo TEXT NOT NULL,
     repo_key TEXT NOT NULL,
     dispatched_at REAL NOT NULL,
     ended_at REAL,
     status TEXT,
     outcome TEXT,
     usd REAL,
     complete INTEGER,
     first_message_at REAL,
     PRIMARY KEY (session, submission_id)
   )`,
  `CREATE INDEX IF NOT EXISTS ${RUNS}_by_dispatch ON ${RUNS} (dispatched_at)`,
  `CREATE TABLE IF NOT EXISTS ${PULLS} (
     repo_key TEXT NOT NULL,
     number INTEGER NOT NULL,
     repo TEXT NOT NULL,
     issue_number INTEGER NOT NULL,
     state TEXT NOT NULL,
     opened_at REAL NOT NULL,
     at REAL NOT NULL,
     PRIMARY KEY (repo_key, number)
   )`,
  `CREATE INDEX IF NOT EXISTS ${PULLS}_by_at ON ${PULLS} (at)`
];

type RunRow = {
  repo: string;
  dispatched_at: number;
  ended_at: number | null;
  status: string | null;
  outcome: string | null;
  usd: number | null;
  complete: number | null;
  first_message_at: number | null;
};
type PullRow = { repo: string; number: number; state: string; opened_at: number; at: number };

export class RepositoryBook {
  readonly #sql: SqlExec;

  /** Needs `cc_runs` (the registry's store) made first: a new book takes the runs it holds. */
  constructor(sql: SqlExec) {
    this.#sql = sql;
    const [existing] = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?", RUNS).toArray();
    for (const statement of SCHEMA) sql.exec(statement);
    if ((existing?.n ?? 0) === 0) this.#takeKeptRuns();
  }

  /**
   * The run's row, as its record now stands; a run whose dispatch has not
   * arrived has none yet. What the record lacks (a run rebuilt from its
   * thread after retention has no cost) keeps what the row had.
   */
  noteRun(run: RunRecord | undefined): void {
    if (run?.repo === undefined || run.dispatchedAt === undefined) return;
    this.#sql.exec(
      `INSERT INTO ${RUNS} (session, submission_id, repo, repo_key, dispatched_at, ended_at, status, outcome, usd, complete, first_message_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session, submission_id) DO UPDATE SET
         repo = excluded.repo,
         repo_key = excluded.repo_key,
         dispatched_at = excluded.dispatched_at,
         ended_at = COALESCE(excluded.ended_at, ${RUNS}.ended_at),
         status = COALESCE(excluded.status, ${RUNS}.status),
         outcome = COALESCE(excluded.outcome, ${RUNS}.outcome),
         usd = COALESCE(excluded.usd, ${RUNS}.usd),
         complete = COALESCE(excluded.complete, ${RUNS}.complete),
         first_message_at = MIN(COALESCE(excluded.first_message_at, ${RUNS}.first_message_at), COALESCE(${RUNS}.first_message_at, excluded.first_message_at))`,
      run.session,
      run.submissionId,
      run.repo,
      run.repo.toLowerCase(),
      run.dispatchedAt,
      run.endedAt ?? null,
      run.endedAt === undefined ? null : (run.status ?? null),
      run.outcome ?? null,
      run.cost?.usd ?? null,
      run.cost === undefined ? null : run.cost.complete ? 1 : 0,
      run.firstMessageAt ?? null
    );
  }

  /**
   * One of the App's pull requests changed. The latest state by `at` wins,
   * except that a merge is for good; the earliest `openedAt` is kept. The
   * same change again, or an older one, is a `duplicate`.
   */
  recordPullRequest(event: PullRequestEvent): RecordResult {
    const key = event.repo.toLowerCase();
    const [known] = this.#sql
      .exec<PullRow>(`SELECT repo, number, state, opened_at, at FROM ${PULLS} WHERE repo_key = ? AND number = ?`, key, event.number)
      .toArray();
    if (known === undefined) {
      this.#sql.exec(
        `INSERT INTO ${PULLS} (repo_key, number, repo, issue_number, state, opened_at, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        key,
        event.number,
        event.repo,
        event.issueNumber,
        event.state,
        event.openedAt,
        event.at
      );
      return { applied: true };
    }
    const replaces = known.state !== "merged" && (event.state === "merged" || event.at > known.at);
    const openedAt = Math.min(known.opened_at, event.openedAt);
    if (!replaces && openedAt === known.opened_at) return { applied: false, reason: "duplicate" };
    this.#sql.exec(
      `UPDATE ${PULLS} SET state = ?, at = ?, opened_at = ? WHERE repo_key = ? AND number = ?`,
      replaces ? event.state : known.state,
      replaces ? event.at : known.at,
      openedAt,
      key,
      event.number
    );
    return { applied: true };
  }

  /** The runs dispatched at or after `since`. */
  runsSince(since: number): RepoRunRow[] {
    return this.#sql
      .exec<RunRow>(
        `SELECT repo, dispatched_at, ended_at, status, outcome, usd, complete, first_message_at FROM ${RUNS}
         WHERE dispatched_at >= ? ORDER BY dispatched_at`,
        since
      )
      .toArray()
      .map((row) => ({
        repo: row.repo,
        dispatchedAt: row.dispatched_at,
        ...(row.ended_at === null ? {} : { endedAt: row.ended_at }),
        ...(row.status === null ? {} : { status: row.status }),
        ...(row.outcome === null ? {} : { outcome: row.outcome }),
        ...(row.usd === null || row.complete === null ? {} : { cost: { usd: row.usd, complete: row.complete === 1 } }),
        ...(row.first_message_at === null ? {} : { firstMessageAt: row.first_message_at })
      }));
  }

  /** The pull requests opened, or changed, at or after `since`. */
  pullRequestsSince(since: number): PullRequestRow[] {
    return this.#sql
      .exec<PullRow>(`SELECT repo, number, state, opened_at, at FROM ${PULLS} WHERE at >= ?1 OR opened_at >= ?1`, since)
      .toArray()
      .map((row) => ({ repo: row.repo, number: row.number, state: row.state, openedAt: row.opened_at, at: row.at }));
  }

  /** Forget runs dispatched, and pull requests last changed and opened, before `before`. */
  prune(before: number): void {
    this.#sql.exec(`DELETE FROM ${RUNS} WHERE dispatched_at < ?`, before);
    this.#sql.exec(`DELETE FROM ${PULLS} WHERE at < ?1 AND opened_at < ?1`, before);
  }

  /** A deploy that had no record yet: the dispatched runs `cc_runs` still keeps. */
  #takeKeptRuns(): void {
    this.#sql.exec(
      `INSERT OR IGNORE INTO ${RUNS} (session, submission_id, repo, repo_key, dispatched_at, ended_at, status, outcome, usd, complete, first_message_at)
       SELECT session, submission_id,
              json_extract(data, '$.repo'), lower(json_extract(data, '$.repo')),
              json_extract(data, '$.dispatchedAt'), json_extract(data, '$.endedAt'),
              CASE WHEN json_extract(data, '$.endedAt') IS NULL THEN NULL ELSE json_extract(data, '$.status') END,
              json_extract(data, '$.outcome'),
              json_extract(data, '$.cost.usd'), json_extract(data, '$.cost.complete'),
              json_extract(data, '$.firstMessageAt')
       FROM cc_runs WHERE json_extract(data, '$.repo') IS NOT NULL AND json_extract(data, '$.dispatchedAt') IS NOT NULL`
    );
  }
}
