/**
 * The eval report page's table of cases (html.ts places it last): one row
 * per case in report order, numbered as in the outcome chart, with its
 * verdict and reason, times, tool calls, tokens, cost, models, links and
 * checks. A source or link that is not http(s) is shown as text.
 */
import { formatCount, formatDuration, NO_VALUE } from "../../../src/ui/view-models/format";
import { modelsText, type CaseResult, type Report } from "./report";
import { costText, escapeHtml, link, safeHref, VERDICT_LOOK, verdictBadge } from "./html-text";

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

/** Every case in a table that scrolls sideways on its own on a narrow screen. */
export function casesTable(report: Report): string {
  const heads = ["#", "Case", "Expected", "Outcome", "Verdict", "Reason", "To start 🚀", "To close", "Tool calls", "Tokens in / out", "Cost", "Model", "Links", "Checks"];
  const headRow = heads.map((head) => `<th scope="col">${head}</th>`).join("");
  const rows = report.cases.length === 0 ? `<tr><td colspan="${heads.length}" class="muted">No cases.</td></tr>` : report.cases.map(caseRow).join("");
  return (
    `<section aria-labelledby="cases-h"><h2 id="cases-h">Cases</h2>` +
    `<div class="table-wrap" tabindex="0" role="region" aria-labelledby="cases-h"><table data-testid="cases"><thead><tr>${headRow}</tr></thead><tbody>${rows}</tbody></table></div></section>`
  );
}
