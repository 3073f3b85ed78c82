/**
 * The model's line in the health report (src/shared/health.ts): the mode
 * runs would use (stored keys, request keys or the scripted model) and
 * which of its credentials are present, never their values. Every
 * configuration dispatch refuses (config.ts) blocks, with its one-line fix.
 * Pure.
 */
import type { HealthCheck } from "../shared/health";
import { resolveModelConfig, type ModelEnv } from "./config";
import { MODE_LABELS, modelMode } from "./mode";

const set = (value: string | undefined) => Boolean(value?.trim());

export function modelHealth(env: ModelEnv): HealthCheck {
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
