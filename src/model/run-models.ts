/**
 * The model of each run's steps, for ThinkAgent: the deployment's, or the
 * one the repository picked with `model:` (kept by src/steps/prepare.ts
 * before the clone; this never reads the file), built once per model id for
 * the Durable Object's life. A model MODELS_ALLOWED does not allow ends the
 * run as a config failure of the file (SetupFailedError); `checkSettings` is
 * the same check for the preparation's `onSettings`. docs/model-setup.md.
 */
import type { LanguageModel } from "ai";
import type { SetupFailure } from "../run/ending";
import { SetupFailedError } from "../run/ending";
import { REPO_CONFIG_PATH } from "../run/repo-config";
import { checkRequestedModel, resolveAllowedModels } from "./allowed-models";
import type { ModelEnv } from "./config";
import { createModel, type ModelHooks } from "./index";

export type RunModelsDeps = {
  env: () => ModelEnv;
  hooks: ModelHooks;
  /** The submission whose turn is running. */
  turn: () => Promise<{ submissionId: string } | null>;
  /** The repository's run settings for a submission, once its config was read; null before (or with no config). */
  settings: (submissionId: string) => { model?: string } | null;
  recordSetupFailure: (submissionId: string, failure: SetupFailure) => Promise<void>;
};

/** The config failure of a model the operator does not allow, or null when `model` may run (or none was asked for). */
export function modelRefusal(env: ModelEnv, model: string | undefined): SetupFailure | null {
  if (model === undefined) return null;
  const allowed = resolveAllowedModels(env);
  // A bad MODELS_ALLOWED refuses every dispatch (config.ts); met here, it allows nothing by name.
  const error = checkRequestedModel(model, allowed.ok ? allowed.allowed : []);
  return error === null ? null : { kind: "config", file: REPO_CONFIG_PATH, errors: [error] };
}

export class RunModels {
  readonly #deps: RunModelsDeps;
  /** By the model asked for; "" is the deployment's. */
  readonly #built = new Map<string, LanguageModel>();

  constructor(deps: RunModelsDeps) {
    this.#deps = deps;
  }

  /** The deployment's model: what a run gets when its repository names none. */
  default(): LanguageModel {
    return this.#model(undefined);
  }

  /**
   * For the preparation's `onSettings`, before the clone: throws SetupFailedError for a model not allowed (TurnWorkspace
   * records it), so a refused run clones and sets up nothing. forStep checks again, for a turn whose settings came earlier.
   */
  checkSettings(settings: { model?: string }): void {
    const failure = modelRefusal(this.#deps.env(), settings.model);
    if (failure) throw new SetupFailedError(failure);
  }

  /** The model of the running turn's step; throws SetupFailedError, after recording it, for a model not allowed. */
  async forStep(): Promise<LanguageModel> {
    const turn = await this.#deps.turn();
    const requested = turn ? this.#deps.settings(turn.submissionId)?.model : undefined;
    if (!turn || requested === undefined) return this.default();
    const failure = modelRefusal(this.#deps.env(), requested);
    if (failure) {
      await this.#deps.recordSetupFailure(turn.submissionId, failure);
      throw new SetupFailedError(failure);
    }
    return this.#model(requested);
  }

  #model(requested: string | undefined): LanguageModel {
    const key = requested ?? "";
    let model = this.#built.get(key);
    if (!model) {
      model = createModel(this.#deps.env(), this.#deps.hooks, requested);
      this.#built.set(key, model);
    }
    return model;
  }
}
