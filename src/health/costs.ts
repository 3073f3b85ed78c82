/**
 * The costs line: what the warm pool costs a month (WARM_POOL_SIZE at the instance type,
 * src/shared/container-pricing.ts), this month's spend against MONTHLY_COST_BUDGET, and apart,
 * today's reporter-tier runs and spend per repository against REPORTER_DAILY_BUDGET. What warns,
 * what blocks, and why: docs/health.md, `costs`; the reporter tier only ever warns, since
 * maintainers' runs go on. The caller passes the command center's `monthlySpend()` and, to show
 * the day's figures, its metrics' `reporterSpendToday`.
 */
import { containerInstance } from "../pool/launch-spec";
import type { InstanceType } from "../shared/container-pricing";
import { DEFAULT_WARM_POOL_SIZE, parseWarmPoolSize } from "../pool/warm-pool-size";
import { CONTAINER_PRICES, formatUsd, warmPoolMonthlyCost } from "../shared/container-pricing";
import type { HealthCheck } from "../shared/health";
import { budgetReached, nextMonthStart, parseMonthlyBudget, type MonthlySpend } from "../shared/monthly-budget";
import { dayOf } from "../shared/reporter-budget";
import type { Cost } from "../shared/command-center";
import { SPEND_TOP } from "../command-center/snapshot";
import { parseReporterDailyBudget, reporterBudgetPaused, reporterSpendTotal, type RepoReporterSpend } from "../command-center/reporter-budget";
import { HEALTH_LABELS } from "./labels";
import { errorText, HEALTH_PROBE_TIMEOUT_MS, withTimeout } from "./run-checks";

const LABEL = HEALTH_LABELS.costs;
/** The share of the cap at which the line warns. */
export const BUDGET_WARN_SHARE = 0.8;

export type CostsConfig = {
  WARM_POOL_SIZE?: string;
  MONTHLY_COST_BUDGET?: string;
  REPORTER_DAILY_BUDGET?: string;
  CONTAINER_INSTANCE_TYPE?: string;
  CONTAINERS_ENABLED?: string;
};

export type CostsOptions = {
  now: number;
  timeoutMs?: number;
  secrets?: readonly string[];
  /** Today's reporter-tier runs per repository (the command center's metrics' `reporterSpendToday`); without it the line names only the daily cap. */
  reporterSpend?: () => Promise<readonly RepoReporterSpend[]>;
};

type Part = { status: HealthCheck["status"]; detail: string; fix?: string };

export async function costsHealth(env: CostsConfig, monthlySpend: () => Promise<MonthlySpend>, options: CostsOptions): Promise<HealthCheck> {
  // Asked side by side: each has its own deadline, and neither waits for the other.
  const [month, reporters] = await Promise.all([monthPart(env, monthlySpend, options), reporterPart(env, options)]);
  // The reporter tier's day ends every line; its warning joins the line's, but a block keeps only the block's fix.
  const status = month.status === "ok" ? reporters.status : month.status;
  const fix = (month.status === "block" ? [month.fix] : [month.fix, reporters.fix]).filter((text): text is string => Boolean(text)).join("; ");
  return { id: "costs", label: LABEL, status, detail: `${month.detail}; ${reporters.detail}`, ...(fix ? { fix } : {}) };
}

/** The warm pool and the month against MONTHLY_COST_BUDGET. */
async function monthPart(env: CostsConfig, monthlySpend: () => Promise<MonthlySpend>, options: CostsOptions): Promise<Part> {
  const line = (status: HealthCheck["status"], detail: string, fix?: string): Part => ({ status, detail, ...(fix ? { fix } : {}) });
  const size = parseWarmPoolSize(env.WARM_POOL_SIZE);
  const pool = poolText(env, size.ok ? size.size : DEFAULT_WARM_POOL_SIZE);
  const budget = parseMonthlyBudget(env.MONTHLY_COST_BUDGET);
  if (budget.kind === "invalid") return line("block", `${budget.error}: every dispatch and Continue is refused; ${pool}`, "set MONTHLY_COST_BUDGET to a number of US dollars, such as 100, or leave it empty for no cap");

  let month = "no monthly cap (MONTHLY_COST_BUDGET is empty)";
  let status: HealthCheck["status"] = "ok";
  let fix: string | undefined;
  if (budget.kind === "cap") {
    let spend: MonthlySpend;
    try {
      spend = await withTimeout(monthlySpend(), options.timeoutMs ?? HEALTH_PROBE_TIMEOUT_MS, "the command center");
    } catch (error) {
      return line("block", `this month's spend cannot be read (${errorText(error, options.secrets)}), so every dispatch is refused while MONTHLY_COST_BUDGET is set; ${pool}`, "check the CommandCenterAgent binding, or empty MONTHLY_COST_BUDGET");
    }
    month = `${spend.month}: ${costText(spend.spent)} of MONTHLY_COST_BUDGET ${formatUsd(budget.usd)}`;
    if (budgetReached(budget, spend)) {
      const resumes = new Date(nextMonthStart(options.now)).toISOString().slice(0, 10);
      return line("block", `${month}: the budget is reached, so new runs are refused until ${resumes} (runs already going finish); ${pool}`, "raise MONTHLY_COST_BUDGET to start runs again this month");
    }
    if (spend.spent.usd >= budget.usd * BUDGET_WARN_SHARE) {
      status = "warn";
      fix = `new runs are refused once the month's spend reaches ${formatUsd(budget.usd)}: raise MONTHLY_COST_BUDGET if that is too soon`;
    }
  }
  if (!size.ok) return line("warn", `${size.error}, so the pool keeps its default of ${DEFAULT_WARM_POOL_SIZE}; ${pool}; ${month}`, "set WARM_POOL_SIZE to 0 or 1");
  return line(status, `${pool}; ${month}`, fix);
}

/** `warm pool: 1 standard-2 container, about $41.35 a month (Containers' rates of 2026-12-01)`. */
function poolText(env: CostsConfig, size: number): string {
  if (env.CONTAINERS_ENABLED !== "1") return "no warm pool (containers off)";
  if (size === 0) return "no container kept warm (WARM_POOL_SIZE=0): a run's first container command starts one";
  let instance: InstanceType;
  try {
    instance = containerInstance(env);
  } catch {
    return `warm pool: ${size} container of an unknown instance type (CONTAINER_INSTANCE_TYPE)`;
  }
  const monthly = warmPoolMonthlyCost(instance, size).totalUsd;
  return `warm pool: ${size} ${instance} container, about ${formatUsd(monthly)} a month (Containers' rates of ${CONTAINER_PRICES.asOf})`;
}

/**
 * `reporter runs today (2026-12-02 UTC) against REPORTER_DAILY_BUDGET $5.00
 * per repository: 3 runs, $1.20 (acme/widgets $1.00 by 2 runs, …)`: the
 * reporter tier's day apart from the month. It warns, never blocks: a
 * repository whose reporter runs are refused until 00:00 UTC, a cap that
 * does not parse, a day it cannot read while the cap is set.
 */
async function reporterPart(env: CostsConfig, options: CostsOptions): Promise<Part> {
  const budget = parseReporterDailyBudget(env.REPORTER_DAILY_BUDGET);
  if (budget.kind === "invalid") {
    return { status: "warn", detail: `${budget.error}: every reporter-tier run is refused (maintainers' runs go on)`, fix: "set REPORTER_DAILY_BUDGET to a number of US dollars, such as 5, or 0 for no cap" };
  }
  const cap = budget.kind === "cap" ? `REPORTER_DAILY_BUDGET ${formatUsd(budget.usd)} per repository` : "no reporter daily cap (REPORTER_DAILY_BUDGET is 0)";
  if (!options.reporterSpend) return { status: "ok", detail: `reporter runs: ${cap}` };
  const day = dayOf(options.now);
  let rows: readonly RepoReporterSpend[];
  try {
    rows = await withTimeout(options.reporterSpend(), options.timeoutMs ?? HEALTH_PROBE_TIMEOUT_MS, "the command center");
  } catch (error) {
    const why = errorText(error, options.secrets);
    // With no cap a reporter dispatch never asks, so nothing is refused for it.
    if (budget.kind !== "cap") return { status: "ok", detail: `reporter runs today: unknown (${why}); ${cap}` };
    return {
      status: "warn",
      detail: `today's reporter spend cannot be read (${why}), so every reporter-tier dispatch is refused while REPORTER_DAILY_BUDGET is set (maintainers' runs go on)`,
      fix: "check the CommandCenterAgent binding, or set REPORTER_DAILY_BUDGET to 0"
    };
  }
  const detail = `reporter runs today (${day} UTC) against ${cap}: ${reporterFigures(rows)}`;
  const paused = reporterBudgetPaused(budget, rows, day);
  if (paused.length === 0) return { status: "ok", detail };
  return {
    status: "warn",
    detail: `${detail}; reporter runs are refused until 00:00 UTC in ${paused.join(", ")} (maintainers' runs go on)`,
    fix: "raise REPORTER_DAILY_BUDGET to take more reporter runs today"
  };
}

/** `none`, or `3 runs, $1.20 (acme/widgets $1.00 by 2 runs, …)`; a list the metrics cut at SPEND_TOP says so and gives no total. */
function reporterFigures(rows: readonly RepoReporterSpend[]): string {
  if (rows.length === 0) return "none";
  const each = rows.map((row) => `${row.repo} ${costText(row.cost)} by ${runs(row.runs)}`).join(", ");
  if (rows.length >= SPEND_TOP) return `the ${rows.length} repositories that spent most: ${each}`;
  const total = reporterSpendTotal(rows);
  return `${runs(total.runs)}, ${costText(total.spent)} (${each})`;
}

const runs = (count: number) => `${count} run${count === 1 ? "" : "s"}`;
/** `$1.20`, or `at least $1.20` for a floor. */
const costText = (cost: Cost) => `${cost.complete ? "" : "at least "}${formatUsd(cost.usd)}`;
