/**
 * The model's line in the health report (src/shared/health.ts): the mode
 * runs would use (stored keys, request keys or the scripted model) and
 * which of its credentials are present, never their values. Every
 * configuration dispatch refuses (config.ts) blocks, with its one-line fix.
 * A model the price table (MODEL_PRICES over the defaults) cannot price is
 * a warning: its runs' cost would show as unknown, and RUN_COST_BUDGET
 * could not stop them. Pure.
 */
import { priceOf, priceTable, type PriceTable } from "../shared/pricing";
import type { HealthCheck } from "../shared/health";
import { resolveModelConfig, type ModelEnv } from "./config";
import { MODE_LABELS, modelMode } from "./mode";

const set = (value: string | undefined) => Boolean(value?.trim());

export function modelHealth(env: ModelEnv & { MODEL_PRICES?: string }): HealthCheck {
  const check = modelCheck(env);
  if (check.status !== "ok") return check;
  const models = modelsOf(env);
  let table: PriceTable;
  try {
    table = priceTable(env.MODEL_PRICES);
  } catch (error) {
    return { ...check, status: "warn", detail: `${check.detail}; ${(error as Error).message}, so no run is priced: costs show as unknown`, fix: "fix MODEL_PRICES (README, Configuration)" };
  }
  const unpriced = models.filter((model) => priceOf(table, model) === null);
  if (unpriced.length === 0) return check;
  return {
    ...check,
    status: "warn",
    detail: `${check.detail}; no price for ${unpriced.join(" or ")}: those runs' cost shows as unknown and RUN_COST_BUDGET cannot stop them`,
    fix: `add ${unpriced.map((model) => `"${model}"`).join(" and ")} to MODEL_PRICES: {"<model>": {"input": …, "cachedInput": …, "output": …}} in US dollars per million tokens`
  };
}

/** The models a configured chain would call; none for the scripted model or a configuration dispatch refuses. */
function modelsOf(env: ModelEnv): string[] {
  const resolved = resolveModelConfig(env);
  return resolved.ok && resolved.config.kind !== "scripted" ? [resolved.config.openai.model, resolved.config.anthropic.model] : [];
}

function modelCheck(env: ModelEnv): HealthCheck {
  const check = { id: "model", label: "Model" } as const;
  const resolved = resolveModelConfig(env);
  if (!resolved.ok) return { ...check, status: "block", detail: resolved.error, fix: resolved.fix };
  const { config } = resolved;
  if (config.kind === "scripted") {
    return {
      ...check,
      status: "warn",
      detail: `${MODE_LABELS.scripted}: runs follow TEST: directives, no real model is called`,
      fix: "set AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID and CLOUDFLARE_AIG_TOKEN for a real model"
    };
  }
  const chain = `${config.openai.model} through AI Gateway, falling back to ${config.anthropic.model}`;
  const mode = MODE_LABELS[modelMode(config)];
  if (config.auth.keys === "stored") {
    const unsent = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"].filter((name) => set(env[name as keyof ModelEnv]));
    return {
      ...check,
      status: "ok",
      detail:
        `${mode}: ${chain}; CLOUDFLARE_AIG_TOKEN set; provider keys stored in the gateway, none sent` +
        (unsent.length ? ` (${unsent.join(" and ")} set but unused)` : "")
    };
  }
  return {
    ...check,
    status: "ok",
    detail:
      `${mode}: ${chain}; OPENAI_API_KEY and ANTHROPIC_API_KEY set; ` +
      (config.auth.gatewayToken ? "CLOUDFLARE_AIG_TOKEN set" : "CLOUDFLARE_AIG_TOKEN not set (an unauthenticated gateway)")
  };
}
