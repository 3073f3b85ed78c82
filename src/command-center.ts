/**
 * CommandCenterAgent (singleton `main`): the registry of every thread, the
 * metrics across them, continuation claims, the reporter tier's
 * reservations, and the bounded state synced live to dashboards (read-only
 * sockets). A thin shell: the rules are in src/command-center/ over stores
 * in this object's SQLite, each RPC call inside one synchronous transaction
 * (what makes a claim or a reservation atomic). Callers: the ThinkAgent
 * (record, recordBatch), the service (snapshot, claims, monthlySpend,
 * reserveReporterRun, releaseReporterRun), dashboards. It never blocks or
 * fails a run. See docs/command-center.md.
 */
import { Agent, getAgentByName, type Connection } from "agents";
import { boundedState, nextStaleAt } from "./command-center/broadcast";
import { EMPTY_METRICS, METRICS_WINDOW_MS, SPEND_WINDOW_MS } from "./command-center/metrics";
import { recordEvent } from "./command-center/registry";
import { parseStaleRunMs, toSummary } from "./command-center/staleness";
import { claimThread, releaseClaim } from "./command-center/thread-claims";
import { askWithin, needsQuietCheck, settleQuiet, type QuietTruth } from "./command-center/reconcile";
import { GroupCommit } from "./command-center/group-commit";
import { activityOf, snapshotPage, spendOf, threadDetail, type SpendMetrics } from "./command-center/snapshot";
import { MonthlySpendLedger } from "./command-center/monthly-budget";
import { SqlRegistryStore } from "./command-center/sql-store";
import type { ThreadRecord } from "./command-center/store";
import { createLogger } from "./run/log";
import { OneShotSchedules } from "./run/one-shot-schedule";
import { COMMAND_CENTER_NAME, commandCenterEventSchema, gitHubContinuationSchema, MAX_RECENT_THREADS } from "./shared/command-center";
import type { ClaimResult, CommandCenterState, GitHubContinuation, Metrics, RecordResult, Snapshot, SnapshotOptions, ThreadDetail } from "./shared/command-center";
import type { MonthlySpend } from "./shared/monthly-budget";
import type { ReporterEnv, ReporterSpend, ReserveInput, ReserveResult } from "./command-center/reporter-budget";
import { ReporterReservations } from "./command-center/reporter-reservations";
import type { CommandCenter } from "./command-center/rpc";

export { COMMAND_CENTER_NAME };
export type { CommandCenter };

/**
 * At most one broadcast per this many milliseconds, whatever asks for one; a
 * change waits at most this long to be seen. 300 rather than 250 keeps any
 * one second of a dashboard's frames at 4 or fewer despite the network's jitter.
 */
export const BROADCAST_INTERVAL_MS = 300;
/**
 * The metrics read every run of the last 24 hours (about 20 ms with a few
 * thousand runs): a broadcast or a snapshot reuses them for this long.
 */
export const METRICS_MAX_AGE_MS = 1_000;
/** Spend scans a week of runs: kept this long between broadcasts (a `refreshState` recomputes it). */
export const SPEND_MAX_AGE_MS = 10_000;
/** Runs and tool calls are kept an hour past the metrics window, then pruned (hourly). */
const RETENTION_MS = METRICS_WINDOW_MS + 60 * 60 * 1000;
/** Runs are kept for the week of spend and the thread pages' run lists, and a day more. */
const RUN_RETENTION_MS = SPEND_WINDOW_MS + METRICS_WINDOW_MS;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const REPRO_GRANT_KEY = "agent-think:repro-grant-key";
/** The most events one recordBatch call takes. */
export const MAX_RECORD_BATCH = 5_000;
/** The most record() calls answered by one commit. */
export const GROUP_COMMIT_MAX = 100;
/** How long an agent has to answer about a quiet run before it counts as unreachable. */
export const RECONCILE_TIMEOUT_MS = 10_000;
/** Quiet threads asked about per pass; more wait for the next pass, a second later. */
export const RECONCILE_BATCH = 25;
/** Quiet threads read per reconciliation pass. */
const QUIET_SCAN_LIMIT = 500;

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
  #group = new GroupCommit<RecordResult>((events) => this.#apply(events), GROUP_COMMIT_MAX);
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #lastBroadcastAt = 0;
  /** The latest metrics and when they were computed (the clock's time). */
  #metrics: { at: number; metrics: Metrics } | undefined;
  #spend: { at: number; spend: SpendMetrics } | undefined;
  /** Something changed since the kept metrics were computed: a broadcast that reused them is followed by one with fresh ones. */
  #metricsDirty = true;
  #lastPruneAt = 0;
  #staleRefreshAt: number | undefined;
  readonly #oneShots = new OneShotSchedules<"refreshState">(this);
  #log = createLogger({ component: "command-center" });

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
    return snapshotPage(this.#registry(), options, now, this.staleRunMs, this.#metricsAt(now, METRICS_MAX_AGE_MS));
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
    const thread = this.#registry().getThread(session);
    if (thread && needsQuietCheck(thread, now, this.staleRunMs)) await this.#reconcile([thread], now);
    const result = this.ctx.storage.transactionSync(() => {
      const claim = claimThread(this.#registry(), session, now, this.staleRunMs, origin?.data);
      // The claimed run is over (a stale one is given up): its reservation goes, and the continuation reserves its own.
      if (claim.ok) this.#reporter().release(session);
      return claim;
    });
    if (result.ok) {
      this.#log("claimed", { session, runCount: result.thread.runCount });
      this.#stateChanged();
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
      this.#stateChanged();
    }
    return { released };
  }

  /**
   * The state as of now, with fresh metrics, broadcast now. Also the scheduled callback for a thread that went quiet:
   * its agent is asked first (reconciliation), then dashboards are told what it said.
   */
  async refreshState(): Promise<CommandCenterState> {
    return this.#oneShots.run("refreshState", async () => {
      this.#staleRefreshAt = undefined;
      const now = this.clock();
      const quiet = this.#registry()
        .quietActiveThreads(now - this.staleRunMs, QUIET_SCAN_LIMIT)
        .filter((thread) => needsQuietCheck(thread, now, this.staleRunMs));
      await this.#reconcile(quiet.slice(0, RECONCILE_BATCH), now);
      // More than one pass's worth: the rest a second later.
      if (quiet.length > RECONCILE_BATCH) this.#scheduleStaleRefresh(this.clock() + 1_000);
      return this.#flush({ metricsMaxAgeMs: 0, now: true });
    });
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

  /** Ask each thread's agent how its run stands and apply the answers; an agent that does not answer in time is unreachable. */
  async #reconcile(threads: readonly ThreadRecord[], now: number): Promise<void> {
    if (threads.length === 0) return;
    const answers = await Promise.all(
      threads.map(async (thread) => ({ thread, truth: await askWithin(() => this.askAgent(thread.session, thread.submissionId), RECONCILE_TIMEOUT_MS) }))
    );
    const changed = this.ctx.storage.transactionSync(() =>
      answers.filter(({ thread, truth }) => {
        const settled = settleQuiet(this.#registry(), thread.session, thread.submissionId, truth, now, this.staleRunMs);
        // An end learnt by asking is an end: the run's reservation goes with it.
        if (settled && (truth.kind === "ended" || truth.kind === "missing")) this.#reporter().release(thread.session);
        return settled;
      })
    );
    for (const { thread, truth } of changed) {
      this.#log("reconciled", { session: thread.session, submissionId: thread.submissionId, truth: truth.kind, ...(truth.kind === "unreachable" ? { error: truth.error } : {}) });
    }
    if (changed.length > 0) this.#stateChanged();
  }

  #apply(events: readonly unknown[]): RecordResult[] {
    const store = this.#registry();
    const results = this.ctx.storage.transactionSync(() =>
      events.map((event): RecordResult => {
        const parsed = commandCenterEventSchema.safeParse(event);
        if (parsed.success) {
          const { data } = parsed;
          // Every run's end counts for its month, its thread's current run or not (the ledger keeps the first).
          if (data.type === "turn-ended") this.#ledger().recordEnd(data);
          const result = recordEvent(store, data);
          // A run's first end gives back its session's reservation (a reporter session has only reporter runs).
          if (data.type === "turn-ended" && (result.applied || result.reason !== "duplicate")) this.#reporter().release(data.session);
          return result;
        }
        const issue = parsed.error.issues[0];
        this.#log("event:invalid", { field: issue?.path.join(".") ?? "", error: issue?.message });
        return { applied: false, reason: "invalid" };
      })
    );
    if (results.some((result) => result.applied)) this.#stateChanged();
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

  #reporter(): ReporterReservations {
    this.#reservations ??= new ReporterReservations(this.ctx.storage.sql, this.#registry());
    return this.#reservations;
  }

  /** Something changed: broadcast at once if the last broadcast is old enough, else once the interval has passed. */
  #stateChanged(): void {
    this.#metricsDirty = true;
    this.#scheduleBroadcast();
  }

  #scheduleBroadcast(): void {
    const wait = this.#lastBroadcastAt + BROADCAST_INTERVAL_MS - Date.now();
    // Due now: at once, even with a timer pending (a thread flooded with calls runs its timers late).
    if (wait <= 0) {
      this.#flushSafely();
      return;
    }
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      this.#flushSafely();
    }, wait);
  }

  #flushSafely(): void {
    try {
      this.#flush({ metricsMaxAgeMs: METRICS_MAX_AGE_MS, now: false });
    } catch (error) {
      this.#log("broadcast:failed", { error: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * The state as of now (metrics at most `metricsMaxAgeMs` old), broadcast
   * now if asked to (`refreshState`) or if the last broadcast is at least
   * the interval old, else by the pending timer; and the wake-up for the next
   * thread to go quiet.
   */
  #flush({ metricsMaxAgeMs, now: broadcastNow }: { metricsMaxAgeMs: number; now: boolean }): CommandCenterState {
    const now = this.clock();
    const store = this.#registry();
    if (now - this.#lastPruneAt > PRUNE_INTERVAL_MS) {
      this.#lastPruneAt = now;
      store.prune(now - RUN_RETENTION_MS, now - RETENTION_MS);
      this.#ledger().prune(now);
    }
    const threads = store.pageThreads(undefined, MAX_RECENT_THREADS).map((thread) => toSummary(thread, now, this.staleRunMs));
    const metrics = this.#metricsAt(now, metricsMaxAgeMs);
    const state = boundedState({ metrics, threads, total: store.countThreads(), updatedAt: now });
    if (broadcastNow || Date.now() - this.#lastBroadcastAt >= BROADCAST_INTERVAL_MS) {
      if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
      this.#flushTimer = undefined;
      this.#lastBroadcastAt = Date.now();
      this.setState(state);
    } else {
      this.#scheduleBroadcast();
    }
    // Reused metrics that miss a change: a broadcast with fresh ones follows when they expire.
    if (this.#metricsDirty && this.#flushTimer === undefined && this.#metrics) {
      const expiresInMs = Math.max(this.#metrics.at + metricsMaxAgeMs - now, BROADCAST_INTERVAL_MS);
      this.#flushTimer = setTimeout(() => {
        this.#flushTimer = undefined;
        this.#flushSafely();
      }, expiresInMs);
    }
    const quietest = store.quietestUnsettled(now, this.staleRunMs);
    this.#scheduleStaleRefresh(quietest && nextStaleAt([toSummary(quietest, now, this.staleRunMs)], this.staleRunMs));
    return state;
  }

  /** The week's spend, recomputed when older than `maxAgeMs` (0: always). */
  #spendAt(now: number, maxAgeMs: number): SpendMetrics {
    const kept = this.#spend;
    if (kept && now >= kept.at && now - kept.at < maxAgeMs) return kept.spend;
    const spend = spendOf(this.#registry(), now);
    this.#spend = { at: now, spend };
    return spend;
  }

  /** The metrics, recomputed when the ones kept are older than `maxAgeMs` (0: always). */
  #metricsAt(now: number, maxAgeMs: number): Metrics {
    const kept = this.#metrics;
    if (kept && now >= kept.at && now - kept.at < maxAgeMs) return kept.metrics;
    const metrics = { ...activityOf(this.#registry(), now), ...this.#spendAt(now, maxAgeMs === 0 ? 0 : SPEND_MAX_AGE_MS) };
    this.#metrics = { at: now, metrics };
    this.#metricsDirty = false;
    return metrics;
  }

  /**
   * An active thread goes quiet with no event to say so: wake up then, ask its agent and broadcast. One
   * pending refresh, the earliest asked for (across isolates too: `OneShotSchedules`); it plans the next.
   */
  #scheduleStaleRefresh(at: number | undefined): void {
    if (at === undefined || (this.#staleRefreshAt !== undefined && this.#staleRefreshAt <= at)) return;
    this.#staleRefreshAt = at;
    this.#oneShots.request("refreshState", Date.now() + Math.max(at - this.clock(), 0)).catch((error: unknown) => {
      this.#staleRefreshAt = undefined;
      this.#log("stale-refresh:failed", { error: error instanceof Error ? error.message : String(error) });
    });
  }
}
