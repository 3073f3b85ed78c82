/**
 * Which models a repository may ask for (`model:` in its
 * `.github/agent-think.yml`), which provider serves each (read from the id),
 * and the chain a run's steps go through: the chosen model, then the
 * deployment's model of the other provider. Used by config.ts (a bad
 * MODELS_ALLOWED refuses every dispatch), run-models.ts and the health
 * report. Pure; it builds no model. The rules: docs/model-setup.md,
 * "A model per repository".
 */

export type ModelProvider = "openai" | "anthropic";

/** One model on one provider. */
export type ModelRoute = { provider: ModelProvider; model: string };
export type ModelChain = { primary: ModelRoute; fallback: ModelRoute };

/** The deployment's configured models, one per provider. */
export type DeploymentModels = { openai: { model: string }; anthropic: { model: string } };

/** A model id as the providers spell them (the same rule as repo-config.ts's `model:`). */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;
const OPENAI_ID = /^(gpt-|chatgpt-|codex-|o[0-9])/;

const FIX =
  "set MODELS_ALLOWED to model ids separated by commas, each starting claude- (Anthropic) or gpt-, chatgpt-, codex-, o<digit> (OpenAI), e.g. \"gpt-5.4,claude-opus-5\", or leave it empty for only OPENAI_MODEL and ANTHROPIC_MODEL";

/** The provider that serves `modelId`; null when the id names neither. */
export function providerOf(modelId: string): ModelProvider | null {
  if (modelId.startsWith("claude-")) return "anthropic";
  if (OPENAI_ID.test(modelId)) return "openai";
  return null;
}

export type AllowedModelsResult = { ok: true; allowed: string[] } | { ok: false; error: string; fix: string };

/** The deployment's models (those set), then MODELS_ALLOWED's, each once; an entry no provider serves is an error naming it. */
export function resolveAllowedModels(env: { MODELS_ALLOWED?: string; OPENAI_MODEL?: string; ANTHROPIC_MODEL?: string }): AllowedModelsResult {
  const allowed: string[] = [];
  const add = (id: string) => {
    if (!allowed.includes(id)) allowed.push(id);
  };
  for (const configured of [env.OPENAI_MODEL, env.ANTHROPIC_MODEL]) if (configured?.trim()) add(configured.trim());
  const source = env.MODELS_ALLOWED?.trim() ?? "";
  if (source === "") return { ok: true, allowed };
  for (const raw of source.split(",")) {
    const entry = raw.trim();
    const refuse = (problem: string): AllowedModelsResult => ({ ok: false, error: `MODELS_ALLOWED ${problem}: ${FIX}`, fix: FIX });
    if (entry === "") return refuse("has an empty entry");
    if (!MODEL_ID.test(entry)) return refuse(`has ${quoted(entry)}, which is not a model id`);
    if (providerOf(entry) === null) return refuse(`has ${quoted(entry)}, which names no provider this deployment reaches`);
    add(entry);
  }
  return { ok: true, allowed };
}

/** An entry as an error may show it: a short one quoted, a long one only measured (a misplaced secret never lands in a log). */
function quoted(entry: string): string {
  return entry.length <= 40 ? `"${entry}"` : `an entry of ${entry.length} characters`;
}

/**
 * The refusal of a model the repository asked for and the operator does
 * not allow, as a config problem of `model:` (the setup-failed comment lists
 * it under the file), naming every allowed model.
 */
export function modelNotAllowed(requested: string, allowed: readonly string[]): string {
  const shown = requested.length <= 100 ? `"${requested}"` : `a value of ${requested.length} characters`;
  const list = allowed.length > 0 ? `the allowed models are ${allowed.join(", ")}` : "this deployment allows no model by name";
  return `model: ${shown} is not allowed here; ${list} (the operator's MODELS_ALLOWED, docs/model-setup.md)`;
}

/** Null when `requested` may run; else the refusal naming the allowed models. */
export function checkRequestedModel(requested: string | undefined, allowed: readonly string[]): string | null {
  if (requested === undefined || allowed.includes(requested)) return null;
  return modelNotAllowed(requested, allowed);
}

/** The chain a run's steps go through: the chosen model, then the deployment's model of the other provider (see the header). */
export function chainFor(models: DeploymentModels, requested?: string): ModelChain {
  const openai: ModelRoute = { provider: "openai", model: models.openai.model };
  const anthropic: ModelRoute = { provider: "anthropic", model: models.anthropic.model };
  // The deployment's own models go to the provider they are configured for, whatever their ids say.
  const provider =
    requested === undefined || requested === models.openai.model ? null : requested === models.anthropic.model ? "anthropic" : providerOf(requested);
  if (requested === undefined || provider === null) return { primary: openai, fallback: anthropic };
  return provider === "openai"
    ? { primary: { provider, model: requested }, fallback: anthropic }
    : { primary: { provider, model: requested }, fallback: openai };
}
