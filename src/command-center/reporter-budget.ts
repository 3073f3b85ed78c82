/**
 * The reporter tier's three limits per repository (REPORTER_DAILY_BUDGET,
 * REPORTER_RUN_COST_BUDGET, REPORTER_MAX_RUNNING) and the rule they make: a
 * reporter dispatch reserves its run's cap, refused busy when the issue or
 * the repository has no place left, refused budget when what ended today
 * plus what is held plus this cap would pass the day's. Also the day's
 * figures the health report's Costs line judges. Pure; reporter-reservations.ts
 * applies it. Defaults and rules: docs/costs.md.
 */
import type { Cost } from "../shared/command-center";

/** What the settings default to when unset. */
export const DEFAULT_REPORTER_DAILY_BUDGET_USD = 5;
export const DEFAULT_REPORTER_RUN_COST_BUDGET_USD = 1;
export const DEFAULT_REPORTER_MAX_RUNNING = 2;
/**
 * A reservation this old is dropped at the next reservation, so an end that
 * never arrives does not hold a place forever. Longer than any run: a run's
 * container stops at CONTAINER_MAX_LIFETIME_MS (4 hours), a reporter run
 * stops at its few dollars, and a quiet one is settled by reconciliation.
 */
export const RESERVATION_MAX_AGE_MS = 6 * 60 * 60 * 1000;

const DOLLARS = /^\d+(?:\.\d+)?$/;

export type ReporterDailyBudget =
  | { kind: "none" }
  | { kind: "cap"; usd: number }
  /** Not a number of dollars: every reporter dispatch is refused until it is fixed (a money limit fails closed). */
  | { kind: "invalid"; error: string };

export function parseReporterDailyBudget(raw: string | undefined): ReporterDailyBudget {
  const text = (raw ?? "").trim();
  if (text === "") return { kind: "cap", usd: DEFAULT_REPORTER_DAILY_BUDGET_USD };
  if (text === "0" || text.toLowerCase() === "none") return { kind: "none" };
  const usd = DOLLARS.test(text) ? Number(text) : Number.NaN;
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

/** REPORTER_RUN_COST_BUDGET: what one reporter run may spend. Never unlimited: "0" and "none" are refused like any other bad value. */
export type ReporterRunCostBudget = { kind: "cap"; usd: number } | { kind: "invalid"; error: string };

export function parseReporterRunCostBudget(raw: string | undefined): ReporterRunCostBudget {
  const text = (raw ?? "").trim();
  if (text === "") return { kind: "cap", usd: DEFAULT_REPORTER_RUN_COST_BUDGET_USD };
  const usd = DOLLARS.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(usd) || usd <= 0) {
    return { kind: "invalid", error: `REPORTER_RUN_COST_BUDGET must be a number of US dollars above 0, such as 1 (a reporter run always has a cap); got ${JSON.stringify(text)}` };
  }
  return { kind: "cap", usd };
}

/**
 * What the ThinkAgent caps a reporter run's own spend at (the lower of this
 * and RUN_COST_BUDGET is its budget). Never 0, which would mean no budget
 * there: a value that does not parse gives the default, and dispatch
 * refuses every reporter run until it is fixed anyway.
 */
export function reporterRunCapUsd(raw: string | undefined): number {
  const parsed = parseReporterRunCostBudget(raw);
  return parsed.kind === "cap" ? parsed.usd : DEFAULT_REPORTER_RUN_COST_BUDGET_USD;
}

/** REPORTER_MAX_RUNNING: a whole number of runs, at least 1. */
export type ReporterMaxRunning = { kind: "max"; runs: number } | { kind: "invalid"; error: string };

export function parseReporterMaxRunning(raw: string | undefined): ReporterMaxRunning {
  const text = (raw ?? "").trim();
  if (text === "") return { kind: "max", runs: DEFAULT_REPORTER_MAX_RUNNING };
  const runs = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(runs) || runs < 1) {
    return { kind: "invalid", error: `REPORTER_MAX_RUNNING must be a whole number of runs, at least 1, such as 2; got ${JSON.stringify(text)}` };
  }
  return { kind: "max", runs };
}

/** The settings as the command center reads them from its env. */
export type ReporterEnv = { REPORTER_DAILY_BUDGET?: string; REPORTER_RUN_COST_BUDGET?: string; REPORTER_MAX_RUNNING?: string };

export type ReporterLimits = { daily: Exclude<ReporterDailyBudget, { kind: "invalid" }>; runCapUsd: number; maxRunning: number };

/** All three, or the first that does not parse (and a run's cap above the day's, which would refuse every run). */
export function reporterLimits(env: ReporterEnv): { ok: true; limits: ReporterLimits } | { ok: false; error: string } {
  const daily = parseReporterDailyBudget(env.REPORTER_DAILY_BUDGET);
  const run = parseReporterRunCostBudget(env.REPORTER_RUN_COST_BUDGET);
  const max = parseReporterMaxRunning(env.REPORTER_MAX_RUNNING);
  if (daily.kind === "invalid") return { ok: false, error: daily.error };
  if (run.kind === "invalid") return { ok: false, error: run.error };
  if (max.kind === "invalid") return { ok: false, error: max.error };
  if (daily.kind === "cap" && run.usd > daily.usd) {
    return { ok: false, error: `REPORTER_RUN_COST_BUDGET ${dollars(run.usd)} is more than REPORTER_DAILY_BUDGET ${dollars(daily.usd)}, so no reporter run could start` };
  }
  return { ok: true, limits: { daily, runCapUsd: run.usd, maxRunning: max.runs } };
}

/** One held reservation: a reporter run dispatched whose end has not been recorded. */
export type Reservation = { repo: string; session: string; usd: number; at: number };

/** `CommandCenterAgent.reserveReporterRun`'s question: `session` is the run's own (`<the issue's session>.reporter`), `now` the dispatch's time. */
export type ReserveInput = { repo: string; session: string; now: number };

/** `CommandCenterAgent.reserveReporterRun`'s answer. */
export type ReserveResult = { ok: true; reservedUsd: number } | { ok: false; reason: "budget" | "busy" | "invalid"; detail: string };

/**
 * Whether `session`'s reporter run may start in `repo`: busy when the
 * session holds a reservation or the repository's reach REPORTER_MAX_RUNNING,
 * budget when today's spend (a floor counts) plus the held reservations plus
 * this run's cap would pass the day's cap. `held`: the repository's own.
 */
export function decideReservation(input: {
  limits: ReturnType<typeof reporterLimits>;
  repo: string;
  session: string;
  sessionHeld: boolean;
  held: readonly Reservation[];
  spend: ReporterSpend;
}): ReserveResult {
  const { limits: parsed, repo, session, held, spend } = input;
  if (!parsed.ok) return { ok: false, reason: "invalid", detail: `${parsed.error}: every reporter run is refused until it is fixed` };
  const { daily, runCapUsd, maxRunning } = parsed.limits;
  if (input.sessionHeld) return { ok: false, reason: "busy", detail: `a reporter run is already going for ${session}, so agent-think starts the next one there once it ends` };
  if (held.length >= maxRunning) {
    return { ok: false, reason: "busy", detail: `${runs(held.length)} going in ${repo}, as many as REPORTER_MAX_RUNNING ${maxRunning} allows, so agent-think starts another there once one ends; maintainers' runs go on` };
  }
  const heldUsd = sumUsd(held.map((reservation) => reservation.usd));
  if (daily.kind === "cap" && micros(spend.spent.usd) + micros(heldUsd) + micros(runCapUsd) > micros(daily.usd)) {
    return { ok: false, reason: "budget", detail: reporterBudgetDetail(daily.usd, spend, repo, { runs: held.length, usd: heldUsd }, runCapUsd) };
  }
  return { ok: true, reservedUsd: runCapUsd };
}

/**
 * The budget refusal's words after its fixed prefix: what was spent, what
 * is held for runs going, what one more may spend, of what, when, where.
 */
export function reporterBudgetDetail(capUsd: number, spend: ReporterSpend, repo: string, held = { runs: 0, usd: 0 }, runCapUsd?: number): string {
  const spent = `${spend.spent.complete ? "" : "at least "}${dollars(spend.spent.usd)}`;
  const going = held.runs > 0 ? `, ${dollars(held.usd)} held for ${runs(held.runs)} going` : "";
  const next = runCapUsd !== undefined && spend.spent.usd < capUsd ? `, and one more may spend REPORTER_RUN_COST_BUDGET ${dollars(runCapUsd)}` : "";
  const until = held.runs > 0 ? "one going ends under its cap or 00:00 UTC" : "00:00 UTC";
  return `${spent} of REPORTER_DAILY_BUDGET ${dollars(capUsd)} spent on ${spend.day} (UTC) by ${runs(spend.runs)} in ${repo}${going}${next}, so agent-think takes no more reporter runs there until ${until}; maintainers' runs go on`;
}

const dollars = (amount: number) => `$${amount.toFixed(2)}`;
const runs = (count: number) => `${count} reporter run${count === 1 ? "" : "s"}`;
/** Millionths of a dollar: sums of decimal dollars compared without binary fractions (0.1 + 0.2 is not above 0.3). */
const micros = (amount: number) => Math.round(amount * 1_000_000);
const sumUsd = (amounts: readonly number[]) => amounts.reduce((sum, amount) => sum + micros(amount), 0) / 1_000_000;

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
