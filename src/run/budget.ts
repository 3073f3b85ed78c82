/**
 * A run's budgets: the step cap (MAX_STEPS, Think's own `maxSteps`) and the
 * token budget (RUN_TOKEN_BUDGET), which stops the loop through a `stopWhen`
 * condition. A run that reaches either ends as "budget exhausted"
 * (src/run/ending.ts). Pure.
 */
import type { StopCondition, ToolSet } from "ai";
import type { BudgetHit } from "./run-ledger";

export const DEFAULT_MAX_STEPS = 250;
export const DEFAULT_RUN_TOKEN_BUDGET = 4_000_000;

/** MAX_STEPS: a positive number, the default when unset or bad. */
export function parseMaxSteps(value: string | undefined): number {
  return parsePositiveInt(value, DEFAULT_MAX_STEPS);
}

/** RUN_TOKEN_BUDGET: a positive number of tokens, "0" for none, the default when unset or bad. */
export function parseTokenBudget(value: string | undefined): number {
  return value?.trim() === "0" ? 0 : parsePositiveInt(value, DEFAULT_RUN_TOKEN_BUDGET);
}

function parsePositiveInt(value: string | undefined, fallback: number): number {
  const parsed = Number.parseInt(value ?? "", 10);
  return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : fallback;
}

/**
 * Stops the loop once the run's tokens reach `budget`: `usedBefore` (what
 * earlier turns of the same submission used, for a recovered turn) plus
 * this turn's steps so far. `onHit` records it before the loop ends.
 */
export function tokenBudgetStop(options: {
  budget: number;
  usedBefore: number;
  onHit(hit: BudgetHit): Promise<void>;
}): StopCondition<ToolSet> {
  return async ({ steps }) => {
    const used = steps.reduce((sum, step) => sum + (step.usage.inputTokens ?? 0) + (step.usage.outputTokens ?? 0), options.usedBefore);
    if (used < options.budget) return false;
    await options.onHit({ used, budget: options.budget });
    return true;
  };
}
