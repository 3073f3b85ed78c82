/**
 * A run's budgets: the step cap (MAX_STEPS, Think's own `maxSteps`), the
 * token budget (RUN_TOKEN_BUDGET, cached input weighed at its price) and
 * the money budget (RUN_COST_BUDGET, in
 * US dollars, priced by src/shared/pricing.ts), the last two through
 * `stopWhen` conditions. A run that reaches any ends as "budget exhausted"
 * (src/run/ending.ts). Also how a model step's usage and model are read for
 * pricing. Pure.
 */
import type { StopCondition, ToolSet } from "ai";
import type { Cost } from "../shared/command-center";
import { addCost, priceOf, stepCost, type PriceTable, type StepUsage } from "../shared/pricing";
import type { BudgetHit } from "./run-ledger";

export const DEFAULT_MAX_STEPS = 250;
export const DEFAULT_RUN_TOKEN_BUDGET = 4_000_000;
/** US dollars one run may spend by default. */
export const DEFAULT_RUN_COST_BUDGET = 20;

/** MAX_STEPS: a positive number, the default when unset or bad. */
export function parseMaxSteps(value: string | undefined): number {
  return parsePositiveInt(value, DEFAULT_MAX_STEPS);
}

/** RUN_TOKEN_BUDGET: a positive number of tokens, "0" for none, the default when unset or bad. */
export function parseTokenBudget(value: string | undefined): number {
  return value?.trim() === "0" ? 0 : parsePositiveInt(value, DEFAULT_RUN_TOKEN_BUDGET);
}

/** RUN_COST_BUDGET: a positive amount of US dollars, "0" for none, the default when unset or bad. */
export function parseCostBudget(value: string | undefined): number {
  if (value?.trim() === "0") return 0;
  const parsed = Number(value?.trim() || Number.NaN);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : DEFAULT_RUN_COST_BUDGET;
}

function parsePositiveInt(value: string | undefined, fallback: number): number {
  const parsed = Number.parseInt(value ?? "", 10);
  return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : fallback;
}

/**
 * Stops the loop once the run's tokens reach `budget`: `usedBefore` (what
 * earlier turns of the same submission counted, for a recovered turn) plus
 * this turn's steps so far, each weighed by `budgetTokens`. `onHit`
 * records it before the loop ends.
 */
export function tokenBudgetStop(options: {
  budget: number;
  usedBefore: number;
  prices: PriceTable;
  onHit(hit: BudgetHit): Promise<void>;
}): StopCondition<ToolSet> {
  return async ({ steps }) => {
    const used = steps.reduce((sum, step) => sum + budgetTokens(options.prices, step as unknown as PricedStep), options.usedBefore);
    if (used < options.budget) return false;
    await options.onHit({ used, budget: options.budget });
    return true;
  };
}

/** The part of an AI SDK step (StepResult, Think's StepContext) pricing reads. */
export type PricedStep = {
  usage: { inputTokens?: number; outputTokens?: number; inputTokenDetails?: { cacheReadTokens?: number; cacheWriteTokens?: number } };
  model?: { modelId: string; provider?: string };
  response?: { modelId?: string };
};

/** The model that served the step: the provider's answer first (a fallback names its own), else the model asked. */
export function servedModel(step: PricedStep): string {
  return step.response?.modelId || step.model?.modelId || "";
}

export function stepUsage(step: PricedStep): StepUsage {
  const details = step.usage.inputTokenDetails;
  return {
    inputTokens: step.usage.inputTokens,
    outputTokens: step.usage.outputTokens,
    ...(details?.cacheReadTokens === undefined ? {} : { cacheReadTokens: details.cacheReadTokens }),
    ...(details?.cacheWriteTokens === undefined ? {} : { cacheWriteTokens: details.cacheWriteTokens })
  };
}

/**
 * What one step counts against RUN_TOKEN_BUDGET: input read from the
 * provider's prompt cache at the served model's `cachedInput / input` price
 * (a tenth, for gpt-5.5), every other token in full, so a long run on a warm
 * cache is not stopped at a fraction of what its tokens cost. A model with
 * no price, or no input price, counts cached input in full: what is unknown
 * is never undercounted. Rounded up to whole tokens.
 */
export function budgetTokens(table: PriceTable, step: PricedStep): number {
  const input = step.usage.inputTokens ?? 0;
  const cached = Math.min(input, step.usage.inputTokenDetails?.cacheReadTokens ?? 0);
  const price = priceOf(table, servedModel(step));
  const weight = price && price.input > 0 ? price.cachedInput / price.input : 1;
  return input - cached + Math.ceil(cached * weight) + (step.usage.outputTokens ?? 0);
}

export function priceStep(table: PriceTable, step: PricedStep): Cost {
  return stepCost(table, servedModel(step), stepUsage(step));
}

/**
 * Stops the loop once the run's known cost reaches `budget` US dollars:
 * `spentBefore` (earlier turns of the submission) plus this turn's steps.
 * Unpriced steps add nothing they do not know; the token budget still
 * bounds them.
 */
export function costBudgetStop(options: {
  budget: number;
  spentBefore: Cost;
  prices: PriceTable;
  onHit(hit: BudgetHit): Promise<void>;
}): StopCondition<ToolSet> {
  return async ({ steps }) => {
    const spent = steps.reduce((sum, step) => addCost(sum, priceStep(options.prices, step as unknown as PricedStep)), options.spentBefore);
    if (spent.usd < options.budget) return false;
    await options.onHit({ kind: "cost", used: spent.usd, budget: options.budget });
    return true;
  };
}
