/**
 * The report's totals as the terminal shows them after a run, with the
 * change since a compared report. Pure.
 */
import type { Comparison, Report } from "./report";

/** The totals in a few lines, and the change since the compared report. */
export function summary(report: Report, comparison?: Comparison): string {
  const { totals } = report;
  const rate = totals.resolveRate === null ? "n/a" : `${Math.round(totals.resolveRate * 100)}%`;
  const median = totals.medianTimeToCloseMs === null ? "n/a" : `${(totals.medianTimeToCloseMs / 1000).toFixed(1)} s`;
  const cost = `${totals.totalCost.complete ? "" : "≥ "}$${totals.totalCost.usd.toFixed(2)}`;
  const lines = [
    `resolved    ${totals.passed} of ${totals.ran} (${rate})${totals.ran < totals.cases ? `, ${totals.cases - totals.ran} skipped` : ""}${report.stoppedBy === "cost-cap" ? " — stopped by the cost cap" : ""}`,
    `median      ${median} to the closing comment, ${totals.medianCostUsd === null ? "cost unknown" : `$${totals.medianCostUsd.toFixed(2)}`} a case`,
    `total cost  ${cost}${report.scripted ? " (scripted demonstration: no model ran)" : ""}`
  ];
  if (comparison) {
    const fixed = comparison.cases.filter((change) => change.change === "fixed").map((change) => change.id);
    const broken = comparison.cases.filter((change) => change.change === "broken").map((change) => change.id);
    const points = comparison.resolveRate === null ? "n/a" : `${comparison.resolveRate >= 0 ? "+" : ""}${Math.round(comparison.resolveRate * 100)} points`;
    lines.push(`compared    with ${comparison.before.startedAt}: resolve rate ${points}; fixed ${fixed.join(", ") || "none"}; broken ${broken.join(", ") || "none"}`);
  }
  return lines.join("\n");
}
