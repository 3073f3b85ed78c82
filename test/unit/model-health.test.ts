import { describe, expect, it } from "vitest";
import type { ModelEnv } from "../../src/model/config";
import { modelHealth } from "../../src/model/health";

const gateway = {
  AI_GATEWAY_ACCOUNT_ID: "acct",
  AI_GATEWAY_ID: "gw",
  OPENAI_MODEL: "gpt-5.5",
  ANTHROPIC_MODEL: "claude-opus-4-5"
};
const TOKEN = "aig-health-secret";
const keys = { OPENAI_API_KEY: "sk-openai-health-secret", ANTHROPIC_API_KEY: "sk-ant-health-secret" };
const SECRETS = [TOKEN, keys.OPENAI_API_KEY, keys.ANTHROPIC_API_KEY];

const noSecrets = (env: ModelEnv) => {
  const check = modelHealth(env);
  for (const secret of SECRETS) expect(JSON.stringify(check)).not.toContain(secret);
  return check;
};

describe("modelHealth", () => {
  it("reports stored keys with the gateway token present", () => {
    expect(noSecrets({ ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN })).toEqual({
      id: "model",
      label: "Model",
      status: "ok",
      detail:
        "stored keys (BYOK): gpt-5.5 through AI Gateway, falling back to claude-opus-4-5; CLOUDFLARE_AIG_TOKEN set; provider keys stored in the gateway, none sent"
    });
  });

  it("says when stored keys leave configured provider keys unused", () => {
    expect(noSecrets({ ...gateway, ...keys, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_KEYS: "stored" }).detail).toMatch(
      /none sent \(OPENAI_API_KEY and ANTHROPIC_API_KEY set but unused\)$/
    );
  });

  it("reports request keys, with and without a gateway token", () => {
    expect(noSecrets({ ...gateway, ...keys, CLOUDFLARE_AIG_TOKEN: TOKEN })).toEqual({
      id: "model",
      label: "Model",
      status: "ok",
      detail:
        "request keys: gpt-5.5 through AI Gateway, falling back to claude-opus-4-5; OPENAI_API_KEY and ANTHROPIC_API_KEY set; CLOUDFLARE_AIG_TOKEN set"
    });
    expect(noSecrets({ ...gateway, ...keys }).detail).toMatch(/^request keys: .*; CLOUDFLARE_AIG_TOKEN not set \(an unauthenticated gateway\)$/);
  });

  it("reports the scripted model as a warning with the fix for a real one", () => {
    expect(noSecrets({ LOCAL_DEV: "1" })).toEqual({
      id: "model",
      label: "Model",
      status: "warn",
      detail: "the scripted model: runs follow TEST: directives, no real model is called",
      fix: "set AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID and CLOUDFLARE_AIG_TOKEN for a real model"
    });
  });

  const refusals: Array<[string, ModelEnv, string]> = [
    ["no credentials", gateway, "CLOUDFLARE_AIG_TOKEN"],
    ["a blank gateway token", { ...gateway, ...keys, CLOUDFLARE_AIG_TOKEN: "   " }, "CLOUDFLARE_AIG_TOKEN"],
    ["a blank provider key", { ...gateway, ...keys, ANTHROPIC_API_KEY: " " }, "ANTHROPIC_API_KEY"],
    ["stored keys without a token", { ...gateway, ...keys, AI_GATEWAY_KEYS: "stored" }, "CLOUDFLARE_AIG_TOKEN"],
    ["request keys without the Anthropic key", { ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_KEYS: "request", OPENAI_API_KEY: keys.OPENAI_API_KEY }, "ANTHROPIC_API_KEY"],
    ["an OpenAI key alone", { ...gateway, OPENAI_API_KEY: keys.OPENAI_API_KEY }, "ANTHROPIC_API_KEY"],
    ["an unknown key mode", { ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_KEYS: "both" }, "AI_GATEWAY_KEYS"],
    ["a gateway id without an account id", { ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_ACCOUNT_ID: "" }, "AI_GATEWAY_ACCOUNT_ID"],
    ["an account id without a gateway id", { ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_ID: "" }, "AI_GATEWAY_ID"],
    ["an unknown provider", { MODEL_PROVIDER: "openai" }, "MODEL_PROVIDER"]
  ];

  it.each(refusals)("blocks on %s with a one-line fix naming %s", (_name, env, variable) => {
    const check = noSecrets(env);
    expect(check.status).toBe("block");
    expect(check.detail).toContain(variable);
    expect(check.fix).toMatch(new RegExp(`^set .*${variable}`));
    expect(check.fix).not.toContain("\n");
  });
});
