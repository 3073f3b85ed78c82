import { describe, expect, it } from "vitest";
import { chainFor, checkRequestedModel, modelNotAllowed, providerOf, resolveAllowedModels } from "../../src/model/allowed-models";
import { resolveModelConfig } from "../../src/model/config";
import { modelRefusal } from "../../src/model/run-models";

const DEPLOYMENT = { openai: { model: "gpt-5.5" }, anthropic: { model: "claude-opus-4-5" } };
const CONFIGURED = { OPENAI_MODEL: "gpt-5.5", ANTHROPIC_MODEL: "claude-opus-4-5" };

describe("providerOf", () => {
  it.each([
    ["claude-opus-5", "anthropic"],
    ["gpt-5.4", "openai"],
    ["chatgpt-4o-latest", "openai"],
    ["codex-mini-latest", "openai"],
    ["o3", "openai"],
    ["o4-mini", "openai"],
    ["gemini-3-pro", null],
    ["opus", null],
    ["llama-4", null]
  ])("%s goes to %s", (id, provider) => {
    expect(providerOf(id)).toBe(provider);
  });
});

describe("resolveAllowedModels", () => {
  it("is the deployment's two models when MODELS_ALLOWED is unset or empty", () => {
    expect(resolveAllowedModels(CONFIGURED)).toEqual({ ok: true, allowed: ["gpt-5.5", "claude-opus-4-5"] });
    expect(resolveAllowedModels({ ...CONFIGURED, MODELS_ALLOWED: "  " })).toEqual({ ok: true, allowed: ["gpt-5.5", "claude-opus-4-5"] });
  });

  it("adds MODELS_ALLOWED's ids after them, each once", () => {
    expect(resolveAllowedModels({ ...CONFIGURED, MODELS_ALLOWED: " gpt-5.4 , claude-opus-5,gpt-5.5,o3" })).toEqual({
      ok: true,
      allowed: ["gpt-5.5", "claude-opus-4-5", "gpt-5.4", "claude-opus-5", "o3"]
    });
  });

  it("refuses an entry no provider serves, an empty one and one that is not an id, naming the variable and the entry", () => {
    for (const [value, problem] of [
      ["gpt-5.4,gemini-3-pro", 'has "gemini-3-pro", which names no provider'],
      ["gpt-5.4,,claude-opus-5", "has an empty entry"],
      ["gpt 5.4", 'has "gpt 5.4", which is not a model id']
    ] as const) {
      const result = resolveAllowedModels({ ...CONFIGURED, MODELS_ALLOWED: value });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error).toContain(`MODELS_ALLOWED ${problem}`);
        expect(result.fix).toMatch(/^set MODELS_ALLOWED to model ids/);
      }
    }
  });

  it("never quotes a long entry (a secret pasted in the wrong var stays out of logs)", () => {
    const secret = `sk-${"x".repeat(60)}`;
    const result = resolveAllowedModels({ ...CONFIGURED, MODELS_ALLOWED: secret });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toContain("an entry of 63 characters");
      expect(result.error).not.toContain(secret);
    }
  });

  it("refuses the whole model configuration with it, in every mode", () => {
    expect(resolveModelConfig({ MODEL_PROVIDER: "scripted", MODELS_ALLOWED: "gemini-3-pro" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("MODELS_ALLOWED")
    });
  });
});

describe("a repository's model", () => {
  const allowed = ["gpt-5.5", "claude-opus-4-5", "gpt-5.4"];

  it("runs when allowed, or when none is asked for", () => {
    expect(checkRequestedModel(undefined, allowed)).toBeNull();
    expect(checkRequestedModel("gpt-5.4", allowed)).toBeNull();
  });

  it("is refused as a problem of `model:`, naming every allowed model", () => {
    expect(checkRequestedModel("gpt-9", allowed)).toBe(
      'model: "gpt-9" is not allowed here; the allowed models are gpt-5.5, claude-opus-4-5, gpt-5.4 (the operator\'s MODELS_ALLOWED, docs/model-setup.md)'
    );
    expect(modelNotAllowed("gpt-9", [])).toContain("this deployment allows no model by name");
  });

  it("is refused as a config failure of .github/agent-think.yml", () => {
    const env = { ...CONFIGURED, MODELS_ALLOWED: "gpt-5.4" };
    expect(modelRefusal(env, "claude-opus-4-5")).toBeNull();
    expect(modelRefusal(env, undefined)).toBeNull();
    expect(modelRefusal(env, "claude-sonnet-9")).toEqual({
      kind: "config",
      file: ".github/agent-think.yml",
      errors: [expect.stringMatching(/^model: "claude-sonnet-9" is not allowed here; the allowed models are gpt-5\.5, claude-opus-4-5, gpt-5\.4 /)]
    });
  });
});

describe("chainFor", () => {
  it("is OPENAI_MODEL then ANTHROPIC_MODEL when the repository names none, or names OPENAI_MODEL", () => {
    const chain = { primary: { provider: "openai", model: "gpt-5.5" }, fallback: { provider: "anthropic", model: "claude-opus-4-5" } };
    expect(chainFor(DEPLOYMENT)).toEqual(chain);
    expect(chainFor(DEPLOYMENT, "gpt-5.5")).toEqual(chain);
  });

  it("puts an OpenAI choice first, the deployment's Anthropic model after it", () => {
    expect(chainFor(DEPLOYMENT, "gpt-5.4")).toEqual({ primary: { provider: "openai", model: "gpt-5.4" }, fallback: { provider: "anthropic", model: "claude-opus-4-5" } });
  });

  it("puts an Anthropic choice first, the deployment's OpenAI model after it", () => {
    expect(chainFor(DEPLOYMENT, "claude-opus-5")).toEqual({ primary: { provider: "anthropic", model: "claude-opus-5" }, fallback: { provider: "openai", model: "gpt-5.5" } });
    expect(chainFor(DEPLOYMENT, "claude-opus-4-5")).toEqual({ primary: { provider: "anthropic", model: "claude-opus-4-5" }, fallback: { provider: "openai", model: "gpt-5.5" } });
  });

  it("sends the deployment's own models to the provider they are configured for, whatever their ids say", () => {
    const custom = { openai: { model: "my-openai-finetune" }, anthropic: { model: "my-anthropic-model" } };
    expect(chainFor(custom, "my-anthropic-model").primary).toEqual({ provider: "anthropic", model: "my-anthropic-model" });
  });
});

describe("RunModels.checkSettings", () => {
  it("throws the config failure for a model not allowed, and nothing for an allowed one or none", async () => {
    const { RunModels } = await import("../../src/model/run-models");
    const { SetupFailedError } = await import("../../src/run/ending");
    const models = new RunModels({
      env: () => ({ ...CONFIGURED, MODEL_PROVIDER: "scripted" }),
      hooks: {},
      turn: async () => null,
      settings: () => null,
      recordSetupFailure: async () => {}
    });
    expect(() => models.checkSettings({})).not.toThrow();
    expect(() => models.checkSettings({ model: "claude-opus-4-5" })).not.toThrow();
    expect(() => models.checkSettings({ model: "gpt-9" })).toThrow(SetupFailedError);
  });
});
