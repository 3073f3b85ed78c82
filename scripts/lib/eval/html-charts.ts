/**
 * The eval report page's charts (html.ts places them): the outcome of each
 * case as a numbered square, and each case's time to close and cost as a
 * bar, with the median and, for cost, the total against the cap. Drawn as
 * inline SVG, since the page fetches nothing; a case without a figure gets a
 * dashed track, never a zero.
 */
import { formatDuration, formatPercent } from "../../../src/ui/view-models/format";
import { VERDICTS, type CaseResult, type Report } from "./report";
import { costText, escapeHtml, usd, VERDICT_LOOK, verdictBadge } from "./html-text";

/** "expected reproduced, got not-reproduced" (or "reported none"). */
function expectedVsActual(result: CaseResult): string {
  return `expected ${result.expected}, ${result.outcome === null ? "reported no outcome" : `got ${result.outcome}`}`;
}

// ── outcome per case ───────────────────────────────────────────────────

function outcomeCell(result: CaseResult, index: number): string {
  const look = VERDICT_LOOK[result.verdict];
  const label = `#${index + 1} ${result.id}: ${look.label}, ${expectedVsActual(result)}`;
  return (
    `<li class="cell v-${result.verdict}" data-verdict="${result.verdict}">` +
    `<svg class="outcome-mark" width="36" height="36" viewBox="0 0 36 36" role="img" aria-label="${escapeHtml(label)}">` +
    `<title>${escapeHtml(label)}</title><rect class="fill" x="1" y="1" width="34" height="34" rx="6"/>` +
    `<text x="18" y="24" text-anchor="middle" aria-hidden="true">${escapeHtml(look.symbol)}</text></svg>` +
    `<span class="cell-n" aria-hidden="true">${index + 1}</span></li>`
  );
}

function verdictLegend(cases: readonly CaseResult[]): string {
  const items = VERDICTS.flatMap((verdict) => {
    const count = cases.filter((result) => result.verdict === verdict).length;
    return count === 0 ? [] : [`<li>${verdictBadge(verdict)} <span class="count">${count}</span></li>`];
  });
  return `<ul class="legend">${items.join("")}</ul>`;
}

/** One square per case, numbered as in the table, and a legend with the count of each verdict. */
export function outcomeChart(report: Report): string {
  const body =
    report.cases.length === 0
      ? `<p class="muted">No cases.</p>`
      : `<ol class="cells" data-testid="outcome-chart">${report.cases.map(outcomeCell).join("")}</ol>${verdictLegend(report.cases)}`;
  return `<section aria-labelledby="outcomes-h"><h2 id="outcomes-h">Outcome per case</h2><p class="hint">One square per case, numbered as in the table; hover for the expected and actual outcome.</p>${body}</section>`;
}

// ── bar charts: time and cost ──────────────────────────────────────────

/** A value as a percentage of the scale, with a sliver for a tiny non-zero value so it stays visible. */
export function percentOf(value: number, max: number): number {
  if (max <= 0 || value <= 0) return 0;
  return Math.min(100, Math.max(0.75, (value / max) * 100));
}

const pct = (value: number) => `${value.toFixed(2)}%`;

type Bar = {
  result: CaseResult;
  /** Bar length, 0..100; null draws an empty, dashed track (no figure). */
  percent: number | null;
  /** A second mark on the bar (the 🚀), 0..100. */
  marker?: { percent: number; title: string };
  /** Drawn lighter: the figure is a floor. */
  partial?: boolean;
  value: string;
  title: string;
};

function barRow(bar: Bar, medianPercent: number | null): string {
  const { result } = bar;
  const look = VERDICT_LOOK[result.verdict];
  const shapes: string[] = [`<rect class="track" x="0" y="5" width="100%" height="14" rx="3"/>`];
  if (bar.percent === null) shapes.push(`<rect class="unknown" x="0" y="5.5" width="100%" height="13" rx="3"/>`);
  else if (bar.percent > 0) shapes.push(`<rect class="fill${bar.partial ? " partial" : ""}" x="0" y="5" width="${pct(bar.percent)}" height="14" rx="3"/>`);
  if (medianPercent !== null) shapes.push(`<line class="median" x1="${pct(medianPercent)}" x2="${pct(medianPercent)}" y1="0" y2="24"/>`);
  if (bar.marker) {
    shapes.push(`<circle class="start" cx="${pct(bar.marker.percent)}" cy="12" r="4.5"><title>${escapeHtml(bar.marker.title)}</title></circle>`);
  }
  return (
    `<div class="bar-row v-${result.verdict}" data-case="${escapeHtml(result.id)}">` +
    `<span class="bar-label" title="${escapeHtml(`${result.id}: ${look.label}`)}"><span class="sym" aria-hidden="true">${look.symbol}</span>${escapeHtml(result.id)}</span>` +
    `<svg class="bar" width="100%" height="24" aria-hidden="true"><title>${escapeHtml(bar.title)}</title>${shapes.join("")}</svg>` +
    `<span class="bar-value">${escapeHtml(bar.value)}</span></div>`
  );
}

/** The scale under the bars; none when no case has a figure (a scale of $0.00 would read as a cost). */
function axis(max: number, format: (value: number) => string): string {
  if (max <= 0) return "";
  const [mid, end] = [format(max / 2), format(max)];
  return `<div class="bar-row axis" aria-hidden="true"><span class="axis-pad"></span><span class="ticks"><span>0</span><span class="mid">${escapeHtml(mid)}</span><span>${escapeHtml(end)}</span></span><span class="axis-pad"></span></div>`;
}

/** Sorted descending by `key`; cases without a figure last, in report order. */
function sortedBy(cases: readonly CaseResult[], key: (result: CaseResult) => number | null): CaseResult[] {
  return [...cases].sort((a, b) => (key(b) ?? -1) - (key(a) ?? -1));
}

function skippedNote(report: Report): string {
  const skipped = report.cases.filter((result) => result.verdict === "skipped").length;
  return skipped === 0 ? "" : `<p class="hint">${skipped} skipped ${skipped === 1 ? "case" : "cases"} not shown: ${skipped === 1 ? "it" : "they"} never started.</p>`;
}

/** What the marks mean: a swatch (a class) and its words, each kept on one line. */
function chartKey(items: [swatch: string, words: string][]): string {
  return `<ul class="key">${items.map(([swatch, words]) => `<li><span class="${swatch}"></span>${escapeHtml(words)}</li>`).join("")}</ul>`;
}

/** Each case that ran by its time to close, longest first, with its time to start as a dot. */
export function timeChart(report: Report): string {
  const ran = report.cases.filter((result) => result.verdict !== "skipped");
  const max = Math.max(0, ...ran.flatMap((result) => [result.timeToCloseMs ?? 0, result.timeToStartMs ?? 0]));
  const median = report.totals.medianTimeToCloseMs;
  const medianPercent = median === null || max === 0 ? null : percentOf(median, max);
  const rows = sortedBy(ran, (result) => result.timeToCloseMs).map((result) => {
    const close = result.timeToCloseMs;
    const start = result.timeToStartMs;
    const title = `${result.id}: closed after ${formatDuration(close)}, 🚀 after ${formatDuration(start)}`;
    const bar: Bar = { result, percent: close === null ? null : percentOf(close, max), value: formatDuration(close), title };
    if (start !== null && max > 0) bar.marker = { percent: percentOf(start, max), title: `🚀 after ${formatDuration(start)}` };
    return barRow(bar, medianPercent);
  });
  const body =
    rows.length === 0
      ? `<p class="muted">No case ran.</p>`
      : `<div class="bars" data-testid="time-chart">${rows.join("")}${axis(max, formatDuration)}</div>`;
  const key = chartKey([["key-bar", "time to close"], ["key-dot", "time to start 🚀"], ["key-median", `median ${formatDuration(median)}`]]);
  return `<section aria-labelledby="time-h"><h2 id="time-h">Time per case</h2>${key}${body}${skippedNote(report)}</section>`;
}

/** The total against the cap, then each case that ran by its cost, dearest first. */
export function costChart(report: Report): string {
  const ran = report.cases.filter((result) => result.verdict !== "skipped");
  const max = Math.max(0, ...ran.map((result) => result.cost?.usd ?? 0));
  const median = report.totals.medianCostUsd;
  const medianPercent = median === null || max === 0 ? null : percentOf(median, max);
  const rows = sortedBy(ran, (result) => result.cost?.usd ?? null).map((result) => {
    const value = costText(result.cost);
    const title = `${result.id}: ${value}${result.cost?.complete === false ? " (a floor: part of the usage was not priced)" : ""}`;
    return barRow({ result, percent: result.cost === null ? null : percentOf(result.cost.usd, max), partial: result.cost?.complete === false, value, title }, medianPercent);
  });
  const body =
    rows.length === 0
      ? `<p class="muted">No case ran.</p>`
      : `<div class="bars" data-testid="cost-chart">${rows.join("")}${axis(max, usd)}</div>`;
  const key = chartKey([["key-bar", "cost"], ["key-bar partial", "a floor (≥): part of the usage unpriced"], ["key-unknown", "unknown"], ["key-median", `median ${median === null ? "unknown" : usd(median)}`]]);
  return `<section aria-labelledby="cost-h"><h2 id="cost-h">Cost per case</h2>${budget(report)}${key}${body}${skippedNote(report)}</section>`;
}

/** The total against the cap, as one bar. */
function budget(report: Report): string {
  const total = report.totals.totalCost;
  const percent = percentOf(total.usd, report.costCapUsd);
  const over = total.usd >= report.costCapUsd;
  const share = over ? "the cap is reached" : total.complete || total.usd > 0 ? `${formatPercent(total.usd / report.costCapUsd)} of it` : "";
  return (
    `<div class="budget${over ? " over" : ""}" data-testid="budget"><div class="budget-text">Total <strong>${escapeHtml(costText(total))}</strong> of the ${escapeHtml(usd(report.costCapUsd))} cap` +
    `${share === "" ? "" : ` <span class="muted">(${escapeHtml(share)})</span>`}</div>` +
    `<svg class="bar" width="100%" height="14" aria-hidden="true"><rect class="track" x="0" y="0" width="100%" height="14" rx="3"/>` +
    `${percent > 0 ? `<rect class="fill" x="0" y="0" width="${pct(percent)}" height="14" rx="3"/>` : ""}</svg></div>`
  );
}
