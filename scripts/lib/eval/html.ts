/**
 * The eval report as one HTML page, written beside the JSON: the run's
 * header, its totals, a table of expected against reported outcomes, three charts (each case's verdict, its time to close,
 * its cost), what changed since an earlier report when there is a
 * comparison, and a table with every case. The page is self-contained so it
 * can be opened from disk or attached anywhere: inline CSS, charts drawn
 * here as inline SVG, no script, and a CSP that lets it fetch nothing.
 *
 * Every string in a report comes from a case file or a run, so in the end
 * from an issue someone else wrote: all text and attributes are escaped, and
 * only http(s) URLs become links (anything else is shown as text). Colour is
 * never the only signal: each verdict also has its word and a symbol. An
 * unknown cost reads "unknown" and a floor "≥ $x", never "$0.00". Pure.
 */
import { formatCost } from "../../../src/shared/pricing";
import { formatCount, formatDuration, formatPercent, NO_VALUE } from "../../../src/ui/view-models/format";
import {
  expectedRows,
  falseReproductions,
  fixesOf,
  fixesText,
  modelsText,
  FALSE_REPRODUCTION_EXPECTED,
  NO_OUTCOME,
  REPORTED_KEYS,
  VERDICTS,
  type CaseChange,
  type CaseResult,
  type Comparison,
  type EvalCost,
  type Report,
  type Verdict
} from "./report";
import { REPORT_STYLE } from "./html-style";

/** Nothing is fetched: no script, font, image or connection; only the inline style. */
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/** The text and symbol of each verdict; the colour is the `v-<verdict>` class in the stylesheet. */
const VERDICT_LOOK: Record<Verdict, { label: string; symbol: string }> = {
  pass: { label: "pass", symbol: "✓" },
  fail: { label: "fail", symbol: "✗" },
  "timed-out": { label: "timed out", symbol: "◷" },
  "over-budget": { label: "over budget", symbol: "$" },
  skipped: { label: "skipped", symbol: "–" },
  error: { label: "error", symbol: "!" }
};

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text made safe for an element's content and for a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);
}

/** The URL if it is http(s), normalised; null for anything else (javascript:, data:, a relative path). */
export function safeHref(url: string | null): string | null {
  if (url === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
}

/** A link when the URL is http(s); otherwise the URL as plain text, or a dash when there is none. */
export function link(url: string | null, text: string): string {
  if (url === null || url === "") return `<span class="muted">${NO_VALUE}</span>`;
  const href = safeHref(url);
  if (href === null) return `<span class="not-a-link" title="${escapeHtml(url)} (not an http(s) link, so not a link)">${escapeHtml(url)}</span>`;
  return `<a href="${escapeHtml(href)}" rel="noopener noreferrer">${escapeHtml(text)}</a>`;
}

/** A report's ISO time as "2025-05-01 14:03 UTC"; the text itself when it is not a time. */
export function formatWhen(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A case's cost: "$0.42", "≥ $0.42" (a floor), "unknown" (null: the run reported none). */
export function costText(cost: EvalCost | null): string {
  return cost === null ? "unknown" : formatCost(cost);
}

const usd = (amount: number) => formatCost({ usd: amount, complete: true });

/** The resolve rate as "58%", or a dash when nothing ran. */
export function resolveRateText(report: Report): string {
  return report.totals.resolveRate === null ? NO_VALUE : formatPercent(report.totals.resolveRate);
}

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

function verdictBadge(verdict: Verdict): string {
  const look = VERDICT_LOOK[verdict];
  return `<span class="badge v-${verdict}"><span aria-hidden="true">${look.symbol}</span> ${look.label}</span>`;
}

/** "expected reproduced, got not-reproduced" (or "reported none"). */
function expectedVsActual(result: CaseResult): string {
  return `expected ${result.expected}, ${result.outcome === null ? "reported no outcome" : `got ${result.outcome}`}`;
}

// ── header ─────────────────────────────────────────────────────────────

function header(report: Report): string {
  const ran = formatDuration(Date.parse(report.finishedAt) - Date.parse(report.startedAt));
  const facts: [string, string][] = [
    ["Target", escapeHtml(report.target)],
    ["Against", safeHref(report.against) === null ? `<code>${escapeHtml(report.against)}</code>` : link(report.against, report.against)],
    ["When", `<time datetime="${escapeHtml(report.startedAt)}">${escapeHtml(formatWhen(report.startedAt))}</time> <span class="muted">(${escapeHtml(ran)})</span>`],
    [
      "Model",
      report.scripted
        ? `<strong class="scripted-label">scripted demonstration: no model ran</strong>`
        : report.model
          ? `<code data-testid="report-model">${escapeHtml(report.model)}</code> <span class="muted">(--model)</span>`
          : "real model runs"
    ],
    ["Concurrency", escapeHtml(String(report.concurrency))],
    ["Cost cap", escapeHtml(usd(report.costCapUsd))]
  ];
  const list = facts.map(([key, value]) => `<div><dt>${key}</dt><dd>${value}</dd></div>`).join("");
  return `<header class="page-header"><h1>Eval report</h1><dl class="facts">${list}</dl>${notices(report)}</header>`;
}

function notices(report: Report): string {
  const parts: string[] = [];
  if (report.scripted) {
    parts.push(`<p class="notice tone-warn" data-notice="scripted"><strong>Scripted demonstration: no model ran.</strong> The runs followed a script, so outcomes, times and costs show the harness working, not the bot's quality.</p>`);
  }
  if (report.stoppedBy === "cost-cap") {
    const skipped = report.cases.filter((result) => result.verdict === "skipped").length;
    parts.push(
      `<p class="notice tone-bad" role="status" data-notice="cost-cap"><strong>The cost cap stopped this run.</strong> Spending reached the ${escapeHtml(usd(report.costCapUsd))} cap, so no case started after it: ${skipped} ${skipped === 1 ? "case was" : "cases were"} skipped.</p>`
    );
  }
  return parts.join("");
}

// ── totals ─────────────────────────────────────────────────────────────

function tile(label: string, value: string, detail: string, testid: string): string {
  return `<div class="tile" data-testid="${testid}"><div class="tile-label">${label}</div><div class="tile-value">${value}</div><div class="tile-detail">${detail}</div></div>`;
}

function totalsSection(report: Report): string {
  const { totals } = report;
  const skipped = totals.cases - totals.ran;
  const knownCosts = report.cases.filter((result) => result.verdict !== "skipped" && result.cost !== null).length;
  const tiles = [
    tile("Resolve rate", escapeHtml(resolveRateText(report)), `${totals.passed} passed of ${totals.ran} ran${skipped > 0 ? ` (${skipped} skipped)` : ""}`, "resolve-rate"),
    tile("Median time to close", escapeHtml(formatDuration(totals.medianTimeToCloseMs)), "from the mention to the closing comment", "median-time"),
    tile("Median cost", escapeHtml(totals.medianCostUsd === null ? "unknown" : usd(totals.medianCostUsd)), `over ${knownCosts} known ${knownCosts === 1 ? "cost" : "costs"}`, "median-cost"),
    tile("Total cost", escapeHtml(costText(totals.totalCost)), `${totals.totalCost.complete ? "" : "some costs unknown or partial · "}cap ${escapeHtml(usd(report.costCapUsd))}`, "total-cost")
  ];
  const fixes = totals.fixes ?? fixesOf(report.cases);
  if (fixes.proven + fixes.unproven + fixes.unchecked > 0) {
    tiles.push(tile("Proven fixes", escapeHtml(`${fixes.proven} of ${fixes.proven + fixes.unproven + fixes.unchecked}`), escapeHtml(fixesText(fixes)), "proven-fixes"));
  }
  return `<section aria-labelledby="totals-h"><h2 id="totals-h">Totals</h2><div class="tiles">${tiles.join("")}</div></section>`;
}

// ── by expected outcome ────────────────────────────────────────────────

/** Expected (rows) × reported (columns), counts; the diagonal marked, a false reproduction marked as one, in words as well as colour. */
function byExpectedSection(report: Report): string {
  const rows = expectedRows(report);
  const intro = `<p class="hint">Each row is the cases that expected that outcome (skipped cases left out); each column what their runs reported. The marked diagonal is the right outcome, a pass only when the checks held and the cost was within the case's limit too.</p>`;
  if (rows.length === 0) return `<section aria-labelledby="by-expected-h"><h2 id="by-expected-h">By expected outcome</h2>${intro}<p class="muted">No case ran.</p></section>`;
  const columns = REPORTED_KEYS.filter((key) => rows.some((row) => (row.reported[key] ?? 0) > 0 || row.expected === key));
  const head = columns.map((key) => `<th scope="col" class="num outcome">${key === NO_OUTCOME ? "none" : escapeHtml(key)}</th>`).join("");
  const body = rows
    .map((row) => {
      const cells = columns.map((key) => {
        const count = row.reported[key] ?? 0;
        if (key === row.expected) return `<td class="num diag" title="${escapeHtml(`reported ${key}, as expected`)}">${count} <span class="sym" aria-label="as expected">✓</span></td>`;
        if (count === 0) return `<td class="num"><span class="muted">0</span></td>`;
        if (key === "reproduced" && FALSE_REPRODUCTION_EXPECTED.includes(row.expected)) {
          return `<td class="num false-repro" title="${escapeHtml(`false reproduction: expected ${row.expected}, reported reproduced`)}">${count} <span class="sym" aria-label="false reproduction">⚠</span></td>`;
        }
        return `<td class="num off">${count}</td>`;
      });
      return `<tr data-expected="${escapeHtml(row.expected)}"><th scope="row">${escapeHtml(row.expected)}</th><td class="num">${row.cases}</td><td class="num">${row.passed}</td>${cells.join("")}</tr>`;
    })
    .join("");
  const wrong = falseReproductions(report.cases);
  const warning =
    wrong.length === 0
      ? ""
      : `<p class="notice tone-bad" data-notice="false-reproduction"><strong>${wrong.length} false ${wrong.length === 1 ? "reproduction" : "reproductions"}:</strong> reported reproduced where the case expected not-reproduced or needs-info, telling the maintainer working code is broken: ${wrong.map((result) => `<code>${escapeHtml(result.id)}</code> (expected ${escapeHtml(result.expected)})`).join(", ")}.</p>`;
  return (
    `<section aria-labelledby="by-expected-h"><h2 id="by-expected-h">By expected outcome</h2>${intro}` +
    `<div class="table-wrap matrix-wrap" tabindex="0" role="region" aria-labelledby="by-expected-h"><table class="matrix" data-testid="by-expected">` +
    `<thead><tr><th scope="col" rowspan="2">Expected</th><th scope="col" rowspan="2" class="num">Cases</th><th scope="col" rowspan="2" class="num">Passed</th>` +
    `<th scope="colgroup" colspan="${columns.length}" class="reported-h">Reported</th></tr><tr>${head}</tr></thead>` +
    `<tbody>${body}</tbody></table></div>${warning}</section>`
  );
}

// ── chart 1: outcome per case ──────────────────────────────────────────

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

function outcomeChart(report: Report): string {
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

function timeChart(report: Report): string {
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

function costChart(report: Report): string {
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

// ── comparison ─────────────────────────────────────────────────────────

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

function comparisonSection(comparison: Comparison): string {
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

// ── the table ──────────────────────────────────────────────────────────

function checksCell(result: CaseResult): string {
  if (result.checks.length === 0) return `<span class="muted">${NO_VALUE}</span>`;
  const items = result.checks.map(
    (check) =>
      `<li class="${check.notRun ? "not-run" : check.ok ? "ok" : "not-ok"}"><span class="mark" aria-label="${check.notRun ? "not run" : check.ok ? "held" : "failed"}">${check.notRun ? "–" : check.ok ? "✓" : "✗"}</span> <strong>${escapeHtml(check.name)}</strong>${check.detail === "" ? "" : ` <span class="detail">${escapeHtml(check.detail)}</span>`}</li>`
  );
  return `<ul class="checks">${items.join("")}</ul>`;
}

function caseCell(result: CaseResult): string {
  const href = safeHref(result.source);
  const id = href === null ? `<span title="${escapeHtml(`source: ${result.source}`)}">${escapeHtml(result.id)}</span>` : `<a href="${escapeHtml(href)}" rel="noopener noreferrer">${escapeHtml(result.id)}</a>`;
  return `<div class="case-id">${id}</div><div class="case-title">${escapeHtml(result.title)}</div>`;
}

function outcomeText(result: CaseResult): string {
  if (result.outcome === null) return `<span class="muted">none</span>`;
  const cls = result.outcome === result.expected ? "" : ` class="mismatch"`;
  return `<span${cls}>${escapeHtml(result.outcome)}</span>`;
}

/** Tokens in over tokens out, two lines so the column stays narrow (HTML). */
function tokensHtml(result: CaseResult): string {
  if (result.tokens === null) return NO_VALUE;
  return `${escapeHtml(formatCount(result.tokens.input))} /<br>${escapeHtml(formatCount(result.tokens.output))}`;
}

/** The reproduction page, the thread and the issue, one a line: a link, the URL as text when it is not http(s), or "no …". */
function linksCell(result: CaseResult): string {
  const line = (label: string, url: string | null) => {
    if (url === null || url === "") return `<li class="muted">no ${label}</li>`;
    return safeHref(url) === null ? `<li><span class="link-label">${label}:</span> ${link(url, label)}</li>` : `<li>${link(url, label)}</li>`;
  };
  return `<ul class="link-list">${line("repro", result.reproductionUrl)}${line("thread", result.threadUrl)}${line("issue", result.issueUrl)}</ul>`;
}

function caseRow(result: CaseResult, index: number): string {
  const cells = [
    `<td class="num index">${index + 1} <span class="sym" aria-hidden="true">${VERDICT_LOOK[result.verdict].symbol}</span></td>`,
    `<th scope="row" class="case">${caseCell(result)}</th>`,
    `<td>${escapeHtml(result.expected)}</td>`,
    `<td>${outcomeText(result)}</td>`,
    `<td>${verdictBadge(result.verdict)}</td>`,
    `<td class="reason">${result.reason === undefined ? `<span class="muted">${NO_VALUE}</span>` : escapeHtml(result.reason)}</td>`,
    `<td class="num">${escapeHtml(formatDuration(result.timeToStartMs))}</td>`,
    `<td class="num">${escapeHtml(formatDuration(result.timeToCloseMs))}</td>`,
    `<td class="num">${escapeHtml(result.toolCalls === null ? NO_VALUE : formatCount(result.toolCalls))}</td>`,
    `<td class="num">${tokensHtml(result)}</td>`,
    `<td class="num">${escapeHtml(costText(result.cost))}</td>`,
    `<td class="model">${result.models ? `<code>${escapeHtml(modelsText(result.models))}</code>` : `<span class="muted">${NO_VALUE}</span>`}</td>`,
    `<td class="links">${linksCell(result)}</td>`,
    `<td class="checks-cell">${checksCell(result)}</td>`
  ];
  return `<tr class="v-${result.verdict}" data-case="${escapeHtml(result.id)}">${cells.join("")}</tr>`;
}

function casesTable(report: Report): string {
  const heads = ["#", "Case", "Expected", "Outcome", "Verdict", "Reason", "To start 🚀", "To close", "Tool calls", "Tokens in / out", "Cost", "Model", "Links", "Checks"];
  const headRow = heads.map((head) => `<th scope="col">${head}</th>`).join("");
  const rows = report.cases.length === 0 ? `<tr><td colspan="${heads.length}" class="muted">No cases.</td></tr>` : report.cases.map(caseRow).join("");
  return (
    `<section aria-labelledby="cases-h"><h2 id="cases-h">Cases</h2>` +
    `<div class="table-wrap" tabindex="0" role="region" aria-labelledby="cases-h"><table data-testid="cases"><thead><tr>${headRow}</tr></thead><tbody>${rows}</tbody></table></div></section>`
  );
}

// ── the page ───────────────────────────────────────────────────────────


/** The report (and, given one, its comparison with an earlier report) as one self-contained HTML page. */
export function renderReportHtml(report: Report, comparison?: Comparison): string {
  const title = `Eval report: ${report.target}, ${formatWhen(report.startedAt)}${report.scripted ? " (scripted)" : ""}`;
  const sections = [totalsSection(report), byExpectedSection(report), comparison ? comparisonSection(comparison) : "", outcomeChart(report), timeChart(report), costChart(report), casesTable(report)];
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">` +
    `<meta name="referrer" content="no-referrer">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>${REPORT_STYLE}</style></head>` +
    `<body><main>${header(report)}${sections.join("")}</main></body></html>\n`
  );
}
