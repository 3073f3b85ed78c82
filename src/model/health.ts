/**
 * The model's line in the health report (src/shared/health.ts): which model
 * runs would use and whether its credentials are present, never their
 * values. Pure.
 */
import type { HealthCheck } from "../shared/health";
import { resolveModelConfig, type ModelEnv } from "./config";

export function modelHealth(env: ModelEnv): HealthCheck {
  const resolved = resolveModelConfig(env);
  if (!resolved.ok) return { id: "model", label: "Model", status: "block", detail: resolved.error, fix: resolved.error };
  const { config } = resolved;
  if (config.kind === "scripted") {
    return {
      id: "model",
      label: "Model",
      status: "warn",
      detail: "the offline scripted model: runs follow TEST: directives, no real model is called",
      fix: "set AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID and CLOUDFLARE_AIG_TOKEN for a real model"
    };
  }
  const keys = [config.openai.apiKey ? "OPENAI_API_KEY" : null, config.anthropic.apiKey ? "ANTHROPIC_API_KEY" : null].filter(Boolean);
  return {
    id: "model",
    label: "Model",
    status: "ok",
    detail: `${config.openai.model} through AI Gateway, falling back to ${config.anthropic.model}; gateway token ${config.gatewayToken ? "set" : "not set"}; provider keys ${keys.length ? keys.join(", ") : "stored in the gateway"}`
  };
}
