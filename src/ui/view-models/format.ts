/**
 * Number and time formatting for the dashboard: durations, rates, counts,
 * bytes and relative times ("2 min ago"). Pure: `now` is always a parameter,
 * so the same inputs render the same text in a test and in the browser.
 */

/** What the dashboard shows for a figure that does not exist yet. */
export const NO_VALUE = "—";

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** Anything this recent (or a little in the future, from clock skew) is "just now". */
const JUST_NOW_MS = 10 * SECOND_MS;

const isFiniteNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** 420 ms, 12.3 s, 4 min 05 s, 1 h 02 min. */
export function formatDuration(ms: number | null | undefined): string {
  if (!isFiniteNumber(ms) || ms < 0) return NO_VALUE;
  if (ms < SECOND_MS) return `${Math.round(ms)} ms`;
  if (ms < 10 * SECOND_MS) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  if (ms < MINUTE_MS) return `${Math.floor(ms / SECOND_MS)} s`;
  if (ms < HOUR_MS) {
    const minutes = Math.floor(ms / MINUTE_MS);
    const seconds = Math.floor((ms % MINUTE_MS) / SECOND_MS);
    return `${minutes} min ${String(seconds).padStart(2, "0")} s`;
  }
  const hours = Math.floor(ms / HOUR_MS);
  const minutes = Math.floor((ms % HOUR_MS) / MINUTE_MS);
  return `${hours} h ${String(minutes).padStart(2, "0")} min`;
}

/** A 0..1 rate as a percentage: 97%, 96.5%, 0.4%. */
export function formatPercent(rate: number | null | undefined): string {
  if (!isFiniteNumber(rate)) return NO_VALUE;
  const percent = Math.min(100, Math.max(0, rate * 100));
  const rounded = Math.round(percent * 10) / 10;
  return `${Number.isInteger(rounded) ? rounded.toFixed(0) : rounded.toFixed(1)}%`;
}

/** 1,234 (always with a comma, whatever the browser's locale, so tests and screenshots agree). */
export function formatCount(value: number | null | undefined): string {
  if (!isFiniteNumber(value)) return NO_VALUE;
  return Math.round(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** 512 B, 1.5 KB, 12 MB (powers of 1024). */
export function formatBytes(bytes: number | null | undefined): string {
  if (!isFiniteNumber(bytes) || bytes < 0) return NO_VALUE;
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${value} B`;
  return `${value < 10 ? (Math.round(value * 10) / 10).toString() : Math.round(value).toString()} ${units[unit]}`;
}

/** "just now", "42 s ago", "2 min ago", "3 h ago", "5 d ago", then the date. */
export function formatRelativeTime(then: number | null | undefined, now: number): string {
  if (!isFiniteNumber(then)) return NO_VALUE;
  const elapsed = now - then;
  if (elapsed < JUST_NOW_MS) return "just now";
  if (elapsed < MINUTE_MS) return `${Math.floor(elapsed / SECOND_MS)} s ago`;
  if (elapsed < HOUR_MS) return `${Math.floor(elapsed / MINUTE_MS)} min ago`;
  if (elapsed < DAY_MS) return `${Math.floor(elapsed / HOUR_MS)} h ago`;
  if (elapsed < 7 * DAY_MS) return `${Math.floor(elapsed / DAY_MS)} d ago`;
  return new Date(then).toISOString().slice(0, 10);
}

/** The exact time, for a tooltip: 2026-11-29 14:03:07 UTC. */
export function formatTimestamp(ms: number | null | undefined): string {
  if (!isFiniteNumber(ms)) return NO_VALUE;
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** Cut text to `max` characters on one line, with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** $0.42, $1,234.50; a positive amount under a cent is "<$0.01", so a small cost never reads as nothing. */
export function formatUsd(usd: number): string {
  if (!isFiniteNumber(usd) || usd <= 0) return "$0.00";
  if (usd < 0.01) return "<$0.01";
  const [whole = "0", cents = "00"] = usd.toFixed(2).split(".");
  return `$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${cents}`;
}

export type CostView = {
  /** "$0.42", "≥ $0.42" (a floor) or "unknown". */
  text: string;
  /** Why the figure is a floor or unknown, for a tooltip. */
  title?: string;
  /** complete: the whole cost; floor: at least this; unknown: nothing reported or priced. */
  kind: "complete" | "floor" | "unknown";
};

export const COST_FLOOR_TITLE = "some usage was not reported or not priced";
export const COST_UNKNOWN_TITLE = "no usage was reported or priced";

/**
 * What runs cost, as the dashboard writes it (docs/dashboard.md, Cost): the
 * whole in dollars when every step was reported and priced; "≥ $…" when
 * some was not (the sum is a floor); "unknown" when nothing was, or no cost
 * came at all. An unknown is never $0.00.
 */
export function costView(cost: { usd: number; complete: boolean } | null | undefined): CostView {
  if (!cost || !isFiniteNumber(cost.usd) || cost.usd < 0) return { text: "unknown", title: COST_UNKNOWN_TITLE, kind: "unknown" };
  if (cost.complete) return { text: formatUsd(cost.usd), kind: "complete" };
  if (cost.usd > 0) {
    // A floor under a cent: "at least something", never "≥ $0.00".
    return { text: cost.usd < 0.01 ? "> $0.00" : `≥ ${formatUsd(cost.usd)}`, title: COST_FLOOR_TITLE, kind: "floor" };
  }
  return { text: "unknown", title: COST_UNKNOWN_TITLE, kind: "unknown" };
}
