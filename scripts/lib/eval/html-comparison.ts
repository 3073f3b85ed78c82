/**
 * The eval report page's comparison with an earlier report (html.ts places
 * it, given `--compare`): the change in each total with its sign and which
 * way is better, the cases fixed and broken each in a box, and the added,
 * removed, not-run and unchanged cases in folded lists.
 */
import { formatDuration, formatPercent, NO_VALUE } from "../../../src/ui/view-models/format";
import type { CaseChange, CaseResult, Comparison } from "./report";
import { costText, escapeHtml, formatWhen, usd, verdictBadge } from "./html-text";

const MINUS = "−";
const sign = (value: number) => (value > 0 ? "+" : value < 0 ? MINUS : "±");

/** +8.3 pts, −12.5 pts, ±0 pts. */
export function formatPoints(rate: number): string {
  const points = Math.round(Math.abs(rate) * 1000) / 10;
  return `${sign(rate)}${Number.isInteger(points) ? points.toFixed(0) : points.toFixed(1)} pts`;
}

/** +1 min 05 s, −12 s, ±0 ms. */
export function formatDurationDelta(ms: number): string {
  return `${sign(ms)}${formatDuration(Math.abs(ms))}`;
}

/** +$0.12, −$1.50, ±$0.00. */
export function formatUsdDelta(amount: number): string {
  return `${sign(amount)}${usd(Math.abs(amount))}`;
}

type Direction = "better" | "worse" | "same";

/** Which way a change went, for numbers where less is better (time, cost) or more is (resolve rate). */
function direction(delta: number | null, moreIsBetter: boolean): Direction | null {
  if (delta === null) return null;
  if (delta === 0) return "same";
  return delta > 0 === moreIsBetter ? "better" : "worse";
}

function deltaTile(label: string, delta: string | null, way: Direction | null, detail: string, testid: string): string {
  const tone = way === "better" ? "tone-good" : way === "worse" ? "tone-bad" : "tone-neutral";
  const word = way === null ? "not comparable" : way === "same" ? "no change" : way;
  return (
    `<div class="tile delta ${tone}" data-testid="${testid}"><div class="tile-label">${label}</div>` +
    `<div class="tile-value">${escapeHtml(delta ?? NO_VALUE)}</div><div class="tile-detail"><strong class="direction">${word}</strong> · ${detail}</div></div>`
  );
}

function verdictOf(result: CaseResult | null): string {
  return result === null ? `<span class="muted">absent</span>` : verdictBadge(result.verdict);
}

function changeItem(change: CaseChange): string {
  const now = change.after ?? change.before;
  const title = now === null ? "" : ` <span class="change-title">${escapeHtml(now.title)}</span>`;
  const reason = change.after?.reason ? `<div class="change-reason">${escapeHtml(change.after.reason)}</div>` : "";
  return (
    `<li data-case="${escapeHtml(change.id)}"><span class="change-id">${escapeHtml(change.id)}</span>${title}` +
    `<div class="change-verdicts">${verdictOf(change.before)} <span aria-label="became">→</span> ${verdictOf(change.after)}</div>${reason}</li>`
  );
}

function changeBox(kind: "fixed" | "broken", changes: readonly CaseChange[]): string {
  const heading = kind === "fixed" ? "✓ Fixed" : "✗ Broken";
  const meaning = kind === "fixed" ? "did not pass before, passes now" : "passed before, does not pass now";
  const tone = kind === "fixed" ? "tone-good" : "tone-bad";
  const list = changes.length === 0 ? `<p class="muted">None.</p>` : `<ul>${changes.map(changeItem).join("")}</ul>`;
  return `<div class="change-box ${tone}" data-testid="${kind}"><h3>${heading} (${changes.length})</h3><p class="hint">${meaning}</p>${list}</div>`;
}

function minorChanges(name: string, meaning: string, changes: readonly CaseChange[], testid: string, open: boolean): string {
  if (changes.length === 0) return "";
  const label = `${name} (${changes.length}) <span class="muted">${meaning}</span>`;
  return `<details class="minor" data-testid="${testid}"${open ? " open" : ""}><summary>${label}</summary><ul>${changes.map(changeItem).join("")}</ul></details>`;
}

/** The comparison section: the deltas, the fixed and broken boxes, then the lesser changes. */
export function comparisonSection(comparison: Comparison): string {
  const { before, after } = comparison;
  const of = (kind: CaseChange["change"]) => comparison.cases.filter((change) => change.change === kind);
  const rateText = (rate: number | null) => (rate === null ? NO_VALUE : formatPercent(rate));
  const medianCost = (amount: number | null) => (amount === null ? "unknown" : usd(amount));
  const partialTotals = !before.totals.totalCost.complete || !after.totals.totalCost.complete;
  const tiles = [
    deltaTile(
      "Resolve rate",
      comparison.resolveRate === null ? null : formatPoints(comparison.resolveRate),
      direction(comparison.resolveRate, true),
      `${escapeHtml(rateText(before.totals.resolveRate))} → ${escapeHtml(rateText(after.totals.resolveRate))}`,
      "delta-resolve-rate"
    ),
    deltaTile(
      "Median time to close",
      comparison.medianTimeToCloseMs === null ? null : formatDurationDelta(comparison.medianTimeToCloseMs),
      direction(comparison.medianTimeToCloseMs, false),
      `${escapeHtml(formatDuration(before.totals.medianTimeToCloseMs))} → ${escapeHtml(formatDuration(after.totals.medianTimeToCloseMs))}`,
      "delta-median-time"
    ),
    deltaTile(
      "Median cost",
      comparison.medianCostUsd === null ? null : formatUsdDelta(comparison.medianCostUsd),
      direction(comparison.medianCostUsd, false),
      `${escapeHtml(medianCost(before.totals.medianCostUsd))} → ${escapeHtml(medianCost(after.totals.medianCostUsd))}`,
      "delta-median-cost"
    ),
    deltaTile(
      "Total cost",
      formatUsdDelta(comparison.totalCostUsd),
      direction(comparison.totalCostUsd, false),
      `${escapeHtml(costText(before.totals.totalCost))} → ${escapeHtml(costText(after.totals.totalCost))}${partialTotals ? " · some costs unknown" : ""}`,
      "delta-total-cost"
    )
  ];
  return (
    `<section class="comparison" aria-labelledby="compare-h" data-testid="comparison">` +
    `<h2 id="compare-h">Compared with <time datetime="${escapeHtml(before.startedAt)}">${escapeHtml(formatWhen(before.startedAt))}</time></h2>` +
    (before.model || after.model
      ? `<p data-testid="compare-models">Model: <code>${escapeHtml(before.model ?? "the repository's or the deployment's")}</code> → <code>${escapeHtml(after.model ?? "the repository's or the deployment's")}</code></p>`
      : "") +
    `<div class="tiles">${tiles.join("")}</div>` +
    `<div class="change-boxes">${changeBox("fixed", of("fixed"))}${changeBox("broken", of("broken"))}</div>` +
    minorChanges("Added", "new cases", of("added"), "added", true) +
    minorChanges("Removed", "not in this run", of("removed"), "removed", true) +
    minorChanges("Not run", "skipped in one of the two runs (the cost cap): no comparison", of("not-run"), "not-run", true) +
    minorChanges("Same", "the same pass or no pass as before", of("same"), "same", false) +
    `</section>`
  );
}
