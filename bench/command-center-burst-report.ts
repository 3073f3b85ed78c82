/**
 * What the command-center burst found (command-center-burst.ts), as a report
 * section and the goals of issue 14 beside it: events absorbed per second,
 * snapshot p99 under load against idle, broadcasts per second per dashboard.
 * The goals are reported, never fatal. Pure; report.ts and run.ts place them.
 */
import {
  BURST_ABSORBED_TARGET,
  BURST_BROADCASTS_PER_SECOND_TARGET,
  BURST_SNAPSHOT_P99_RATIO_TARGET,
  type BurstFigures,
  type BurstPhaseFigures
} from "./command-center-burst";
import { ratio } from "./stats";

export type BurstTarget = { name: string; pass: boolean; figure: string; fatal: boolean };

/** The phase the snapshot goal is judged at: the goal's own rate, else the fastest offered. */
function goalPhase(burst: BurstFigures): BurstPhaseFigures | undefined {
  const loaded = burst.phases.filter((phase) => phase.ratePerSecond > 0);
  return loaded.find((phase) => phase.ratePerSecond === BURST_ABSORBED_TARGET) ?? loaded.at(-1);
}

export function burstTargets(burst: BurstFigures): BurstTarget[] {
  const loaded = burst.phases.filter((phase) => phase.ratePerSecond > 0);
  const best = loaded.reduce<BurstPhaseFigures | undefined>((a, b) => (a && a.absorbedPerSecond >= b.absorbedPerSecond ? a : b), undefined);
  const goal = goalPhase(burst);
  const p99Ratio = goal ? ratio(goal.reads.p99, burst.idleReads.p99) : Number.NaN;
  const busiest = burst.phases.reduce<BurstPhaseFigures | undefined>(
    (a, b) => (a && a.dashboard.peakBroadcastsPerSecond >= b.dashboard.peakBroadcastsPerSecond ? a : b),
    undefined
  );
  return [
    {
      name: `burst: >= ${count(BURST_ABSORBED_TARGET)} events/s absorbed (best phase)`,
      pass: (best?.absorbedPerSecond ?? 0) >= BURST_ABSORBED_TARGET,
      figure: best
        ? `${count(best.absorbedPerSecond)}/s with ${best.label} offered; bare sink ${count(burst.bare.absorbedPerSecond)}/s (${times(ratio(best.absorbedPerSecond, burst.bare.absorbedPerSecond))})`
        : "-",
      fatal: false
    },
    {
      name: `burst: snapshot p99 at ${goal?.label ?? "-"} offered < ${BURST_SNAPSHOT_P99_RATIO_TARGET}x idle p99`,
      pass: p99Ratio < BURST_SNAPSHOT_P99_RATIO_TARGET,
      figure: goal
        ? `${times(p99Ratio)} (${ms(goal.reads.p99)} ms vs ${ms(burst.idleReads.p99)} ms); bare sink ${times(ratio(burst.bare.reads.p99, burst.idleReads.p99))}`
        : "-",
      fatal: false
    },
    {
      name: `burst: <= ${BURST_BROADCASTS_PER_SECOND_TARGET} broadcasts/s per dashboard (busiest second)`,
      pass: (busiest?.dashboard.peakBroadcastsPerSecond ?? 0) <= BURST_BROADCASTS_PER_SECOND_TARGET,
      figure: busiest ? `${busiest.dashboard.peakBroadcastsPerSecond} in ${busiest.label}` : "-",
      fatal: false
    }
  ];
}

export function formatBurst(burst: BurstFigures): string[] {
  const lines: string[] = [
    `Command center under a burst: a fresh CommandCenterAgent (${burst.name}) seeded with ${count(burst.seed.threads)} threads;`,
    `  events offered as ${count(burst.runs)} concurrent runs report them (${burst.eventsPerRun} per run: dispatched, turn-started, notices, tool calls, turn-ended),`,
    "  each its own record() call after getAgentByName, as a ThinkAgent sends it, paced inside the bench Worker and never awaited by the pacer;",
    `  ${burst.phaseMs / 1000} s per phase (after a discarded warm-up), one dashboard socket connected throughout, and snapshot({ limit: ${burst.readLimit} })`,
    `  read every ${burst.readIntervalMs} ms, one in flight, until the phase's last event is answered. Absorbed = answered / (first offer to last answer);`,
    "  lag = offer to answer; drain = last offer to last answer; bcast = cf_agent_state frames the dashboard got (mean over the phase, busiest second).",
    `  bare sink: the baseline, the same calls at ${count(BURST_ABSORBED_TARGET)}/s to an Agent that only inserts each event (bench/worker.ts BareEventSink), no socket.`
  ];
  const row = (cells: string[]) =>
    lines.push(`  ${cells[0]!.padEnd(9)}${cells.slice(1).map((cell, i) => cell.padStart([10, 11, 9, 9, 9, 10, 7, 9, 9, 9, 8, 7, 9][i] ?? 9)).join("")}`);
  row(["phase", "offered/s", "absorbed/s", "lag p50", "lag p99", "drain", "in flight", "reads", "snap p50", "snap p99", "p99/idle", "bcast/s", "peak/s", "KB/s"]);
  for (const phase of [...burst.phases, burst.bare]) {
    row([
      phase.label,
      phase.ratePerSecond === 0 ? "-" : count(phase.offeredPerSecond),
      phase.ratePerSecond === 0 ? "-" : count(phase.absorbedPerSecond),
      ms(phase.ackLatency.p50),
      ms(phase.ackLatency.p99),
      phase.ratePerSecond === 0 ? "-" : count(phase.drainMs),
      phase.ratePerSecond === 0 ? "-" : count(phase.maxInFlight),
      count(phase.reads.n),
      ms(phase.reads.p50),
      ms(phase.reads.p99),
      times(ratio(phase.reads.p99, burst.idleReads.p99)),
      phase.dashboard.broadcastsPerSecond.toFixed(1),
      String(phase.dashboard.peakBroadcastsPerSecond),
      (phase.dashboard.bytesPerSecond / 1024).toFixed(1)
    ]);
  }
  const outcomes = new Map<string, number>();
  for (const phase of burst.phases) for (const [key, n] of Object.entries(phase.outcomes)) outcomes.set(key, (outcomes.get(key) ?? 0) + n);
  const { floor } = burst;
  lines.push(
    `  idle (both idle phases): snapshot p50 ${ms(burst.idleReads.p50)} ms, p99 ${ms(burst.idleReads.p99)} ms over ${burst.idleReads.n} reads; ms columns are milliseconds, drain and lag included.`,
    `  outcomes over all phases: ${[...outcomes].map(([key, n]) => `${count(n)} ${key}`).join(", ")}; largest state frame ${count(Math.max(0, ...burst.phases.map((phase) => phase.dashboard.maxFrameBytes)))} bytes.`,
    `  one call with no queue (${floor.calls} each, p50/p99 ms): record after getAgentByName ${ms(floor.recordWithLookup.p50)}/${ms(floor.recordWithLookup.p99)},`,
    `  record on a kept stub ${ms(floor.recordOnStub.p50)}/${ms(floor.recordOnStub.p99)}, snapshot ${ms(floor.snapshot.p50)}/${ms(floor.snapshot.p99)}, refreshState ${ms(floor.refreshState.p50)}/${ms(floor.refreshState.p99)}`,
    "  (record here answers a duplicate: a read or two, no write). One workerd thread runs the pacer, the reader and the command center:",
    "  an offered rate the thread cannot serve shows as a pacer that falls behind (offered/s under the phase's rate) and a growing drain."
  );
  return lines;
}

function times(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}x` : "-";
}

function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(1) : "-";
}

function count(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-";
}
