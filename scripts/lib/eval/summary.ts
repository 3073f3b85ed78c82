/**
 * The report's totals as the terminal shows them after a run: the resolve
 * rate, one line per expected outcome with what the other runs reported,
 * the pull requests by their proof, a warning naming any false reproduction, and the change since a compared
 * report. Pure.
 */
import { expectedRows, falseReproductions, fixesOf, fixesText, NO_OUTCOME, REPORTED_KEYS, type Comparison, type ExpectedRow, type Report } from "./report";

/** "2 of 3 (1 reported reproduced)": the passes, then every other outcome the runs reported. */
function expectedLine(row: ExpectedRow, width: number): string {
  const others = REPORTED_KEYS.flatMap((key) => {
    const count = row.reported[key] ?? 0;
    return key === row.expected || count === 0 ? [] : [`${count} reported ${key === NO_OUTCOME ? "no outcome" : key}`];
  });
  // The right outcome with a check that failed, or over the case's budget.
  const unpassed = (row.reported[row.expected] ?? 0) - row.passed;
  if (unpassed > 0) others.push(`${unpassed} reported ${row.expected} but did not pass`);
  return `${row.expected.padEnd(width)}${row.passed} of ${row.cases}${others.length === 0 ? "" : ` (${others.join(", ")})`}`;
}

/** The totals in a few lines, and the change since the compared report. */
export function summary(report: Report, comparison?: Comparison): string {
  const { totals } = report;
  const rate = totals.resolveRate === null ? "n/a" : `${Math.round(totals.resolveRate * 100)}%`;
  const median = totals.medianTimeToCloseMs === null ? "n/a" : `${(totals.medianTimeToCloseMs / 1000).toFixed(1)} s`;
  const cost = `${totals.totalCost.complete ? "" : "≥ "}$${totals.totalCost.usd.toFixed(2)}`;
  const lines = [
    `resolved    ${totals.passed} of ${totals.ran} (${rate})${totals.ran < totals.cases ? `, ${totals.cases - totals.ran} skipped` : ""}${report.stoppedBy === "cost-cap" ? " — stopped by the cost cap" : ""}`,
    `median      ${median} to the closing comment, ${totals.medianCostUsd === null ? "cost unknown" : `$${totals.medianCostUsd.toFixed(2)}`} a case`,
    `total cost  ${cost}${report.scripted ? " (scripted demonstration: no model ran)" : ""}`,
    ...(report.model ? [`model       ${report.model} (--model)`] : [])
  ];
  const rows = expectedRows(report);
  const width = Math.max(12, ...rows.map((row) => row.expected.length + 2));
  lines.push(...rows.map((row) => expectedLine(row, width)));
  const fixes = report.totals.fixes ?? fixesOf(report.cases);
  if (fixes.proven + fixes.unproven + fixes.unchecked > 0) lines.push(`fixes       ${fixesText(fixes)}`);
  const wrong = falseReproductions(report.cases);
  if (wrong.length > 0) {
    const named = wrong.map((result) => `${result.id} (expected ${result.expected})`).join(", ");
    lines.push(`warning     ${wrong.length} false ${wrong.length === 1 ? "reproduction" : "reproductions"}, reported reproduced: ${named}`);
  }
  if (comparison) {
    const fixed = comparison.cases.filter((change) => change.change === "fixed").map((change) => change.id);
    const broken = comparison.cases.filter((change) => change.change === "broken").map((change) => change.id);
    const points = comparison.resolveRate === null ? "n/a" : `${comparison.resolveRate >= 0 ? "+" : ""}${Math.round(comparison.resolveRate * 100)} points`;
    const models = comparison.before.model || comparison.after.model ? ` (${comparison.before.model ?? "default model"} → ${comparison.after.model ?? "default model"})` : "";
    lines.push(`compared    with ${comparison.before.startedAt}${models}: resolve rate ${points}; fixed ${fixed.join(", ") || "none"}; broken ${broken.join(", ") || "none"}`);
  }
  return lines.join("\n");
}
