/**
 * The costs line: what the warm pool costs a month (WARM_POOL_SIZE at the
 * instance type, src/shared/container-pricing.ts) and this month's spend
 * against MONTHLY_COST_BUDGET. A reached budget blocks, since every new run
 * is refused; so does a budget that does not parse (every dispatch is
 * refused) or a month's spend the command center does not give (dispatch
 * fails closed). A pool size that does not parse warns: the pool keeps its
 * default and runs work. Spend at 80% of the cap warns. The caller passes
 * the command center's `monthlySpend()`.
 */
import { containerInstance, type InstanceType } from "../pool/launch-spec";
import { DEFAULT_WARM_POOL_SIZE, parseWarmPoolSize } from "../pool/warm-pool-size";
import { CONTAINER_PRICES, formatUsd, warmPoolMonthlyCost } from "../shared/container-pricing";
import type { HealthCheck } from "../shared/health";
import { budgetReached, nextMonthStart, parseMonthlyBudget, type MonthlySpend } from "../shared/monthly-budget";
import { HEALTH_LABELS } from "./labels";
import { errorText, HEALTH_PROBE_TIMEOUT_MS, withTimeout } from "./run-checks";

const LABEL = HEALTH_LABELS.costs;
/** The share of the cap at which the line warns. */
export const BUDGET_WARN_SHARE = 0.8;

export type CostsConfig = {
  WARM_POOL_SIZE?: string;
  MONTHLY_COST_BUDGET?: string;
  CONTAINER_INSTANCE_TYPE?: string;
  CONTAINERS_ENABLED?: string;
};

export async function costsHealth(
  env: CostsConfig,
  monthlySpend: () => Promise<MonthlySpend>,
  options: { now: number; timeoutMs?: number; secrets?: readonly string[] }
): Promise<HealthCheck> {
  const line = (status: HealthCheck["status"], detail: string, fix?: string): HealthCheck => ({
    id: "costs",
    label: LABEL,
    status,
    detail,
    ...(fix ? { fix } : {})
  });
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
    const spent = `${spend.spent.complete ? "" : "at least "}${formatUsd(spend.spent.usd)}`;
    month = `${spend.month}: ${spent} of MONTHLY_COST_BUDGET ${formatUsd(budget.usd)}`;
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
