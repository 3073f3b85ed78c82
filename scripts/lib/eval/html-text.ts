/**
 * The small pieces every section of the eval report page (html.ts) is built
 * from: text escaped for the page, a link only for an http(s) URL, times and
 * costs as the page writes them, and each verdict's word and symbol beside
 * its colour. docs/eval.md says why everything is escaped.
 */
import { formatCost } from "../../../src/shared/pricing";
import { formatPercent, NO_VALUE } from "../../../src/ui/view-models/format";
import type { EvalCost, Report, Verdict } from "./report";

/** The text and symbol of each verdict; the colour is the `v-<verdict>` class in the stylesheet. */
export const VERDICT_LOOK: Record<Verdict, { label: string; symbol: string }> = {
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

/** A dollar amount known in full (the cap, a median): "$5.00". */
export const usd = (amount: number) => formatCost({ usd: amount, complete: true });

/** The resolve rate as "58%", or a dash when nothing ran. */
export function resolveRateText(report: Report): string {
  return report.totals.resolveRate === null ? NO_VALUE : formatPercent(report.totals.resolveRate);
}

/** A verdict as its colour, its symbol and its word, so colour is never the only signal. */
export function verdictBadge(verdict: Verdict): string {
  const look = VERDICT_LOOK[verdict];
  return `<span class="badge v-${verdict}"><span aria-hidden="true">${look.symbol}</span> ${look.label}</span>`;
}
