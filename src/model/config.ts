/**
 * Which model a run uses, decided from configuration alone.
 *
 * - `MODEL_PROVIDER=gateway`, or unset with gateway credentials present: the
 *   OpenAI Responses API through Cloudflare AI Gateway, falling back to
 *   Anthropic through the same gateway.
 * - `MODEL_PROVIDER=scripted`, or unset with `LOCAL_DEV=1` and no gateway
 *   credentials: the offline scripted model.
 * - anything else is a configuration error, reported at dispatch, so a
 *   production Worker never quietly runs the scripted model. Pure.
 */
export type ModelEnv = {
  MODEL_PROVIDER?: string;
  LOCAL_DEV?: string;
  AI_GATEWAY_ACCOUNT_ID?: string;
  AI_GATEWAY_ID?: string;
  AI_GATEWAY_BASE_URL?: string;
  CLOUDFLARE_AIG_TOKEN?: string;
  OPENAI_API_KEY?: string;
  ANTHROPIC_API_KEY?: string;
  OPENAI_MODEL?: string;
  ANTHROPIC_MODEL?: string;
};

export type GatewayModelConfig = {
  kind: "gateway";
  /** `https://gateway.ai.cloudflare.com/v1/<account>/<gateway>` */
  gatewayUrl: string;
  gatewayToken?: string;
  openai: { model: string; apiKey?: string };
  anthropic: { model: string; apiKey?: string };
};

export type ModelConfig = GatewayModelConfig | { kind: "scripted" };

export type ModelConfigResult = { ok: true; config: ModelConfig } | { ok: false; error: string };

const DEFAULT_GATEWAY_BASE_URL = "https://gateway.ai.cloudflare.com/v1";

const present = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

export function resolveModelConfig(env: ModelEnv): ModelConfigResult {
  const provider = present(env.MODEL_PROVIDER);
  const account = present(env.AI_GATEWAY_ACCOUNT_ID);
  const gateway = present(env.AI_GATEWAY_ID);
  const hasGateway = account !== undefined && gateway !== undefined;

  if (provider === "scripted") return { ok: true, config: { kind: "scripted" } };
  if (provider !== undefined && provider !== "gateway") {
    return { ok: false, error: `MODEL_PROVIDER must be "gateway" or "scripted", not "${provider}"` };
  }
  if (provider === undefined && !hasGateway && env.LOCAL_DEV === "1") {
    return { ok: true, config: { kind: "scripted" } };
  }
  const missing = [
    account ? null : "AI_GATEWAY_ACCOUNT_ID",
    gateway ? null : "AI_GATEWAY_ID",
    present(env.OPENAI_MODEL) ? null : "OPENAI_MODEL",
    present(env.ANTHROPIC_MODEL) ? null : "ANTHROPIC_MODEL"
  ].filter((name): name is string => name !== null);
  if (missing.length > 0) {
    return {
      ok: false,
      error: `model is not configured: set ${missing.join(", ")} (or MODEL_PROVIDER=scripted for the offline model)`
    };
  }
  const base = (present(env.AI_GATEWAY_BASE_URL) ?? DEFAULT_GATEWAY_BASE_URL).replace(/\/+$/, "");
  return {
    ok: true,
    config: {
      kind: "gateway",
      gatewayUrl: `${base}/${encodeURIComponent(account!)}/${encodeURIComponent(gateway!)}`,
      gatewayToken: present(env.CLOUDFLARE_AIG_TOKEN),
      openai: { model: env.OPENAI_MODEL!.trim(), apiKey: present(env.OPENAI_API_KEY) },
      anthropic: { model: env.ANTHROPIC_MODEL!.trim(), apiKey: present(env.ANTHROPIC_API_KEY) }
    }
  };
}
