/**
 * CommandCenterAgent (singleton `main`): the registry of every thread, its
 * metrics, continuation claims, the reporter tier's reservations, each
 * repository's record and the live state of read-only dashboards. A thin
 * shell: its stores live in this object's SQLite, each RPC call runs in one
 * synchronous transaction (what makes a claim atomic), and every concern is
 * a collaborator in src/command-center/. Callers: the ThinkAgent (record),
 * the service (snapshot, claims, budgets, pull requests), dashboards.
 * docs/command-center.md.
 */
import { Agent, getAgentByName, type Connection } from "agents";
import { takeEvent } from "./command-center/event-intake";
import { LiveState } from "./command-center/live-state";
import { EMPTY_METRICS } from "./command-center/metrics";
import { METRICS_MAX_AGE_MS, MetricsCache } from "./command-center/metrics-cache";
import { QuietRuns } from "./command-center/quiet-runs";
import type { QuietTruth } from "./command-center/reconcile";
import { RetentionSweep } from "./command-center/retention";
import { StaleRefresh } from "./command-center/stale-refresh";
import { parseStaleRunMs } from "./command-center/staleness";
import { claimThread, releaseClaim } from "./command-center/thread-claims";
import { GroupCommit } from "./command-center/group-commit";
import { activityOf, snapshotPage, spendOf, threadDetail } from "./command-center/snapshot";
import { MonthlySpendLedger } from "./command-center/monthly-budget";
import { SqlRegistryStore } from "./command-center/sql-store";
import { RepositoryBook } from "./command-center/repository-book";
import { REPOSITORY_RECORD_MS, repositoryRecords } from "./command-center/repository-figures";
import { createLogger } from "./run/log";
import { OneShotSchedules } from "./run/one-shot-schedule";
import { COMMAND_CENTER_NAME, gitHubContinuationSchema } from "./shared/command-center";
import type { ClaimResult, CommandCenterState, GitHubContinuation, Snapshot, SnapshotOptions, ThreadDetail } from "./shared/command-center";
import { pullRequestEventSchema, type RecordResult } from "./shared/command-center-events";
import type { RepositoryRecords } from "./shared/repository-records";
import type { MonthlySpend } from "./shared/monthly-budget";
import type { ReporterEnv, ReporterSpend, ReserveInput, ReserveResult } from "./command-center/reporter-budget";
import { ReporterReservations } from "./command-center/reporter-reservations";
import type { CommandCenter } from "./command-center/rpc";

export { COMMAND_CENTER_NAME };
export type { CommandCenter };
export { BROADCAST_INTERVAL_MS } from "./command-center/live-state";

const REPRO_GRANT_KEY = "agent-think:repro-grant-key";
/** The most events one recordBatch call takes. */
export const MAX_RECORD_BATCH = 5_000;
/** The most record() calls answered by one commit. */
export const GROUP_COMMIT_MAX = 100;

/** The command center's stub. Tests pass their own name; everything else uses the singleton. */
export async function commandCenter(
  env: Pick<Env, "CommandCenterAgent">,
  name: string = COMMAND_CENTER_NAME
): Promise<CommandCenter> {
  // Typed by the narrow interface, as the other agents are (src/service.ts).
  return (await getAgentByName(env.CommandCenterAgent, name)) as unknown as CommandCenter;
}

export class CommandCenterAgent extends Agent<Env, CommandCenterState> {
  override initialState: CommandCenterState = { metrics: EMPTY_METRICS, recent: [], total: 0, updatedAt: 0 };

  /** Seam: the stale window (`STALE_RUN_MS`). An instance property, off the RPC surface; tests swap it with runInDurableObject. */
  staleRunMs = parseStaleRunMs(this.env.STALE_RUN_MS);
  /** Seam: the clock for metrics, staleness and the broadcast. */
  clock: () => number = () => Date.now();
  /** Seam: ask a run's agent about a quiet run (reconciliation). Tests swap it with runInDurableObject. */
  askAgent: (session: string, submissionId: string) => Promise<QuietTruth> = async (session, submissionId) => {
    const agent = (await getAgentByName(this.env.ThinkAgent, session)) as unknown as {
      reconcileRun(id: string): Promise<QuietTruth>;
    };
    return agent.reconcileRun(submissionId);
  };

  /** Seam: the reporter tier's settings, read at each reservation. Tests swap it with runInDurableObject. */
  reporterEnv: ReporterEnv = this.env;

  #store: SqlRegistryStore | undefined;
  #spendLedger: MonthlySpendLedger | undefined;
  #reservations: ReporterReservations | undefined;
  #repositoryBook: RepositoryBook | undefined;
  #group = new GroupCommit<RecordResult>((events) => this.#apply(events), GROUP_COMMIT_MAX);
  readonly #oneShots = new OneShotSchedules<"refreshState">(this);
  readonly #books = { registry: () => this.#registry(), ledger: () => this.#ledger(), reservations: () => this.#reporter(), repositories: () => this.#repositories() };
  #log = createLogger({ component: "command-center" });
  readonly #metrics = new MetricsCache({ activity: (now) => activityOf(this.#registry(), now), spend: (now) => spendOf(this.#registry(), now) });
  readonly #staleRefresh = new StaleRefresh({ request: (at) => this.#oneShots.request("refreshState", at), clock: () => this.clock(), log: this.#log });
  readonly #retention = new RetentionSweep({ registry: () => this.#registry(), ledger: () => this.#ledger(), repositories: () => this.#repositories() });
  readonly #live = new LiveState({
    store: () => this.#registry(),
    metrics: this.#metrics,
    staleRunMs: () => this.staleRunMs,
    clock: () => this.clock(),
    upkeep: (now) => this.#retention.sweep(now),
    send: (state) => this.setState(state),
    wakeAt: (at) => this.#staleRefresh.schedule(at),
    log: this.#log
  });
  readonly #quiet = new QuietRuns({
    store: () => this.#registry(),
    ask: (session, submissionId) => this.askAgent(session, submissionId),
    transaction: (apply) => this.ctx.storage.transactionSync(apply),
    release: (session) => this.#reporter().release(session),
    noteEnd: (session, submissionId) => this.#repositories().noteRun(this.#registry().getRun(session, submissionId)),
    staleRunMs: () => this.staleRunMs,
    changed: () => this.#live.changed(),
    log: this.#log
  });

  override shouldConnectionBeReadonly(): boolean {
    return true;
  }

  override validateStateChange(_next: CommandCenterState, source: Connection | "server"): void {
    if (source !== "server") throw new Error("the command center's state is read-only");
  }

  /**
   * One lifecycle event from a ThinkAgent. Idempotent; a malformed event is
   * refused, never thrown. Answered once it is applied and stored, together
   * with the events that arrived alongside it (group-commit.ts).
   */
  async record(event: unknown): Promise<RecordResult> {
    return this.#group.add(event);
  }

  /** Several events in one transaction and one broadcast (seeding, benches). */
  async recordBatch(events: unknown[]): Promise<RecordResult[]> {
    if (!Array.isArray(events) || events.length > MAX_RECORD_BATCH) {
      throw new RangeError(`recordBatch takes an array of at most ${MAX_RECORD_BATCH} events`);
    }
    return this.#apply(events);
  }

  /** A page of threads, newest activity first, with the metrics. Throws SnapshotOptionsError on a bad cursor or limit. */
  async snapshot(options: SnapshotOptions = {}): Promise<Snapshot> {
    const now = this.clock();
    return snapshotPage(this.#registry(), options, now, this.staleRunMs, this.#metrics.at(now, METRICS_MAX_AGE_MS));
  }

  /** One thread and its runs, newest first (its page); null for an unknown session. */
  async threadDetail(session: string): Promise<ThreadDetail | null> {
    return typeof session === "string" ? threadDetail(this.#registry(), session, this.clock(), this.staleRunMs) : null;
  }

  /** Whether a thread exists for this session: only those are reachable from the dashboard (src/http/agent-routes.ts). */
  async hasThread(session: string): Promise<boolean> {
    return typeof session === "string" && this.#registry().getThread(session) !== undefined;
  }

  /**
   * The key the Worker signs private reproduction grants with
   * (src/repro/grant.ts): 32 random bytes, made on first use and kept, so
   * every isolate signs and checks with the same one. Needs no configuration.
   */
  async reproGrantKey(): Promise<Uint8Array> {
    return this.ctx.storage.transactionSync(() => {
      const stored = this.ctx.storage.kv.get<Uint8Array>(REPRO_GRANT_KEY);
      if (stored) return stored;
      const key = crypto.getRandomValues(new Uint8Array(32));
      this.ctx.storage.kv.put(REPRO_GRANT_KEY, key);
      return key;
    });
  }

  /**
   * Atomically claim a failed or stale thread for a continuation. See
   * registry.ts `claimThread`. A quiet thread's agent is asked first: a run
   * that ended is not offered again. `fromGitHub`: who asked on GitHub, and
   * their comment (a malformed one claims nothing).
   */
  async claimForContinuation(session: string, now: number = this.clock(), fromGitHub?: GitHubContinuation): Promise<ClaimResult> {
    if (typeof session !== "string" || !Number.isFinite(now)) return { ok: false, reason: "not_found" };
    const origin = fromGitHub === undefined ? undefined : gitHubContinuationSchema.safeParse(fromGitHub);
    if (origin && !origin.success) throw new TypeError(`fromGitHub: ${origin.error.issues[0]?.message ?? "malformed"}`);
    await this.#quiet.beforeClaim(session, now);
    const result = this.ctx.storage.transactionSync(() => {
      const claim = claimThread(this.#registry(), session, now, this.staleRunMs, origin?.data);
      // The claimed run is over (a stale one is given up): its reservation goes, and the continuation reserves its own.
      if (claim.ok) this.#reporter().release(session);
      return claim;
    });
    if (result.ok) {
      this.#log("claimed", { session, runCount: result.thread.runCount });
      this.#live.changed();
    }
    return result;
  }

  /** Give back a claim whose continuation could not be submitted; the thread shows `error` and is claimable again. */
  async releaseClaim(session: string, error?: string): Promise<{ released: boolean }> {
    const message = typeof error === "string" ? error : undefined;
    const released = this.ctx.storage.transactionSync(() =>
      releaseClaim(this.#registry(), String(session), this.clock(), message)
    );
    if (released) {
      this.#log("claim:released", { session });
      this.#live.changed();
    }
    return { released };
  }

  /**
   * The state as of now, with fresh metrics, broadcast now. Also the scheduled callback for a thread that went quiet:
   * its agent is asked first (reconciliation), then dashboards are told what it said.
   */
  async refreshState(): Promise<CommandCenterState> {
    return this.#oneShots.run("refreshState", async () => {
      this.#staleRefresh.woke();
      // More than one pass's worth: the rest a second later.
      if (await this.#quiet.pass(this.clock())) this.#staleRefresh.schedule(this.clock() + 1_000);
      return this.#live.refresh();
    });
  }

  /** One of the App's pull requests opened, merged or closed (the webhook app's `pull_request` delivery); idempotent, a malformed one refused. */
  async recordPullRequest(event: unknown): Promise<RecordResult> {
    const parsed = pullRequestEventSchema.safeParse(event);
    if (!parsed.success) {
      this.#log("pull-request:invalid", { field: parsed.error.issues[0]?.path.join(".") ?? "" });
      return { applied: false, reason: "invalid" };
    }
    return this.ctx.storage.transactionSync(() => this.#repositories().recordPullRequest(parsed.data));
  }

  /** Each repository's record over the last REPOSITORY_RECORD_DAYS (repository-figures.ts). */
  async repositories(): Promise<RepositoryRecords> {
    const now = this.clock();
    const book = this.#repositories();
    return repositoryRecords(book.runsSince(now - REPOSITORY_RECORD_MS), book.pullRequestsSince(now - REPOSITORY_RECORD_MS), now);
  }

  /** What the runs that ended this calendar month (UTC) cost: what MONTHLY_COST_BUDGET is held to. */
  async monthlySpend(): Promise<MonthlySpend> {
    return this.#ledger().spendOf(this.clock());
  }

  /** What `repo`'s reporter-tier runs that ended today (UTC) cost: what REPORTER_DAILY_BUDGET is held to. */
  async reporterSpendToday(repo: string): Promise<ReporterSpend> {
    return this.#reporter().spendToday(String(repo), this.clock());
  }

  /** Hold a place and the run's cap for a reporter run, or say why not (reporter-reservations.ts); atomic. */
  async reserveReporterRun(input: ReserveInput): Promise<ReserveResult> {
    const result = this.ctx.storage.transactionSync(() => this.#reporter().reserve(input, this.reporterEnv));
    this.#log(result.ok ? "reporter:reserved" : "reporter:refused", { session: input.session, ...(result.ok ? { usd: result.reservedUsd } : { reason: result.reason }) });
    return result;
  }

  /** Give back a session's reservation: its dispatch failed after reserving. Runs that end give theirs back by themselves. */
  async releaseReporterRun(session: string): Promise<{ released: boolean }> {
    return { released: this.ctx.storage.transactionSync(() => this.#reporter().release(String(session))) };
  }

  #apply(events: readonly unknown[]): RecordResult[] {
    const results = this.ctx.storage.transactionSync(() => events.map((event) => takeEvent(event, this.#books, this.#log)));
    if (results.some((result) => result.applied)) this.#live.changed();
    return results;
  }

  #registry(): SqlRegistryStore {
    this.#store ??= new SqlRegistryStore(this.ctx.storage.sql);
    return this.#store;
  }

  /** After the registry: a new ledger takes the ended runs cc_runs keeps. */
  #ledger(): MonthlySpendLedger {
    this.#registry();
    this.#spendLedger ??= new MonthlySpendLedger(this.ctx.storage.sql);
    return this.#spendLedger;
  }

  /** After the registry: a new book takes the runs cc_runs keeps. */
  #repositories(): RepositoryBook {
    this.#registry();
    this.#repositoryBook ??= new RepositoryBook(this.ctx.storage.sql);
    return this.#repositoryBook;
  }

  #reporter(): ReporterReservations {
    this.#reservations ??= new ReporterReservations(this.ctx.storage.sql, this.#registry());
    return this.#reservations;
  }
}
