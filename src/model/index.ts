/**
 * The model for a run, from configuration: the gateway chain or the scripted
 * model (see `config.ts` for the rule), led by the repository's model when
 * it picked one (allowed-models.ts). Used by RunModels (run-models.ts), for
 * ThinkAgent.getModel and beforeStep, which gives it the agent's logger and
 * the source of each request's gateway metadata. The first model built in an isolate with a given mode logs one
 * `model:mode` line naming it (mode.ts), never a secret.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { createLogger, type Logger } from "../run/log";
import { resolveModelConfig, type ModelConfig, type ModelEnv } from "./config";
import { createGatewayModel } from "./gateway";
import type { MetadataSource } from "./metadata";
import { modeLogFields } from "./mode";
import { ScriptedModel } from "./scripted";

export { resolveModelConfig } from "./config";
export { runMetadata } from "./metadata";

export class ModelConfigError extends Error {
  override readonly name = "ModelConfigError";
  readonly code = "model_not_configured";
}

export type ModelHooks = {
  /** Where `model:mode` and `model:fallback` go; a plain structured logger when absent. */
  log?: Logger;
  /** Each gateway request's `cf-aig-metadata`, read when the request is made. */
  metadata?: MetadataSource;
};

const loggedModes = new Set<string>();

/** One line per isolate and mode: the mode is a fact of the deploy, not of a request. */
function logModeOnce(config: ModelConfig, log: Logger): void {
  const fields = modeLogFields(config);
  const key = JSON.stringify(fields);
  if (loggedModes.has(key)) return;
  loggedModes.add(key);
  log("model:mode", fields);
}

/** `requested`: a model the repository picked and MODELS_ALLOWED allows (run-models.ts checks); the scripted model serves it too. */
export function createModel(env: ModelEnv, hooks: ModelHooks = {}, requested?: string): LanguageModelV4 {
  const resolved = resolveModelConfig(env);
  if (!resolved.ok) throw new ModelConfigError(resolved.error);
  const log = hooks.log ?? createLogger({ worker: "agent-think" });
  logModeOnce(resolved.config, log);
  if (resolved.config.kind === "scripted") return new ScriptedModel();
  return createGatewayModel(
    resolved.config,
    {
      metadata: hooks.metadata,
      onFallback: ({ from, to, error }) => log("model:fallback", { from, to, error: error instanceof Error ? error.message : String(error) })
    },
    requested
  );
}
