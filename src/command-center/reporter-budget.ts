/**
 * `REPORTER_DAILY_BUDGET`: the US dollars one repository's reporter-tier runs
 * may spend in a UTC day before its next reporter dispatch is refused
 * (default 5; "0" or "none": no cap). The command center sums the costs of
 * the reporter runs that ended today from their run records (cc_runs keeps
 * a week, so today is always there); src/service.ts asks it before a
 * reporter dispatch and throws shared/reporter-budget.ts's refusal. A
 * maintainer's run is never held to it. The same day's figures per
 * repository (the metrics' `reporterSpendToday`) are summed and judged here
 * for the health report's Costs line. Pure; docs/costs.md.
 */
import type { Cost } from "../shared/command-center";

/** What the setting defaults to when unset. */
export const DEFAULT_REPORTER_DAILY_BUDGET_USD = 5;

export type ReporterDailyBudget =
  | { kind: "none" }
  | { kind: "cap"; usd: number }
  /** Not a number of dollars: every reporter dispatch is refused until it is fixed (a money limit fails closed). */
  | { kind: "invalid"; error: string };

export function parseReporterDailyBudget(raw: string | undefined): ReporterDailyBudget {
  const text = (raw ?? "").trim();
  if (text === "") return { kind: "cap", usd: DEFAULT_REPORTER_DAILY_BUDGET_USD };
  if (text === "0" || text.toLowerCase() === "none") return { kind: "none" };
  const usd = /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(usd) || usd < 0) {
    return { kind: "invalid", error: `REPORTER_DAILY_BUDGET must be a number of US dollars, such as 5, or 0 for no cap; got ${JSON.stringify(text)}` };
  }
  return usd === 0 ? { kind: "none" } : { kind: "cap", usd };
}

/** What one repository's reporter runs spent on `day` (UTC, `2026-12-02`). */
export type ReporterSpend = { day: string; runs: number; spent: Cost };

/** Reached once what is known to be spent is at least the cap (an incomplete total is a floor, so it counts too). */
export function reporterBudgetReached(budget: ReporterDailyBudget, spend: ReporterSpend): boolean {
  return budget.kind === "cap" && spend.spent.usd >= budget.usd;
}

/** The refusal's words after its fixed prefix: what was spent, of what, when, where. */
export function reporterBudgetDetail(capUsd: number, spend: ReporterSpend, repo: string): string {
  const spent = `${spend.spent.complete ? "" : "at least "}$${spend.spent.usd.toFixed(2)}`;
  return `${spent} of REPORTER_DAILY_BUDGET $${capUsd.toFixed(2)} spent on ${spend.day} (UTC) by ${spend.runs} reporter run${spend.runs === 1 ? "" : "s"} in ${repo}, so agent-think takes no more reporter runs there until 00:00 UTC; maintainers' runs go on`;
}

/** One repository's reporter runs that ended today, as the command center's metrics carry them (`reporterSpendToday`). */
export type RepoReporterSpend = { repo: string; runs: number; cost: Cost };

/** The day's reporter runs across `rows`: how many, and what they cost together (a floor if any repository's is one). */
export function reporterSpendTotal(rows: readonly RepoReporterSpend[]): { runs: number; spent: Cost } {
  return {
    runs: rows.reduce((sum, row) => sum + row.runs, 0),
    spent: { usd: rows.reduce((sum, row) => sum + row.cost.usd, 0), complete: rows.every((row) => row.cost.complete) }
  };
}

/** The repositories in `rows` whose reporter runs reached the cap on `day`: each one's next reporter dispatch is refused until 00:00 UTC. */
export function reporterBudgetPaused(budget: ReporterDailyBudget, rows: readonly RepoReporterSpend[], day: string): string[] {
  return rows.filter((row) => reporterBudgetReached(budget, { day, runs: row.runs, spent: row.cost })).map((row) => row.repo);
}
