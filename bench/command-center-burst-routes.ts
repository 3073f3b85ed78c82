/**
 * The bench Worker's command-center burst routes, used only by
 * command-center-burst.ts (bench/run.ts):
 *   POST /bench/cc/burst   { name, start, ratePerSecond, durationMs, readIntervalMs, readLimit, drainTimeoutMs }
 *        one phase: offer events `start`.. of the burst stream
 *        (command-center-seed.ts burstEvents) at `ratePerSecond` for
 *        `durationMs`, each as its own `record` call, as a ThinkAgent sends
 *        it: each run (session) gets its stub once (`commandCenter(env,
 *        name)`, getAgentByName: one RPC) and keeps it, as the agent's
 *        CenterReports does, then `record(event)`, never awaited by the pacer; meanwhile one reader
 *        calls snapshot({ limit }) every `readIntervalMs` (at most one in
 *        flight), until the offering is over and every event is answered
 *        (or `drainTimeoutMs` passes). Rate 0 is the idle phase: the same
 *        reads for `durationMs`, no events. → BurstPhaseResponse
 *   POST /bench/cc/floor   { name, calls }  `calls` record calls one at a time
 *        for an event the phases applied (a duplicate: a read or two, no write,
 *        no broadcast), with getAgentByName before each and on one kept stub,
 *        and as many snapshot and refreshState calls → what one call costs
 *        with no queue
 *   GET  /bench/cc/socket/<name>  a dashboard's socket on that command center,
 *        as the agents SDK serves `/agents/command-center-agent/<name>` (the
 *        Worker's gate routes only `main`; see AGENTS.md "/agents/* routes")
 *
 * Everything is timed on the bench Worker's clock, which advances at I/O
 * (each answer is I/O). Pure: the agent is reached through `deps`.
 */
import { z } from "zod";
import { json, readJsonPost } from "../src/http/responses";
import type { RecordResult } from "../src/shared/command-center-events";
import type { BenchCommandCenter } from "./command-center-routes";
import { burstEvents } from "./command-center-seed";
import { summarize, type Summary } from "./stats";

export type BurstRouteDeps = {
  center(name: string): Promise<BenchCommandCenter>;
  socket(name: string, request: Request): Promise<Response>;
  now(): number;
  sleep(ms: number): Promise<void>;
};

export type BurstPhaseResponse = {
  ratePerSecond: number;
  offered: number;
  /** From the first offer to the last (the pacer falls behind when the thread is busy). */
  offerMs: number;
  acknowledged: number;
  failed: number;
  firstError: string | null;
  outcomes: Record<string, number>;
  /** From the first offer to the last answer (or the drain timeout). */
  lastAckMs: number;
  /** Answered before the offering ended. */
  ackedInOfferWindow: number;
  /** Offer to answer, per event. */
  ackLatency: Summary;
  /** The largest number of record calls in flight at once. */
  maxInFlight: number;
  /** Each snapshot read, commandCenter(env, name) + snapshot({ limit }). */
  readMs: number[];
  readErrors: number;
  /** The whole phase, start to the reader's end. */
  phaseMs: number;
};

export type FloorResponse = {
  calls: number;
  recordWithLookup: Summary;
  recordOnStub: Summary;
  snapshot: Summary;
  refreshState: Summary;
};

/** A name that starts so is the burst's baseline, BareEventSink (bench/worker.ts), not a command center. */
export const BARE_SINK_PREFIX = "bare-sink-";

const PACER_TICK_MS = 5;
const MAX_PHASE_MS = 20_000;
const MAX_EVENTS = 100_000;

const nameField = z.string().min(1).max(200);
const burstSchema = z.strictObject({
  name: nameField,
  start: z.number().int().min(0),
  ratePerSecond: z.number().int().min(0).max(50_000),
  durationMs: z.number().int().min(100).max(MAX_PHASE_MS),
  readIntervalMs: z.number().int().min(1).max(5_000),
  readLimit: z.number().int().min(1).max(200),
  drainTimeoutMs: z.number().int().min(0).max(60_000)
});
const floorSchema = z.strictObject({ name: nameField, calls: z.number().int().min(1).max(1_000) });

export async function handleBurstRoute(request: Request, deps: BurstRouteDeps): Promise<Response | null> {
  const { pathname } = new URL(request.url);
  const socket = /^\/bench\/cc\/socket\/([^/]+)$/.exec(pathname);
  if (socket && request.method === "GET") return deps.socket(decodeURIComponent(socket[1]!), request);
  if (pathname !== "/bench/cc/burst" && pathname !== "/bench/cc/floor") return null;
  const read = await readJsonPost(request);
  if (!read.ok) return read.response;
  try {
    if (pathname === "/bench/cc/floor") {
      const input = floorSchema.safeParse(read.body);
      if (!input.success) return json({ error: z.prettifyError(input.error) }, 400);
      return json(await floor(deps, input.data.name, input.data.calls));
    }
    const input = burstSchema.safeParse(read.body);
    if (!input.success) return json({ error: z.prettifyError(input.error) }, 400);
    if ((input.data.ratePerSecond * input.data.durationMs) / 1000 > MAX_EVENTS) return json({ error: `more than ${MAX_EVENTS} events` }, 400);
    return json(await phase(deps, input.data));
  } catch (error) {
    return json({ error: error instanceof Error ? error.message : String(error) }, 500);
  }
}

async function phase(deps: BurstRouteDeps, input: z.infer<typeof burstSchema>): Promise<BurstPhaseResponse> {
  const { name, start, ratePerSecond, durationMs, readIntervalMs, readLimit, drainTimeoutMs } = input;
  const total = Math.round((ratePerSecond * durationMs) / 1000);
  // Made before the clock starts: the pacer stamps each with its offer time.
  const events = burstEvents(start, total, () => 0);
  const startedAt = deps.now();
  const ackMs: number[] = [];
  const outcomes: Record<string, number> = {};
  let offered = 0;
  let answered = 0;
  let failed = 0;
  let firstError: string | null = null;
  let lastOfferAt = startedAt;
  let lastAckAt = startedAt;
  let ackedInOfferWindow = 0;
  let offering = total > 0;
  let maxInFlight = 0;
  const pending = new Set<Promise<void>>();
  /** One stub per run, kept, as each ThinkAgent keeps its own (src/command-center/report.ts). */
  const stubs = new Map<string, Promise<BenchCommandCenter>>();
  const stubFor = (session: string) => {
    let stub = stubs.get(session);
    if (!stub) stubs.set(session, (stub = deps.center(name)));
    return stub;
  };

  const send = (event: (typeof events)[number]) => {
    const offeredAt = deps.now();
    event.at = offeredAt;
    const call = (async () => {
      try {
        const result: RecordResult = await (await stubFor(event.session)).record(event);
        const key = result.applied ? "applied" : result.reason;
        outcomes[key] = (outcomes[key] ?? 0) + 1;
        ackMs.push(deps.now() - offeredAt);
      } catch (error) {
        failed++;
        firstError ??= error instanceof Error ? error.message : String(error);
      } finally {
        answered++;
        lastAckAt = deps.now();
        if (offering) ackedInOfferWindow++;
      }
    })();
    pending.add(call);
    void call.finally(() => pending.delete(call));
    maxInFlight = Math.max(maxInFlight, pending.size);
  };

  const pacer = async () => {
    while (offered < total) {
      const due = Math.min(total, Math.floor(((deps.now() - startedAt) * ratePerSecond) / 1000) + 1);
      while (offered < due) send(events[offered++]!);
      lastOfferAt = deps.now();
      if (offered < total) await deps.sleep(PACER_TICK_MS);
    }
    offering = false;
    const drainBy = deps.now() + drainTimeoutMs;
    while (pending.size > 0 && deps.now() < drainBy) {
      await Promise.race([Promise.all(pending), deps.sleep(Math.max(1, drainBy - deps.now()))]);
    }
  };

  const readMs: number[] = [];
  let readErrors = 0;
  let pacing = true;
  const reader = async () => {
    const readUntil = startedAt + durationMs;
    while (pacing || deps.now() < readUntil) {
      const at = deps.now();
      try {
        await (await deps.center(name)).snapshot({ limit: readLimit });
        readMs.push(deps.now() - at);
      } catch {
        readErrors++;
      }
      const wait = at + readIntervalMs - deps.now();
      if (wait > 0) await deps.sleep(wait);
      if (total === 0 && deps.now() >= readUntil) break;
    }
  };

  await Promise.all([
    (async () => {
      if (total > 0) await pacer();
      pacing = false;
    })(),
    reader()
  ]);
  return {
    ratePerSecond,
    offered,
    offerMs: lastOfferAt - startedAt,
    acknowledged: answered - failed,
    failed,
    firstError,
    outcomes,
    lastAckMs: lastAckAt - startedAt,
    ackedInOfferWindow,
    ackLatency: summarize(ackMs),
    maxInFlight,
    readMs,
    readErrors,
    phaseMs: deps.now() - startedAt
  };
}

async function floor(deps: BurstRouteDeps, name: string, calls: number): Promise<FloorResponse> {
  // An event the phases applied: answered `duplicate`, nothing written.
  const [event] = burstEvents(3_000, 1, () => 1);
  const time = async (fn: () => Promise<unknown>) => {
    const ms: number[] = [];
    for (let i = 0; i < calls; i++) {
      const at = deps.now();
      await fn();
      ms.push(deps.now() - at);
    }
    return summarize(ms);
  };
  const stub = await deps.center(name);
  return {
    calls,
    recordWithLookup: await time(async () => (await deps.center(name)).record(event)),
    recordOnStub: await time(() => stub.record(event)),
    snapshot: await time(async () => (await deps.center(name)).snapshot({ limit: 50 })),
    refreshState: await time(async () => (await deps.center(name)).refreshState())
  };
}
