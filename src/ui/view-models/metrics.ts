/**
 * The command center's metric tiles: runs in the last 24 h, success rate,
 * duration and time to the first tool call (p50 with p95 beside it) and the
 * tool-error rate, each with a tone that flags a bad figure; and the runs
 * Think's chat recovery is resuming right now, with the recoveries of the
 * last 24 h beside them. Pure.
 */
import type { Metrics } from "../../shared/command-center";
import { EMPTY_METRICS } from "../../shared/empty-metrics";
import { formatCount, formatDuration, formatPercent, NO_VALUE } from "./format";
import type { Tone } from "./threads";

export type MetricId = "runs-24h" | "success-rate" | "duration" | "first-tool" | "tool-error-rate" | "recovering" | "spend-today" | "spend-7d";

export type MetricTile = {
  id: MetricId;
  label: string;
  value: string;
  /** A second figure or an explanation under the value. */
  detail: string;
  tone: Tone;
  /** A tooltip, when the figure needs one (a cost that is a floor or unknown). */
  title?: string;
};

/** Below these a success rate is a warning / bad. */
export const SUCCESS_RATE_WARN = 0.95;
export const SUCCESS_RATE_BAD = 0.8;
/** Above these a tool-error rate is a warning / bad. */
export const TOOL_ERROR_RATE_WARN = 0.05;
export const TOOL_ERROR_RATE_BAD = 0.2;

function successTone(rate: number | null): Tone {
  if (rate === null) return "neutral";
  if (rate < SUCCESS_RATE_BAD) return "bad";
  if (rate < SUCCESS_RATE_WARN) return "warn";
  return "good";
}

function toolErrorTone(rate: number | null): Tone {
  if (rate === null) return "neutral";
  if (rate > TOOL_ERROR_RATE_BAD) return "bad";
  if (rate > TOOL_ERROR_RATE_WARN) return "warn";
  return "good";
}

const p95 = (ms: number | null) => (ms === null ? "p95 —" : `p95 ${formatDuration(ms)}`);

/** "1 recovery in 24 h", "3 recoveries in 24 h". */
export function recoveriesDetail(count: number): string {
  return `${formatCount(count)} ${count === 1 ? "recovery" : "recoveries"} in 24 h`;
}

/** The tiles, in display order; every figure reads "—" until it exists. */
export function metricTiles(metrics: Metrics | null | undefined): MetricTile[] {
  const m: Metrics = metrics ?? EMPTY_METRICS;
  return [
    { id: "runs-24h", label: "Runs (24 h)", value: metrics ? formatCount(m.runs24h) : NO_VALUE, detail: "dispatched", tone: "neutral" },
    {
      id: "success-rate",
      label: "Success rate",
      value: formatPercent(m.successRate),
      // Cancelled runs are not judged (docs/command-center.md, Metrics).
      detail: m.successRate === null ? "no done or failed runs" : "of done and failed runs",
      tone: successTone(m.successRate)
    },
    { id: "duration", label: "Duration p50", value: formatDuration(m.durationP50Ms), detail: p95(m.durationP95Ms), tone: "neutral" },
    {
      id: "first-tool",
      label: "First tool call p50",
      value: formatDuration(m.firstToolP50Ms),
      detail: p95(m.firstToolP95Ms),
      tone: "neutral"
    },
    {
      id: "tool-error-rate",
      label: "Tool-error rate",
      value: formatPercent(m.toolErrorRate),
      detail: m.toolErrorRate === null ? "no tool calls" : "of tool calls",
      tone: toolErrorTone(m.toolErrorRate)
    },
    {
      id: "recovering",
      label: "Recovering",
      value: metrics ? formatCount(m.recovering) : NO_VALUE,
      detail: recoveriesDetail(m.recoveries24h),
      // A run being recovered is not a failure yet, but an operator should see it; past ones are history.
      tone: m.recovering > 0 ? "warn" : "neutral"
    }
  ];
}
