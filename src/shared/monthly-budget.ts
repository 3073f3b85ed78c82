/**
 * `MONTHLY_COST_BUDGET`: the US dollars the command center's recorded spend
 * may reach in a calendar month (UTC) before new runs are refused. Parsing
 * the setting, the month a time falls in, the refusal dispatch throws, and
 * how a caller recognises that refusal after it crossed RPC (by its
 * message: RPC keeps an error's message, not its own properties). Shared by
 * the agent Worker (src/service.ts, src/health/costs.ts) and the webhook
 * app, which shows the refusal on the issue. Pure; docs/costs.md.
 */
import { crossedMessage } from "./crossed-message";
import type { Cost } from "./command-center";

export type MonthlyBudget =
  /** Empty: no cap. */
  | { kind: "none" }
  | { kind: "cap"; usd: number }
  /** Not a positive number of dollars: every dispatch is refused until it is fixed. */
  | { kind: "invalid"; error: string };

export function parseMonthlyBudget(raw: string | undefined): MonthlyBudget {
  const text = (raw ?? "").trim();
  if (text === "") return { kind: "none" };
  const usd = /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(usd) || usd <= 0) {
    return {
      kind: "invalid",
      error: `MONTHLY_COST_BUDGET must be a positive number of US dollars, such as 100, or empty for no cap; got ${JSON.stringify(text)}`
    };
  }
  return { kind: "cap", usd };
}

/** `2026-12`: the calendar month (UTC) `at` falls in; spend is summed per such month. */
export function monthOf(at: number): string {
  return new Date(at).toISOString().slice(0, 7);
}

/** When the month after `at`'s begins (UTC), in ms. */
export function nextMonthStart(at: number): number {
  const date = new Date(at);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** What the month has spent so far against the cap. */
export type MonthlySpend = { month: string; spent: Cost };

/** Reached once what is known to be spent is at least the cap (an incomplete total is a floor, so it counts too). */
export function budgetReached(budget: MonthlyBudget, spend: MonthlySpend): boolean {
  return budget.kind === "cap" && spend.spent.usd >= budget.usd;
}

/** The first words of every refusal's message: what a caller on the other side of RPC tests for. */
export const MONTHLY_BUDGET_REFUSAL = "monthly cost budget reached:";

/** The month's spend reached MONTHLY_COST_BUDGET: the dispatch (or Continue) starts nothing. */
export class MonthlyBudgetReachedError extends Error {
  override readonly name = "MonthlyBudgetReachedError";
  readonly code = "monthly_budget_reached";
  constructor(capUsd: number, spend: MonthlySpend, at: number) {
    const spent = `${spend.spent.complete ? "" : "at least "}$${spend.spent.usd.toFixed(2)}`;
    const resumes = new Date(nextMonthStart(at)).toISOString().slice(0, 10);
    super(
      `${MONTHLY_BUDGET_REFUSAL} ${spent} of MONTHLY_COST_BUDGET $${capUsd.toFixed(2)} spent in ${spend.month} (UTC), so agent-think starts no new runs until ${resumes} 00:00 UTC or until the budget is raised; runs already going finish`
    );
  }
}

/** MONTHLY_COST_BUDGET does not parse: a configuration error, like a model that cannot work. */
export class MonthlyBudgetConfigError extends Error {
  override readonly name = "MonthlyBudgetConfigError";
  readonly code = "bad_monthly_budget";
}

/** Is `error` the budget's refusal? By its message, so one that crossed RPC counts too. */
export function isMonthlyBudgetRefusal(error: unknown): boolean {
  return crossedMessage(error).startsWith(MONTHLY_BUDGET_REFUSAL);
}

/** The key that makes the issue hear of the refusal once per month: `<month>:<owner/name>#<issue>`, lowercase. */
export function budgetNoticeKey(repo: string, issueNumber: number, at: number): string {
  return `${monthOf(at)}:${repo.toLowerCase()}#${issueNumber}`;
}
