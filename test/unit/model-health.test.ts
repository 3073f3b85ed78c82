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

/** What every gateway line ends with when MODELS_ALLOWED is empty. */
const PICKS = "; a repository's model: may pick only gpt-5.5 or claude-opus-4-5 (MODELS_ALLOWED is empty)";

describe("modelHealth", () => {
  it("reports stored keys with the gateway token present", () => {
    expect(noSecrets({ ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN })).toEqual({
      id: "model",
      label: "Model",
      status: "ok",
      detail:
        "stored keys (BYOK): gpt-5.5 through AI Gateway, falling back to claude-opus-4-5; CLOUDFLARE_AIG_TOKEN set; provider keys stored in the gateway, none sent" + PICKS
    });
  });

  it("says when stored keys leave configured provider keys unused", () => {
    expect(noSecrets({ ...gateway, ...keys, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_KEYS: "stored" }).detail).toMatch(
      /none sent \(OPENAI_API_KEY and ANTHROPIC_API_KEY set but unused\); a repository/
    );
  });

  it("reports request keys, with and without a gateway token", () => {
    expect(noSecrets({ ...gateway, ...keys, CLOUDFLARE_AIG_TOKEN: TOKEN })).toEqual({
      id: "model",
      label: "Model",
      status: "ok",
      detail:
        "request keys: gpt-5.5 through AI Gateway, falling back to claude-opus-4-5; OPENAI_API_KEY and ANTHROPIC_API_KEY set; CLOUDFLARE_AIG_TOKEN set" + PICKS
    });
    expect(noSecrets({ ...gateway, ...keys })).toMatchObject({ status: "block", detail: expect.stringMatching(/^CLOUDFLARE_AIG_TOKEN is not set/) });
  });

  it("shows AI_GATEWAY_AUTH=off as unsafe, and as changing nothing beside a token", () => {
    expect(noSecrets({ ...gateway, ...keys, AI_GATEWAY_AUTH: "off" })).toEqual({
      id: "model",
      label: "Model",
      status: "warn",
      unsafe: true,
      detail:
        "request keys: gpt-5.5 through AI Gateway, falling back to claude-opus-4-5; OPENAI_API_KEY and ANTHROPIC_API_KEY set; " +
        "AI_GATEWAY_AUTH=off: requests carry no gateway token, so anyone who knows the account and gateway ids can send requests through this gateway and fill its logs" +
        PICKS,
      fix: "turn on the gateway's authentication, create its token and set CLOUDFLARE_AIG_TOKEN, then leave AI_GATEWAY_AUTH empty (docs/model-setup.md)"
    });
    expect(noSecrets({ ...gateway, ...keys, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_AUTH: "off" })).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/; CLOUDFLARE_AIG_TOKEN set and sent: AI_GATEWAY_AUTH=off changes nothing; a repository/),
      fix: "leave AI_GATEWAY_AUTH empty"
    });
    expect(noSecrets({ ...gateway, ...keys, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_AUTH: "off" })).not.toHaveProperty("unsafe");
    expect(noSecrets({ ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_AUTH: "off" })).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/^stored keys \(BYOK\): .*; provider keys stored in the gateway, none sent; CLOUDFLARE_AIG_TOKEN set and sent: AI_GATEWAY_AUTH=off changes nothing; a repository/)
    });
  });

  it("names the models MODELS_ALLOWED lets a repository pick beyond the deployment's two, and prices them too", () => {
    const check = noSecrets({ ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, MODELS_ALLOWED: "gpt-5.4,claude-opus-5" });
    expect(check.status).toBe("ok");
    expect(check.detail).toMatch(/; a repository's model: may pick gpt-5\.5, claude-opus-4-5, gpt-5\.4, claude-opus-5 \(MODELS_ALLOWED adds gpt-5\.4, claude-opus-5\)$/);
    const unpriced = noSecrets({ ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, MODELS_ALLOWED: "o9-preview" });
    expect(unpriced).toMatchObject({ status: "warn", detail: expect.stringContaining("no price for o9-preview") });
    expect(noSecrets({ ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, MODELS_ALLOWED: "gemini-3" })).toMatchObject({ status: "block", detail: expect.stringContaining("MODELS_ALLOWED") });
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
    ["provider keys without a gateway token", { ...gateway, ...keys }, "CLOUDFLARE_AIG_TOKEN"],
    ["an AI_GATEWAY_AUTH that is not off", { ...gateway, ...keys, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_AUTH: "no" }, "AI_GATEWAY_AUTH"],
    ["an unknown key mode", { ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_KEYS: "both" }, "AI_GATEWAY_KEYS"],
    ["a gateway id without an account id", { ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_ACCOUNT_ID: "" }, "AI_GATEWAY_ACCOUNT_ID"],
    ["an account id without a gateway id", { ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, AI_GATEWAY_ID: "" }, "AI_GATEWAY_ID"],
    ["an unknown provider", { MODEL_PROVIDER: "openai" }, "MODEL_PROVIDER"],
    ["a reasoning effort OpenAI does not name", { ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN, REASONING_EFFORT: "medium,open-pr=hard" }, "REASONING_EFFORT"]
  ];

  it.each(refusals)("blocks on %s with a one-line fix naming %s", (_name, env, variable) => {
    const check = noSecrets(env);
    expect(check.status).toBe("block");
    expect(check.detail).toContain(variable);
    expect(check.fix).toMatch(new RegExp(`^set .*${variable}`));
    expect(check.fix).not.toContain("\n");
  });

  it("warns when a configured model has no price, or MODEL_PRICES does not parse, and not otherwise", () => {
    const env = { ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN };
    expect(modelHealth({ ...env, OPENAI_MODEL: "gpt-5.5-2026-10-01" }).status).toBe("ok");
    const unpriced = modelHealth({ ...env, OPENAI_MODEL: "o9-preview" });
    expect(unpriced).toMatchObject({ status: "warn", fix: expect.stringContaining('add "o9-preview" to MODEL_PRICES') });
    expect(unpriced.detail).toMatch(/; no price for o9-preview: those runs' cost shows as unknown and RUN_COST_BUDGET cannot stop them$/);
    expect(modelHealth({ ...env, OPENAI_MODEL: "o9-preview", MODEL_PRICES: JSON.stringify({ "o9-preview": { input: 1, cachedInput: 0.1, output: 4 } }) }).status).toBe("ok");
    expect(modelHealth({ ...env, MODEL_PRICES: "{" })).toMatchObject({ status: "warn", detail: expect.stringContaining("MODEL_PRICES must be JSON"), fix: "fix MODEL_PRICES (README, Configuration)" });
    // The scripted model is priced at nothing and stays a warning of its own.
    expect(modelHealth({ MODEL_PRICES: "{" }).detail).not.toContain("MODEL_PRICES");
  });
});
