/**
 * What the dispatch bench found, as figures and as a table: our side beside
 * the bare Think baseline measured in the same run, the ratios, and a
 * PASS/FAIL line per target. Only a storm that yields more than one
 * submission on our side is fatal (a correctness failure); latency targets
 * are reported, never enforced, because a noisy machine moves them. Pure.
 */
import { ratio, summarize, type Summary } from "./stats";

export type Side = "ours" | "bare";

export type SideFigures = {
  /** Round trip seen by the runner: HTTP to the bench Worker plus the call. */
  client: Summary;
  /** The awaited call alone, as the Worker's clock sees it. */
  worker: Summary;
  /** Terminal statuses of the turns the calls started (expect all completed). */
  turns: Record<string, number>;
};

export type StormFigures = {
  /** Distinct submission ids, one entry per storm (target: 1 each). */
  distinctIds: number[];
  client: Summary;
  worker: Summary;
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
  dispatch: Record<Side, SideFigures>;
  storm: Record<Side, StormFigures>;
  wallMs: number;
};

export const P99_RATIO_TARGET = 1.5;
/** What "far under one second" means for our dispatch p99. */
export const FAR_UNDER_ONE_SECOND_MS = 250;

export type Target = { name: string; pass: boolean; figure: string; fatal: boolean };

export function summarizeCalls(calls: readonly { clientMs: number; workerMs: number }[]) {
  return { client: summarize(calls.map((c) => c.clientMs)), worker: summarize(calls.map((c) => c.workerMs)) };
}

export function evaluateTargets(result: BenchResult): Target[] {
  const ours = result.dispatch.ours.client;
  const bare = result.dispatch.bare.client;
  const p99Ratio = ratio(ours.p99, bare.p99);
  return [
    {
      name: `our dispatch p99 within ${P99_RATIO_TARGET}x of bare p99`,
      pass: p99Ratio <= P99_RATIO_TARGET,
      figure: `${p99Ratio.toFixed(2)}x`,
      fatal: false
    },
    {
      name: `our dispatch p99 far under one second (< ${FAR_UNDER_ONE_SECOND_MS} ms)`,
      pass: ours.p99 < FAR_UNDER_ONE_SECOND_MS,
      figure: `${ms(ours.p99)} ms`,
      fatal: false
    },
    {
      name: "duplicate storm: exactly one submission per storm",
      pass: result.storm.ours.distinctIds.every((n) => n === 1),
      figure: result.storm.ours.distinctIds.join(", "),
      fatal: true
    }
  ];
}

export function formatReport(result: BenchResult, targets: readonly Target[]): string {
  const { setup, dispatch, storm } = result;
  const order = (sides: readonly Side[]) => sides.map((side) => (side === "ours" ? "A" : "B")).join(" ");
  const lines: string[] = [];
  const row = (label: string, a: string, b: string, c = "") =>
    lines.push(`  ${label.padEnd(34)}${a.padStart(10)}${b.padStart(10)}${c.padStart(12)}`);
  const figures = (label: string, pick: (s: Summary) => number, o: Summary, b: Summary, withRatio = true) =>
    row(label, ms(pick(o)), ms(pick(b)), withRatio ? `${ratio(pick(o), pick(b)).toFixed(2)}x` : "");

  lines.push(
    "agent-think dispatch bench (wrangler dev --local, real workerd and Durable Objects, scripted model)",
    `A = ours: AgentThink.dispatch over a service binding; B = bare: getAgentByName + submitMessages on Think`,
    `instruction "${setup.instruction}" on both sides; warm-up discarded (cold first call: ours ${ms(setup.warmup.coldMs.ours)} ms, bare ${ms(setup.warmup.coldMs.bare)} ms; then ${setup.warmup.calls} calls and one storm per side)`,
    "",
    `Dispatch latency: ${setup.issues} distinct issues per side, ${setup.concurrency} in flight, blocks of ${setup.blockSize} in order ${order(setup.blockOrder)}`
  );
  row("", "ours", "bare", "ours/bare");
  figures("p50 (ms)", (s) => s.p50, dispatch.ours.client, dispatch.bare.client);
  figures("p99 (ms)", (s) => s.p99, dispatch.ours.client, dispatch.bare.client);
  figures("mean (ms)", (s) => s.mean, dispatch.ours.client, dispatch.bare.client);
  figures("max (ms)", (s) => s.max, dispatch.ours.client, dispatch.bare.client);
  figures("in-Worker call p50 (ms)", (s) => s.p50, dispatch.ours.worker, dispatch.bare.worker);
  figures("in-Worker call p99 (ms)", (s) => s.p99, dispatch.ours.worker, dispatch.bare.worker);
  row("turns completed / started", turnSummary(dispatch.ours.turns), turnSummary(dispatch.bare.turns));

  lines.push(
    "",
    `Duplicate storm: ${setup.stormCalls} concurrent calls for one comment, storms in order ${order(setup.stormOrder)}`
  );
  row("", "ours", "bare", "ours/bare");
  row("distinct submission ids per storm", storm.ours.distinctIds.join(", "), storm.bare.distinctIds.join(", "));
  figures("p50 (ms)", (s) => s.p50, storm.ours.client, storm.bare.client);
  figures("p99 (ms)", (s) => s.p99, storm.ours.client, storm.bare.client);
  figures("mean (ms)", (s) => s.mean, storm.ours.client, storm.bare.client);

  lines.push("", "Targets");
  for (const target of targets) {
    lines.push(`  ${target.pass ? "PASS" : "FAIL"}  ${target.name.padEnd(56)}${target.figure}`);
  }
  const bareStormOk = storm.bare.distinctIds.every((n) => n === 1);
  lines.push(
    `  (baseline storm: ${bareStormOk ? "one submission per storm" : "MORE THAN ONE submission in a storm"}: ${storm.bare.distinctIds.join(", ")})`,
    "",
    `ms are round trips from this process; in-Worker figures time the awaited call inside the bench Worker. Whole bench ${(result.wallMs / 1000).toFixed(1)} s.`
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
