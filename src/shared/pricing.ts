/**
 * What a model's tokens cost: a price table per model, in US dollars per million tokens, and
 * the cost of one step's usage under it. The defaults are the providers' list prices (dated,
 * with their sources, in docs/reporting.md, Cost); `MODEL_PRICES` replaces or adds entries. A
 * model is found by its exact id, then by the longest entry that prefixes it. Unreported usage
 * or an unpriced model makes the cost incomplete (a floor), never zero; the scripted model costs
 * nothing and says so with a price of its own. Pure.
 */
import type { Cost } from "./command-center";

export type ModelPrice = {
  /** Per million input tokens not read from a cache. */
  input: number;
  /** Per million input tokens read from the provider's prompt cache. */
  cachedInput: number;
  /** Per million input tokens written to the cache; the input price when absent. */
  cacheWrite?: number;
  /** Per million output tokens (reasoning tokens included: providers bill them as output). */
  output: number;
};

export type PriceTable = Record<string, ModelPrice>;

/** The scripted model's id (src/model/scripted.ts): no model ran, nothing was spent. */
export const SCRIPTED_MODEL_ID = "scripted";

export const DEFAULT_PRICES: PriceTable = {
  [SCRIPTED_MODEL_ID]: { input: 0, cachedInput: 0, output: 0 },
  "gpt-5.5": { input: 5, cachedInput: 0.5, output: 30 },
  "gpt-5.4": { input: 2.5, cachedInput: 0.25, output: 15 },
  "claude-opus-4-5": { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 },
  "claude-opus-5": { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 },
  "claude-opus-5-5": { input: 4, cachedInput: 0.2, cacheWrite: 5, output: 20 }
};

export const NO_COST: Cost = { usd: 0, complete: true };

/** One model step's usage as the AI SDK reports it; any count may be missing. */
export type StepUsage = {
  inputTokens?: number;
  /** Of the input: read from the cache, and written to it. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  outputTokens?: number;
};

/** The table: the defaults with `MODEL_PRICES` over them; a malformed value is an error naming the entry. */
export function priceTable(json: string | undefined): PriceTable {
  if (json === undefined || json.trim() === "") return DEFAULT_PRICES;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error('MODEL_PRICES must be JSON: {"<model id>": {"input": 5, "cachedInput": 0.5, "output": 30}}');
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("MODEL_PRICES must be a JSON object keyed by model id");
  const table: PriceTable = { ...DEFAULT_PRICES };
  for (const [model, price] of Object.entries(parsed as Record<string, unknown>)) table[model] = checkedPrice(model, price);
  return table;
}

function checkedPrice(model: string, price: unknown): ModelPrice {
  const value = price as Record<string, unknown> | null;
  const field = (name: string, optional = false): number | undefined => {
    const amount = value?.[name];
    if (amount === undefined && optional) return undefined;
    if (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0) {
      throw new Error(`MODEL_PRICES.${model}.${name} must be a price in US dollars per million tokens (a number, 0 or more)`);
    }
    return amount;
  };
  const cacheWrite = field("cacheWrite", true);
  return { input: field("input")!, cachedInput: field("cachedInput")!, output: field("output")!, ...(cacheWrite === undefined ? {} : { cacheWrite }) };
}

/** The price of `modelId`: its own entry, else the longest entry it starts with; null when the table has none. */
export function priceOf(table: PriceTable, modelId: string): ModelPrice | null {
  if (table[modelId]) return table[modelId]!;
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (modelId.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? null : table[best]!;
}

/** What one step cost, or an incomplete zero when its usage or its model's price is unknown. */
export function stepCost(table: PriceTable, modelId: string, usage: StepUsage): Cost {
  const price = priceOf(table, modelId);
  if (!price || usage.inputTokens === undefined || usage.outputTokens === undefined) return { usd: 0, complete: false };
  const cached = usage.cacheReadTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const fresh = Math.max(0, usage.inputTokens - cached - written);
  const usd = (fresh * price.input + cached * price.cachedInput + written * (price.cacheWrite ?? price.input) + usage.outputTokens * price.output) / 1e6;
  return { usd, complete: true };
}

export function addCost(a: Cost, b: Cost): Cost {
  return { usd: a.usd + b.usd, complete: a.complete && b.complete };
}

/** `$0.42`, `<$0.01`, `≥ $0.42` (a floor), or `unknown`: never an unknown shown as $0.00. */
export function formatCost(cost: Cost | undefined): string {
  if (!cost || (!cost.complete && cost.usd === 0)) return "unknown";
  const amount = cost.usd > 0 && cost.usd < 0.005 ? "<$0.01" : `$${cost.usd.toFixed(2)}`;
  return cost.complete ? amount : `≥ ${amount}`;
}
