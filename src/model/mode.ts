/**
 * A model configuration's mode in words: what the `model:mode` log line and
 * the health report say. Names whether each credential is present, never
 * its value. Pure.
 */
import type { ModelConfig } from "./config";

export type ModelMode = "stored-keys" | "request-keys" | "scripted";

export const MODE_LABELS: Record<ModelMode, string> = {
  "stored-keys": "stored keys (BYOK)",
  "request-keys": "request keys",
  scripted: "the scripted model"
};

export function modelMode(config: ModelConfig): ModelMode {
  if (config.kind === "scripted") return "scripted";
  return config.auth.keys === "stored" ? "stored-keys" : "request-keys";
}

/** The fields of the `model:mode` log line. */
export function modeLogFields(config: ModelConfig): Record<string, string | boolean> {
  const mode = modelMode(config);
  if (config.kind === "scripted") return { mode };
  return {
    mode,
    gateway: config.gatewayUrl,
    primary: config.openai.model,
    fallback: config.anthropic.model,
    gatewayToken: config.auth.gatewayToken !== undefined,
    providerKeys: config.auth.keys === "request"
  };
}
