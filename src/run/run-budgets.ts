/**
 * A run's budgets and what its steps cost, for ThinkAgent: each finished
 * model step kept in the ledger with its price (for the model that served
 * it), which model served it and whether it was the scripted model, and the stop conditions of the
 * token and money budgets for a turn, counting what a recovered turn's
 * earlier attempts used. The limits are read when asked, so tests can lower
 * them on a live agent. Pure apart from its dependencies.
 */
import type { StopCondition, ToolSet } from "ai";
import { NO_COST, priceTable, type PriceTable } from "../shared/pricing";
import { budgetTokens, costBudgetStop, priceStep, servedModel, tokenBudgetStop, type PricedStep } from "./budget";
import { countedTokens, type BudgetHit, type RunLedger } from "./run-ledger";

export type BudgetLimits = {
  /** Input + output tokens, cached input weighed at its price (budget.ts, budgetTokens); 0 for none. */
  tokens: number;
  /** US dollars; 0 for none. */
  cost: number;
  /** MODEL_PRICES as configured (JSON), over the defaults. */
  prices: string | undefined;
};

/** A finished step as Think reports it: its usage, model and how it ended. */
export type FinishedStep = PricedStep & { finishReason?: string; model: { modelId: string; provider?: string } };

export type RunBudgetsDeps = {
  ledger: Pick<RunLedger, "addStep" | "usage" | "recordBudgetHit">;
  limits: () => BudgetLimits;
  /** The provider name of the scripted model (src/model/scripted.ts). */
  scriptedProvider: string;
  log: (event: string, fields: Record<string, unknown>) => void;
};

export class RunBudgets {
  readonly #deps: RunBudgetsDeps;
  /** The table of the last MODEL_PRICES seen: parsed once, not on every step. */
  #table: { source: string | undefined; table: PriceTable } | undefined;

  constructor(deps: RunBudgetsDeps) {
    this.#deps = deps;
  }

  /** Keep one finished step: its tokens, its cost, and whether no model ran. Durable, so a recovered run reports all of it. */
  async stepFinished(submissionId: string, step: FinishedStep): Promise<void> {
    await this.#deps.ledger.addStep(submissionId, {
      inputTokens: step.usage.inputTokens,
      outputTokens: step.usage.outputTokens,
      budgetTokens: budgetTokens(this.#prices(), step),
      finishReason: step.finishReason,
      cost: priceStep(this.#prices(), step),
      // A scripted step says so; no model served it.
      ...(step.model.provider === this.#deps.scriptedProvider ? { scripted: true } : { model: servedModel(step) })
    });
  }

  /** The turn's stop conditions: the token and money budgets that are set. */
  async stops(submissionId: string): Promise<Array<StopCondition<ToolSet>>> {
    const limits = this.#deps.limits();
    const before = await this.#deps.ledger.usage(submissionId);
    const onHit = async (hit: BudgetHit) => {
      await this.#deps.ledger.recordBudgetHit(submissionId, hit);
      this.#deps.log("budget:exhausted", { submissionId, ...hit });
    };
    return [
      ...(limits.tokens > 0 ? [tokenBudgetStop({ budget: limits.tokens, usedBefore: countedTokens(before), prices: this.#prices(), onHit })] : []),
      ...(limits.cost > 0 ? [costBudgetStop({ budget: limits.cost, spentBefore: before?.cost ?? NO_COST, prices: this.#prices(), onHit })] : [])
    ];
  }

  /** MODEL_PRICES over the defaults; a malformed one is logged and prices nothing, so costs show as unknown, never as zero. */
  #prices(): PriceTable {
    const source = this.#deps.limits().prices;
    const kept = this.#table;
    if (kept && kept.source === source) return kept.table;
    let table: PriceTable;
    try {
      table = priceTable(source);
    } catch (error) {
      this.#deps.log("pricing:invalid", { error: error instanceof Error ? error.message : String(error) });
      table = {};
    }
    this.#table = { source, table };
    return table;
  }
}
