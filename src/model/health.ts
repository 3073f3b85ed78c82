/**
 * The model's line in the health report (src/shared/health.ts).
 * `modelHealth` judges the configuration alone (the doctor asks it from a
 * checkout), naming which credentials are present, never their values;
 * `liveModelHealth` adds the gateway's answer to one real request (probe.ts).
 * What blocks and what warns: docs/health.md, "The checks". Pure.
 */
import { priceOf, priceTable, type PriceTable } from "../shared/pricing";
import type { HealthCheck } from "../shared/health";
import { resolveAllowedModels } from "./allowed-models";
import { gatewayAuthSetting, resolveModelConfig, type GatewayModelConfig, type ModelEnv } from "./config";
import { MODE_LABELS, modelMode } from "./mode";
import { PROBE_MAX_OUTPUT_TOKENS, PROBE_SESSION, type ProbeAnswer } from "./probe";
import { ttlOf, type CachedProbe } from "./probe-cache";

const set = (value: string | undefined) => Boolean(value?.trim());

export function modelHealth(env: ModelEnv & { MODEL_PRICES?: string }): HealthCheck {
  const configured = modelCheck(env);
  if (configured.status === "block") return configured;
  const resolved = resolveModelConfig(env);
  // The scripted model serves whatever a repository picks: the list matters once a real model runs.
  const check = resolved.ok && resolved.config.kind === "gateway" ? { ...configured, detail: `${configured.detail}; ${picksText(env)}` } : configured;
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

/** The models a run may call (the chain's and those a repository may pick); none for the scripted model or a configuration dispatch refuses. */
function modelsOf(env: ModelEnv): string[] {
  const resolved = resolveModelConfig(env);
  const allowed = resolveAllowedModels(env);
  return resolved.ok && resolved.config.kind !== "scripted" && allowed.ok ? allowed.allowed : [];
}

/** What a repository's `model:` may name: MODELS_ALLOWED's models beyond the deployment's two, or only those two. */
function picksText(env: ModelEnv): string {
  const allowed = resolveAllowedModels(env);
  if (!allowed.ok || allowed.allowed.length === 0) return "a repository's model: can name no model";
  const own = [env.OPENAI_MODEL?.trim(), env.ANTHROPIC_MODEL?.trim()].filter((model): model is string => Boolean(model));
  const more = allowed.allowed.filter((model) => !own.includes(model));
  return more.length > 0
    ? `a repository's model: may pick ${allowed.allowed.join(", ")} (MODELS_ALLOWED adds ${more.join(", ")})`
    : `a repository's model: may pick only ${allowed.allowed.join(" or ")} (MODELS_ALLOWED is empty)`;
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
  const unsent = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"].filter((name) => set(env[name as keyof ModelEnv]));
  const keys =
    config.auth.keys === "stored"
      ? `provider keys stored in the gateway, none sent${unsent.length ? ` (${unsent.join(" and ")} set but unused)` : ""}`
      : "OPENAI_API_KEY and ANTHROPIC_API_KEY set";
  if (!config.auth.gatewayToken) {
    return {
      ...check,
      status: "warn",
      unsafe: true,
      detail: `${mode}: ${chain}; ${keys}; AI_GATEWAY_AUTH=off: requests carry no gateway token, so anyone who knows the account and gateway ids can send requests through this gateway and fill its logs`,
      fix: "turn on the gateway's authentication, create its token and set CLOUDFLARE_AIG_TOKEN, then leave AI_GATEWAY_AUTH empty (docs/model-setup.md)"
    };
  }
  if (gatewayAuthSetting(env) === "off") {
    return {
      ...check,
      status: "warn",
      detail: `${mode}: ${chain}; ${keys}; CLOUDFLARE_AIG_TOKEN set and sent: AI_GATEWAY_AUTH=off changes nothing`,
      fix: "leave AI_GATEWAY_AUTH empty"
    };
  }
  return {
    ...check,
    status: "ok",
    detail:
      config.auth.keys === "stored" ? `${mode}: ${chain}; CLOUDFLARE_AIG_TOKEN set; ${keys}` : `${mode}: ${chain}; ${keys}; CLOUDFLARE_AIG_TOKEN set`
  };
}

/** Asks the gateway (through the cache) for a configuration: the caller wires the fetch, its deadline and the clock. */
export type GatewayProber = (config: GatewayModelConfig) => Promise<CachedProbe>;

/**
 * The configuration's line, then, for a gateway it does not block, the
 * gateway's answer to one real request: a refusal blocks with its fix, a
 * timeout or a provider's 429/5xx warns. The line says when it was asked
 * and how long the answer is kept (probe-cache.ts).
 */
export async function liveModelHealth(env: ModelEnv & { MODEL_PRICES?: string }, prober: GatewayProber): Promise<HealthCheck> {
  const check = modelHealth(env);
  const resolved = resolveModelConfig(env);
  if (check.status === "block" || !resolved.ok || resolved.config.kind !== "gateway") return check;
  const { answer, askedAt } = await prober(resolved.config);
  const verdict = probeVerdict(answer, resolved.config);
  const when = `asked ${new Date(askedAt).toISOString()}, kept ${Math.round(ttlOf(answer) / 60_000)} min`;
  const detail = `${check.detail}; ${verdict.detail} (${when})`;
  if (verdict.status === "ok") return { ...check, detail };
  if (verdict.status === "block") return { ...check, status: "block", detail, fix: verdict.fix };
  return { ...check, status: "warn", detail, fix: [check.fix, verdict.fix].filter(Boolean).join("; ") };
}

type Verdict = { status: HealthCheck["status"]; detail: string; fix?: string };

function probeVerdict(answer: ProbeAnswer, config: GatewayModelConfig): Verdict {
  const model = config.openai.model;
  const call = `a ${PROBE_MAX_OUTPUT_TOKENS}-token test call to ${model}`;
  const logs = `the gateway's logs (metadata session ${PROBE_SESSION})`;
  switch (answer.kind) {
    case "answered":
      return { status: "ok", detail: `the gateway answered ${call}: HTTP ${answer.status} in ${answer.ms} ms` };
    case "timeout":
      return {
        status: "warn",
        detail: `the gateway did not answer ${call} within ${answer.ms} ms`,
        fix: `look at ${logs}; if it persists, check AI_GATEWAY_BASE_URL and the provider's status`
      };
    case "failed":
      return {
        status: "block",
        detail: `${call} could not be sent: ${answer.error}`,
        fix: "check AI_GATEWAY_BASE_URL (empty for https://gateway.ai.cloudflare.com/v1), AI_GATEWAY_ACCOUNT_ID and AI_GATEWAY_ID"
      };
    case "refused":
      return refusalVerdict(answer, config, `${call} was refused with HTTP ${answer.status}`, logs);
  }
}

function refusalVerdict(answer: Extract<ProbeAnswer, { kind: "refused" }>, config: GatewayModelConfig, refused: string, logs: string): Verdict {
  const said = [answer.code, answer.message].filter(Boolean).join(": ");
  const by = answer.by === "gateway" ? "by AI Gateway" : answer.by === "provider" ? "by OpenAI" : "";
  const detail = `${refused}${by ? ` ${by}` : ""}${said ? ` (${said})` : ""}`;
  const stored = config.auth.keys === "stored";
  if (answer.status === 429 || answer.status >= 500) {
    return { status: "warn", detail: `${detail}: runs may be refused too`, fix: `look at ${logs} and the provider's status` };
  }
  if ((answer.status === 401 || answer.status === 403) && answer.by !== "provider") {
    return {
      status: "block",
      detail: `${detail}: every model request of a run would be refused`,
      fix: config.auth.gatewayToken
        ? "put a valid token in CLOUDFLARE_AIG_TOKEN (the gateway's Settings, Create authentication token: AI Gateway Run for this account), with wrangler secret put"
        : "the gateway requires authentication: create its token, set CLOUDFLARE_AIG_TOKEN and leave AI_GATEWAY_AUTH empty"
    };
  }
  if (answer.status === 401 || answer.status === 403) {
    return {
      status: "block",
      detail: `${detail}: the primary model's requests would be refused`,
      fix: stored
        ? "add a valid OpenAI key under the gateway's Provider Keys (docs/model-setup.md)"
        : "put a valid OpenAI key in OPENAI_API_KEY, with wrangler secret put"
    };
  }
  if (answer.status === 404) {
    return {
      status: "block",
      detail: `${detail}: no such gateway, account or model`,
      fix: `check AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID and OPENAI_MODEL ("${config.openai.model}") against the dashboard's AI Gateway page`
    };
  }
  return { status: "block", detail, fix: `look at ${logs}; check OPENAI_MODEL ("${config.openai.model}")` };
}
