/**
 * The eval report as one HTML page, written beside the JSON by
 * scripts/eval.ts: the run's header, its totals, a table of expected against
 * reported outcomes, then the comparison (html-comparison.ts), the charts
 * (html-charts.ts) and the case table (html-case-table.ts). Self-contained:
 * inline CSS (html-style.ts), inline SVG, no script, and a CSP that lets it
 * fetch nothing. Everything shown is escaped (html-text.ts); docs/eval.md
 * says why. Pure.
 */
import { formatDuration } from "../../../src/ui/view-models/format";
import {
  expectedRows,
  falseReproductions,
  fixesOf,
  fixesText,
  FALSE_REPRODUCTION_EXPECTED,
  NO_OUTCOME,
  REPORTED_KEYS,
  type Comparison,
  type Report
} from "./report";
import { casesTable } from "./html-case-table";
import { costChart, outcomeChart, timeChart } from "./html-charts";
import { comparisonSection } from "./html-comparison";
import { REPORT_STYLE } from "./html-style";
import { costText, escapeHtml, formatWhen, link, resolveRateText, safeHref, usd } from "./html-text";

/** Nothing is fetched: no script, font, image or connection; only the inline style. */
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

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
      : `<p class="notice tone-bad" data-notice="false-reproduction"><strong>${wrong.length} false ${wrong.length === 1 ? "reproduction" : "reproductions"}:</strong> reported reproduced where the case expected ${FALSE_REPRODUCTION_EXPECTED.join(", ")}, telling the maintainer working code is broken: ${wrong.map((result) => `<code>${escapeHtml(result.id)}</code> (expected ${escapeHtml(result.expected)})`).join(", ")}.</p>`;
  return (
    `<section aria-labelledby="by-expected-h"><h2 id="by-expected-h">By expected outcome</h2>${intro}` +
    `<div class="table-wrap matrix-wrap" tabindex="0" role="region" aria-labelledby="by-expected-h"><table class="matrix" data-testid="by-expected">` +
    `<thead><tr><th scope="col" rowspan="2">Expected</th><th scope="col" rowspan="2" class="num">Cases</th><th scope="col" rowspan="2" class="num">Passed</th>` +
    `<th scope="colgroup" colspan="${columns.length}" class="reported-h">Reported</th></tr><tr>${head}</tr></thead>` +
    `<tbody>${body}</tbody></table></div>${warning}</section>`
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
