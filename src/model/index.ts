/**
 * The model for a run, from configuration: the gateway chain or the scripted
 * model (see `config.ts` for the rule). Used by ThinkAgent.getModel.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { resolveModelConfig, type ModelEnv } from "./config";
import type { FallbackEvent } from "./fallback";
import { createGatewayModel } from "./gateway";
import { ScriptedModel } from "./scripted";

export { resolveModelConfig } from "./config";

export class ModelConfigError extends Error {
  override readonly name = "ModelConfigError";
  readonly code = "model_not_configured";
}

export function createModel(env: ModelEnv, onFallback?: (event: FallbackEvent) => void): LanguageModelV4 {
  const resolved = resolveModelConfig(env);
  if (!resolved.ok) throw new ModelConfigError(resolved.error);
  return resolved.config.kind === "scripted" ? new ScriptedModel() : createGatewayModel(resolved.config, onFallback);
}
