/**
 * What the bench found, as figures and as a table: our side beside the
 * baselines measured in the same run (dispatch, then the shell sections from
 * shell-report.ts, then the command center, the dashboard's first paint and
 * its JS from command-center-report.ts, the command center under a burst
 * from command-center-burst-report.ts), the ratios, and a PASS/FAIL line per
 * target. Only correctness failures are fatal: a storm that yields more than
 * one submission on our side, flood output past the bound reaching the model,
 * or a command-center state past its bound with 2,000 threads. Latency and
 * size targets are reported, never enforced, because a noisy machine moves
 * them. Pure.
 */
import type { BundleFigures } from "./bundle-size";
import type { CommandCenterFigures } from "./command-center-bench";
import type { BurstFigures } from "./command-center-burst";
import { burstTargets, formatBurst } from "./command-center-burst-report";
import { commandCenterTargets, dashboardTargets, formatBundle, formatCommandCenter, formatDashboard, type DashboardResult } from "./command-center-report";
import type { ContainerFloodFigures } from "./container-flood";
import { floodTextBytes, formatFloods, formatShellExec, NOTE_ALLOWANCE_BYTES, type ShellFigures } from "./shell-report";
import { ratio, type Side, type Summary } from "./stats";

export type DispatchFigures = {
  /** Each awaited call as the bench Worker's clock saw it, in ms. */
  latency: Summary;
  /** Calls completed per second of block time (blocks only, no settling). */
  callsPerSecond: number;
  /** Final statuses of the turns the calls started (expect all completed). */
  turns: Record<string, number>;
};

export type StormFigures = {
  /** Distinct submission ids, one entry per storm (target: 1 each). */
  distinctIds: number[];
  latency: Summary;
};

export type BenchResult = {
  startedAt: string;
  setup: {
    issues: number;
    concurrency: number;
    blockOrder: Side[];
    blockSize: number;
    stormCalls: number;
    stormOrder: Side[];
    instruction: string;
    warmup: { coldMs: Record<Side, number>; calls: number };
  };
  dispatch: Record<Side, DispatchFigures>;
  storm: Record<Side, StormFigures>;
  shell: ShellFigures;
  containerFlood: ContainerFloodFigures;
  commandCenter: CommandCenterFigures;
  /** The command center under a burst of single record calls, a dashboard connected. */
  burst: BurstFigures;
  dashboard: DashboardResult;
  bundle: BundleFigures;
  /** Every timed call in ms, in run order, for a closer look at the JSON. */
  samples: { blocks: { side: Side; ms: number[] }[]; storms: { side: Side; ms: number[] }[] };
  /** Other work on the machine shows up here; a high load means noisier figures. */
  machine: { cpus: number; loadAverage1m: { start: number; end: number } };
  wallMs: number;
};

export const P99_RATIO_TARGET = 1.5;
/** A duplicate storm should cost us little more than Think's own: duplicates are answered before any work. */
export const STORM_P99_RATIO_TARGET = 2;
/**
 * The absolute bound on our dispatch p99: under one second. Local workerd runs
 * on one thread, so at 20 in flight this is mostly queueing behind other calls
 * and moves with the machine's load (the bare baseline's p99 beside it moves
 * the same way); the ratio target above is the one that compares.
 */
export const FAR_UNDER_ONE_SECOND_MS = 1_000;

export type Target = { name: string; pass: boolean; figure: string; fatal: boolean };

export function evaluateTargets(result: BenchResult): Target[] {
  const ours = result.dispatch.ours.latency;
  const bare = result.dispatch.bare.latency;
  const p99Ratio = ratio(ours.p99, bare.p99);
  const stormRatio = ratio(result.storm.ours.latency.p99, result.storm.bare.latency.p99);
  const flood = floodTextBytes(result.shell, result.containerFlood);
  return [
    {
      name: `our dispatch p99 within ${P99_RATIO_TARGET}x of bare p99`,
      pass: p99Ratio <= P99_RATIO_TARGET,
      figure: `${p99Ratio.toFixed(2)}x`,
      fatal: false
    },
    {
      name: `our dispatch p99 under one second (< ${FAR_UNDER_ONE_SECOND_MS} ms)`,
      pass: ours.p99 < FAR_UNDER_ONE_SECOND_MS,
      figure: `${ms(ours.p99)} ms (bare ${ms(bare.p99)} ms)`,
      fatal: false
    },
    {
      name: "duplicate storm: exactly one submission per storm",
      pass: result.storm.ours.distinctIds.every((n) => n === 1),
      figure: result.storm.ours.distinctIds.join(", "),
      fatal: true
    },
    {
      name: `duplicate storm p99 within ${STORM_P99_RATIO_TARGET}x of bare storm p99`,
      pass: stormRatio <= STORM_P99_RATIO_TARGET,
      figure: `${stormRatio.toFixed(2)}x (${ms(result.storm.ours.latency.p99)} ms vs ${ms(result.storm.bare.latency.p99)} ms)`,
      fatal: false
    },
    {
      name: `flood text reaching the model <= ${result.containerFlood.maxBytes} + ${NOTE_ALLOWANCE_BYTES} bytes`,
      pass: [flood.a, ...flood.b].every((bytes) => bytes <= result.containerFlood.maxBytes + NOTE_ALLOWANCE_BYTES),
      figure: `(a) ${flood.a}; (b) ${flood.b.join(", ")}`,
      fatal: true
    },
    ...commandCenterTargets(result.commandCenter),
    ...dashboardTargets(result.dashboard, result.bundle),
    ...burstTargets(result.burst)
  ];
}

export function formatReport(result: BenchResult, targets: readonly Target[]): string {
  const { setup, dispatch, storm } = result;
  const order = (sides: readonly Side[]) => sides.map((side) => (side === "ours" ? "A" : "B")).join(" ");
  const lines: string[] = [];
  const row = (label: string, a: string, b: string, c = "") =>
    lines.push(`  ${label.padEnd(34)}${a.padStart(10)}${b.padStart(10)}${c.padStart(12)}`);
  const figures = (label: string, ours: number, bare: number) =>
    row(label, ms(ours), ms(bare), `${ratio(ours, bare).toFixed(2)}x`);
  const latencyRows = (ours: Summary, bare: Summary) => {
    row("", "ours", "bare", "ours/bare");
    figures("p50 (ms)", ours.p50, bare.p50);
    figures("p99 (ms)", ours.p99, bare.p99);
    figures("mean (ms)", ours.mean, bare.mean);
    figures("max (ms)", ours.max, bare.max);
  };

  lines.push(
    "agent-think bench: wrangler dev --local (real workerd and Durable Objects), scripted model",
    "A = ours: AgentThink.dispatch over a service binding; B = bare: getAgentByName + submitMessages on Think",
    `Calls are driven and timed inside the bench Worker; instruction "${setup.instruction}" on both sides.`,
    `Warm-up discarded: cold first call ours ${ms(setup.warmup.coldMs.ours)} ms, bare ${ms(setup.warmup.coldMs.bare)} ms; then ${setup.warmup.calls} calls and one storm per side.`,
    "",
    `Dispatch latency: ${setup.issues} distinct issues per side, ${setup.concurrency} in flight, blocks of ${setup.blockSize} in order ${order(setup.blockOrder)}`
  );
  latencyRows(dispatch.ours.latency, dispatch.bare.latency);
  row(
    "throughput (calls/s)",
    dispatch.ours.callsPerSecond.toFixed(1),
    dispatch.bare.callsPerSecond.toFixed(1),
    `${ratio(dispatch.ours.callsPerSecond, dispatch.bare.callsPerSecond).toFixed(2)}x`
  );
  row("turns completed / started", turnSummary(dispatch.ours.turns), turnSummary(dispatch.bare.turns));

  lines.push(
    "",
    `Duplicate storm: ${setup.stormCalls} concurrent calls for one comment, storms in order ${order(setup.stormOrder)}`
  );
  row("distinct submission ids per storm", storm.ours.distinctIds.join(", "), storm.bare.distinctIds.join(", "));
  latencyRows(storm.ours.latency, storm.bare.latency);

  lines.push("", ...formatShellExec(result.shell.exec), "", ...formatFloods(result.shell, result.containerFlood));
  lines.push("", ...formatCommandCenter(result.commandCenter), "", ...formatBurst(result.burst));
  lines.push("", ...formatDashboard(result.dashboard, result.bundle), "", ...formatBundle(result.bundle));

  lines.push("", "Targets");
  for (const target of targets) {
    lines.push(`  ${target.pass ? "PASS" : "FAIL"}  ${target.name.padEnd(68)}${target.figure}`);
  }
  const bareStormOk = storm.bare.distinctIds.every((n) => n === 1);
  lines.push(
    `  (baseline storm: ${bareStormOk ? "one submission per storm" : "MORE THAN ONE submission in a storm"}: ${storm.bare.distinctIds.join(", ")})`,
    "",
    `Whole bench ${(result.wallMs / 1000).toFixed(1)} s on ${result.machine.cpus} CPUs, 1-minute load average ${result.machine.loadAverage1m.start.toFixed(2)} at start, ${result.machine.loadAverage1m.end.toFixed(2)} at end.`,
    `Local workerd runs the Worker and all its Durable Objects on one thread, so ${setup.concurrency} in flight mostly measures`,
    "queueing behind each other's work (each side's own, as the sides alternate): read the ratios, not the milliseconds."
  );
  return lines.join("\n");
}

function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(1) : "-";
}

function turnSummary(turns: Record<string, number>): string {
  const total = Object.values(turns).reduce((sum, count) => sum + count, 0);
  const others = Object.entries(turns).filter(([status]) => status !== "completed");
  const rest = others.length === 0 ? "" : ` (${others.map(([status, count]) => `${count} ${status}`).join(", ")})`;
  return `${turns.completed ?? 0}/${total}${rest}`;
}
