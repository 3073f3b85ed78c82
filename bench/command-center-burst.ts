/**
 * The command center under a burst (issue 14, item 4), driven through
 * command-center-burst-routes.ts once the bench Worker is up:
 *
 *  1. A fresh-named CommandCenterAgent seeded with 2,000 threads
 *     (command-center-seed.ts), so its metrics and pages have history to read.
 *  2. A dashboard's socket on it, opened from here as the SPA opens
 *     `/agents/command-center-agent/<name>`: every `cf_agent_state` frame
 *     is counted with its bytes and arrival time.
 *  3. Phases, each PHASE_MS long, after a discarded warm-up: idle (snapshot
 *     reads only), then events offered at each rate of BURST_RATES (single
 *     `record` calls in the shape of 1,000 concurrent runs, burstEvents),
 *     then idle again. Each phase reads snapshot({ limit: READ_LIMIT }) every
 *     READ_INTERVAL_MS, one read in flight, until its events are answered.
 *  4. The baseline: the same calls at the goal's rate (2,000/s) to
 *     BareEventSink, an Agent that only inserts each event (bench/worker.ts),
 *     with the same snapshot reads (answered from nothing): what one call per
 *     event costs on this thread without the registry.
 *  5. What one call costs with no queue (the floor route).
 *
 * Reported per phase: events absorbed per second (answered over the time
 * from the first offer to the last answer) and the lag (offer to answer),
 * snapshot p50/p99 beside the idle phases', and per dashboard the broadcasts
 * and bytes per second (mean over the phase and the busiest second). Local
 * workerd runs the bench Worker, the pacer and every Durable Object on one
 * thread, so the offering itself competes with the command center: read the
 * ratios, not the absolute rates.
 */
import { BARE_SINK_PREFIX, type BurstPhaseResponse, type FloorResponse } from "./command-center-burst-routes";
import { seedCommandCenter, type Post, type SeedFigures } from "./command-center-bench";
import { BURST_EVENTS_PER_RUN, BURST_RUNS } from "./command-center-seed";
import { summarize, type Summary } from "./stats";

/** Events offered per second, one phase each. */
export const BURST_RATES = [500, 1_000, 2_000, 4_000] as const;
export const PHASE_MS = 3_000;
const WARMUP = { ratePerSecond: 250, durationMs: 1_000 };
export const READ_INTERVAL_MS = 50;
export const READ_LIMIT = 50;
const DRAIN_TIMEOUT_MS = 30_000;
const FLOOR_CALLS = 100;
const SOCKET_TIMEOUT_MS = 10_000;

/** The goals of issue 14: reported beside the figures, never fatal. */
export const BURST_ABSORBED_TARGET = 2_000;
export const BURST_SNAPSHOT_P99_RATIO_TARGET = 3;
export const BURST_BROADCASTS_PER_SECOND_TARGET = 4;

export type DashboardFrames = {
  /** cf_agent_state frames in the phase's window, per second, and in its busiest second. */
  broadcastsPerSecond: number;
  peakBroadcastsPerSecond: number;
  bytesPerSecond: number;
  frames: number;
  maxFrameBytes: number;
};

export type BurstPhaseFigures = Omit<BurstPhaseResponse, "readMs"> & {
  label: string;
  durationMs: number;
  offeredPerSecond: number;
  absorbedPerSecond: number;
  /** After the last offer, until the last answer. */
  drainMs: number;
  reads: Summary;
  dashboard: DashboardFrames;
};

export type BurstFigures = {
  name: string;
  seed: SeedFigures;
  runs: number;
  eventsPerRun: number;
  phaseMs: number;
  readIntervalMs: number;
  readLimit: number;
  phases: BurstPhaseFigures[];
  /** The baseline: the same record() calls at the goal's rate to BareEventSink (one insert per call, nothing else). */
  bare: BurstPhaseFigures;
  /** Both idle phases' reads together. */
  idleReads: Summary;
  floor: FloorResponse;
  /** Every `cf_agent_state` frame the dashboard got after its first. */
  socketFrames: number;
};

type Frame = { at: number; bytes: number };

export async function measureBurst(post: Post, baseUrl: string): Promise<BurstFigures> {
  const name = `bench-burst-${crypto.randomUUID()}`;
  const seed = await seedCommandCenter(post, name);
  const dashboard = await openDashboard(`${baseUrl.replace(/^http/, "ws")}/bench/cc/socket/${encodeURIComponent(name)}`);
  try {
    let start = 0;
    const run = async (label: string, ratePerSecond: number, durationMs: number, target = name) => {
      const from = performance.now();
      const result = (await post("/bench/cc/burst", {
        name: target,
        start,
        ratePerSecond,
        durationMs,
        readIntervalMs: READ_INTERVAL_MS,
        readLimit: READ_LIMIT,
        drainTimeoutMs: DRAIN_TIMEOUT_MS
      })) as BurstPhaseResponse;
      const to = performance.now();
      start += result.offered;
      if (result.failed > 0) throw new Error(`burst ${label}: ${result.failed} record call(s) failed, first: ${result.firstError}`);
      if (result.acknowledged < result.offered) throw new Error(`burst ${label}: ${result.offered - result.acknowledged} event(s) unanswered after ${DRAIN_TIMEOUT_MS} ms`);
      const { readMs, ...rest } = result;
      const figures: BurstPhaseFigures = {
        ...rest,
        label,
        durationMs,
        offeredPerSecond: (result.offered * 1000) / durationMs,
        absorbedPerSecond: result.lastAckMs > 0 ? (result.acknowledged * 1000) / result.lastAckMs : 0,
        drainMs: Math.max(0, result.lastAckMs - result.offerMs),
        reads: summarize(readMs),
        dashboard: frameFigures(dashboard.frames.filter((frame) => frame.at >= from && frame.at <= to), to - from)
      };
      return { figures, readMs };
    };

    await run("warm-up", WARMUP.ratePerSecond, WARMUP.durationMs);
    const measured = [await run("idle", 0, PHASE_MS)];
    for (const rate of BURST_RATES) measured.push(await run(`${rate.toLocaleString("en-US")}/s`, rate, PHASE_MS));
    measured.push(await run("idle", 0, PHASE_MS));
    // The baseline at the goal's rate: the same calls to a sink that only inserts each event.
    const bare = (await run("bare sink", BURST_ABSORBED_TARGET, PHASE_MS, `${BARE_SINK_PREFIX}${crypto.randomUUID()}`)).figures;
    const phases = measured.map((phase) => phase.figures);
    const idleReads = summarize(measured.filter((phase) => phase.figures.ratePerSecond === 0).flatMap((phase) => phase.readMs));
    const floor = (await post("/bench/cc/floor", { name, calls: FLOOR_CALLS })) as FloorResponse;
    return {
      name,
      seed,
      runs: BURST_RUNS,
      eventsPerRun: BURST_EVENTS_PER_RUN,
      phaseMs: PHASE_MS,
      readIntervalMs: READ_INTERVAL_MS,
      readLimit: READ_LIMIT,
      phases,
      bare,
      idleReads,
      floor,
      socketFrames: dashboard.frames.length
    };
  } finally {
    dashboard.close();
  }
}

function frameFigures(frames: readonly Frame[], windowMs: number): DashboardFrames {
  const seconds = windowMs / 1000;
  let peak = 0;
  for (let i = 0, j = 0; i < frames.length; i++) {
    while (frames[i]!.at - frames[j]!.at >= 1000) j++;
    peak = Math.max(peak, i - j + 1);
  }
  const totalBytes = frames.reduce((sum, frame) => sum + frame.bytes, 0);
  return {
    broadcastsPerSecond: seconds > 0 ? frames.length / seconds : 0,
    peakBroadcastsPerSecond: peak,
    bytesPerSecond: seconds > 0 ? totalBytes / seconds : 0,
    frames: frames.length,
    maxFrameBytes: Math.max(0, ...frames.map((frame) => frame.bytes))
  };
}

/** A dashboard: the socket open and its first state received; counts every `cf_agent_state` frame after that. */
async function openDashboard(url: string): Promise<{ frames: Frame[]; close(): void }> {
  const socket = new WebSocket(url);
  const frames: Frame[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no state on the dashboard socket ${url} after ${SOCKET_TIMEOUT_MS} ms`)), SOCKET_TIMEOUT_MS);
    socket.addEventListener("message", (event) => {
      if (typeof event.data !== "string") return;
      const type = (JSON.parse(event.data) as { type?: unknown }).type;
      if (type !== "cf_agent_state") return;
      frames.push({ at: performance.now(), bytes: Buffer.byteLength(event.data) });
      clearTimeout(timer);
      resolve();
    });
    socket.addEventListener("error", () => {
      clearTimeout(timer);
      reject(new Error(`the dashboard socket ${url} failed`));
    });
  });
  // The connect-time state is not a broadcast.
  frames.length = 0;
  // 1000: a normal close, answered at once (scripts/lib/agent-socket.ts).
  return { frames, close: () => socket.close(1000) };
}
