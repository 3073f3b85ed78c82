/**
 * Lifecycle events to the command center, for the ThinkAgent: delivered at
 * least once, applied at most once, and never in a run's way.
 * `CenterReports.send` redacts the event and writes it to this agent's
 * outbox before sending it; any answer acknowledges it, and `flush()`
 * resends what was not. The event id is the event's identity in the
 * registry, so a resend is applied once. `send` never throws and never
 * awaits the command center. Pure: storage, the command center, the
 * schedule and the clock are parameters. docs/command-center.md, "Delivery".
 */
import type { CommandCenterEvent } from "../shared/command-center-events";
import type { RunContext } from "../run/run-context";
import { blockedTotal } from "./egress";

/** The command center as a reporter sees it. */
export type EventSink = {
  record(event: unknown): Promise<unknown>;
  recordBatch(events: unknown[]): Promise<unknown>;
};

/** The synchronous KV of a SQLite-backed Durable Object (`ctx.storage.kv`). */
export interface CenterOutboxStorage {
  get<T>(key: string): T | undefined;
  put<T>(key: string, value: T): void;
  delete(key: string): boolean;
  list<T>(options: { prefix: string; limit?: number }): Iterable<[string, T]>;
}

export type CenterReportsDeps = {
  storage: CenterOutboxStorage;
  center(): Promise<EventSink>;
  /** Applied to every event before it is stored or leaves: nothing in an event may hold the run's token. */
  redact<T>(value: T): T;
  waitUntil(promise: Promise<unknown>): void;
  /** Wake this object in `inMs` and call `flush()`, durably (the agent's schedule). */
  scheduleSweep(inMs: number): Promise<void>;
  now(): number;
  log(event: string, fields: Record<string, unknown>): void;
};

/** One event not yet acknowledged. */
export type PendingEvent = { id: string; event: CommandCenterEvent; createdAt: number; attempts: number };

/** What a flush did: events acknowledged, given up (too old), and still owed. */
export type FlushResult = { delivered: number; dropped: number; pending: number };

export const CENTER_OUTBOX_PREFIX = "agent-think:center-outbox:";
export const CENTER_SWEEP_KEY = "agent-think:center-sweep";
/** The sweep after the first send, then after each sweep that left something owed. */
export const SWEEP_DELAYS_MS = [15_000, 60_000, 5 * 60_000, 15 * 60_000] as const;
/** Past the metrics window and its retention an event changes nothing the command center shows: it is dropped, logged. */
export const MAX_PENDING_AGE_MS = 25 * 60 * 60 * 1000;
/** Events per recordBatch call when resending. */
export const FLUSH_BATCH = 200;
/** The most entries one flush reads. */
const FLUSH_MAX = 2_000;

type SweepState = { at: number; round: number };

/**
 * The event's identity: what the registry applies once. Everything a
 * resend repeats, nothing it could change.
 */
export function centerEventId(event: CommandCenterEvent): string {
  const run = `${event.type}:${event.submissionId}`;
  switch (event.type) {
    case "dispatched":
    case "turn-started":
    case "turn-ended":
      return run;
    case "tool":
      return `${run}:${event.toolCallId ?? `${event.tool}@${event.at}`}`;
    case "notice":
      return `${run}:${event.kind}:${event.state}`;
    case "reproduction":
      return `${run}:${event.at}`;
    case "recovery":
      return `${run}:${event.recoveries}:${event.state}`;
    case "egress":
      // Tallies only grow: one with the same total is the same tally.
      return `${run}:${blockedTotal(event.blocked)}`;
    case "private-sources":
      // Each event holds every host so far: one as long is the same list.
      return `${run}:${event.hosts.length}`;
  }
}

export class CenterReports {
  readonly #deps: CenterReportsDeps;
  /**
   * The command center's stub, kept while it works: getting it again costs a
   * round trip (the agents SDK's start-up check) for every event. A call that
   * fails drops it.
   */
  #sink: Promise<EventSink> | undefined;
  constructor(deps: CenterReportsDeps) {
    this.#deps = deps;
  }

  #center(): Promise<EventSink> {
    this.#sink ??= this.#deps.center();
    return this.#sink;
  }

  /** Call the command center; a failure drops the kept stub, so the next call gets a fresh one. */
  async #call<T>(send: (sink: EventSink) => Promise<T>): Promise<T> {
    const sink = this.#center();
    try {
      return await send(await sink);
    } catch (error) {
      if (this.#sink === sink) this.#sink = undefined;
      throw error;
    }
  }

  /** Record the event, then send it. Never throws; the returned promise is only for tests. */
  send(event: CommandCenterEvent): Promise<void> {
    let pending: PendingEvent;
    try {
      const redacted = this.#deps.redact(event);
      pending = { id: centerEventId(redacted), event: redacted, createdAt: this.#deps.now(), attempts: 0 };
      this.#store(pending);
    } catch (error) {
      this.#deps.log("command-center:outbox-failed", { type: event.type, error: errorMessage(error) });
      return Promise.resolve();
    }
    const sending = reportSafely(
      async () => {
        await this.#call((sink) => sink.record(pending.event));
        this.#deps.storage.delete(CENTER_OUTBOX_PREFIX + pending.id);
      },
      (error) => this.#deps.log("command-center:report-failed", { type: event.type, error: errorMessage(error) })
    );
    this.#deps.waitUntil(sending);
    return sending;
  }

  /** A run was submitted (a new dispatch, or a continuation `continuedBy` an operator). */
  dispatched(run: RunContext, session: string, submissionId: string, at: number, continuedBy?: string): Promise<void> {
    return this.send({
      type: "dispatched",
      session,
      repo: run.repo,
      issueNumber: run.issueNumber,
      issueTitle: run.issueTitle,
      requestedBy: run.requestedBy,
      instruction: run.instruction,
      submissionId,
      ...(continuedBy ? { continuedBy } : {}),
      ...(run.tier ? { tier: run.tier } : {}),
      at
    });
  }

  /** The events not yet acknowledged, oldest first. */
  pending(): PendingEvent[] {
    const entries = [...this.#deps.storage.list<PendingEvent>({ prefix: CENTER_OUTBOX_PREFIX, limit: FLUSH_MAX })].map(([, entry]) => entry);
    return entries.sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * Send again everything not yet acknowledged, in batches; an entry too old
   * to matter is dropped. Stops at the first batch the command center does
   * not take, and never throws.
   */
  async flush(): Promise<FlushResult> {
    const result = await this.#resend();
    if (result.pending > 0) this.#ensureSweep(0);
    return result;
  }

  /** The scheduled sweep: flush, and come back later, less often each time, while something is still owed. */
  async sweep(): Promise<FlushResult> {
    const round = this.#deps.storage.get<SweepState>(CENTER_SWEEP_KEY)?.round ?? 0;
    this.#deps.storage.delete(CENTER_SWEEP_KEY);
    const result = await this.#resend();
    if (result.pending > 0) this.#ensureSweep(round + 1);
    return result;
  }

  async #resend(): Promise<FlushResult> {
    const now = this.#deps.now();
    const result: FlushResult = { delivered: 0, dropped: 0, pending: 0 };
    const owed: PendingEvent[] = [];
    for (const entry of this.pending()) {
      if (now - entry.createdAt > MAX_PENDING_AGE_MS) {
        this.#deps.storage.delete(CENTER_OUTBOX_PREFIX + entry.id);
        this.#deps.log("command-center:event-dropped", { type: entry.event.type, attempts: entry.attempts });
        result.dropped++;
      } else owed.push(entry);
    }
    for (let start = 0; start < owed.length; start += FLUSH_BATCH) {
      const batch = owed.slice(start, start + FLUSH_BATCH);
      try {
        await this.#call((sink) => sink.recordBatch(batch.map((entry) => entry.event)));
      } catch (error) {
        this.#deps.log("command-center:resend-failed", { events: batch.length, error: errorMessage(error) });
        for (const entry of owed.slice(start)) this.#deps.storage.put(CENTER_OUTBOX_PREFIX + entry.id, { ...entry, attempts: entry.attempts + 1 });
        result.pending = owed.length - start;
        return result;
      }
      for (const entry of batch) this.#deps.storage.delete(CENTER_OUTBOX_PREFIX + entry.id);
      result.delivered += batch.length;
    }
    return result;
  }

  #store(entry: PendingEvent): void {
    this.#deps.storage.put(CENTER_OUTBOX_PREFIX + entry.id, entry);
    this.#ensureSweep(0);
  }

  /** One sweep pending at a time: scheduled before the send it covers, so it outlives a killed process. */
  #ensureSweep(round: number): void {
    const now = this.#deps.now();
    const known = this.#deps.storage.get<SweepState>(CENTER_SWEEP_KEY);
    if (known && known.at > now) return;
    const inMs = SWEEP_DELAYS_MS[Math.min(round, SWEEP_DELAYS_MS.length - 1)]!;
    this.#deps.storage.put<SweepState>(CENTER_SWEEP_KEY, { at: now + inMs, round });
    this.#deps.waitUntil(
      this.#deps.scheduleSweep(inMs).catch((error: unknown) => {
        this.#deps.storage.delete(CENTER_SWEEP_KEY);
        this.#deps.log("command-center:sweep-schedule-failed", { error: errorMessage(error) });
      })
    );
  }
}

/** The returned promise never rejects: hand it to `ctx.waitUntil`, never `await` it on the turn's path. */
export function reportSafely(send: () => Promise<unknown>, onError: (error: unknown) => void): Promise<void> {
  return (async () => {
    try {
      await send();
    } catch (error) {
      try {
        onError(error);
      } catch {
        // A failing error sink is as harmless as a failing report.
      }
    }
  })();
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
