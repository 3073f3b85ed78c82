import { describe, expect, it } from "vitest";
import { resolveModelConfig, type ModelEnv } from "../../src/model/config";

const gateway = {
  AI_GATEWAY_ACCOUNT_ID: "acct",
  AI_GATEWAY_ID: "gw",
  OPENAI_MODEL: "gpt-5.5",
  ANTHROPIC_MODEL: "claude-opus-4-5",
  CLOUDFLARE_AIG_TOKEN: "aig-secret"
};
const keys = { OPENAI_API_KEY: "sk-openai", ANTHROPIC_API_KEY: "sk-ant" };
const { CLOUDFLARE_AIG_TOKEN: _token, ...noToken } = gateway;

const refusal = (env: ModelEnv) => {
  const resolved = resolveModelConfig(env);
  if (resolved.ok) throw new Error(`expected a refusal, got ${JSON.stringify(resolved.config)}`);
  return resolved;
};

describe("resolveModelConfig", () => {
  it("uses the gateway with stored keys when only the gateway token is set", () => {
    expect(resolveModelConfig(gateway)).toEqual({
      ok: true,
      config: {
        kind: "gateway",
        gatewayUrl: "https://gateway.ai.cloudflare.com/v1/acct/gw",
        auth: { keys: "stored", gatewayToken: "aig-secret" },
        openai: { model: "gpt-5.5" },
        anthropic: { model: "claude-opus-4-5" }
      }
    });
  });

  it("sends request keys when provider keys are set, with the gateway token when there is one", () => {
    expect(resolveModelConfig({ ...gateway, ...keys })).toMatchObject({
      ok: true,
      config: { auth: { keys: "request", gatewayToken: "aig-secret", openaiApiKey: "sk-openai", anthropicApiKey: "sk-ant" } }
    });
  });

  it("sends no gateway token only when AI_GATEWAY_AUTH=off says the gateway is unauthenticated", () => {
    for (const off of ["off", " OFF "]) {
      const unauthenticated = resolveModelConfig({ ...noToken, ...keys, CLOUDFLARE_AIG_TOKEN: "", AI_GATEWAY_AUTH: off });
      expect(unauthenticated).toMatchObject({ ok: true, config: { auth: { keys: "request" } } });
      expect(unauthenticated.ok && unauthenticated.config.kind === "gateway" && unauthenticated.config.auth).not.toHaveProperty("gatewayToken");
    }
    // A token beside AI_GATEWAY_AUTH=off is still sent: the setting changes nothing then.
    expect(resolveModelConfig({ ...gateway, ...keys, AI_GATEWAY_AUTH: "off" })).toMatchObject({
      ok: true,
      config: { auth: { keys: "request", gatewayToken: "aig-secret" } }
    });
    expect(resolveModelConfig({ ...gateway, AI_GATEWAY_AUTH: "off" })).toMatchObject({ ok: true, config: { auth: { keys: "stored", gatewayToken: "aig-secret" } } });
  });

  it("follows AI_GATEWAY_KEYS over what is set", () => {
    expect(resolveModelConfig({ ...gateway, ...keys, AI_GATEWAY_KEYS: "stored" })).toMatchObject({
      ok: true,
      config: { auth: { keys: "stored", gatewayToken: "aig-secret" } }
    });
    const stored = resolveModelConfig({ ...gateway, ...keys, AI_GATEWAY_KEYS: "stored" });
    expect(JSON.stringify(stored)).not.toContain("sk-");
    expect(resolveModelConfig({ ...gateway, ...keys, AI_GATEWAY_KEYS: " request " })).toMatchObject({
      ok: true,
      config: { auth: { keys: "request" } }
    });
  });

  it("trims surrounding whitespace off secrets", () => {
    expect(resolveModelConfig({ ...gateway, CLOUDFLARE_AIG_TOKEN: " aig-secret\n" })).toMatchObject({
      config: { auth: { gatewayToken: "aig-secret" } }
    });
  });

  it("prefers the gateway over the scripted model even in local dev", () => {
    expect(resolveModelConfig({ ...gateway, LOCAL_DEV: "1" })).toMatchObject({ ok: true, config: { kind: "gateway" } });
  });

  it("falls back to the scripted model only in local dev with no gateway", () => {
    expect(resolveModelConfig({ LOCAL_DEV: "1" })).toEqual({ ok: true, config: { kind: "scripted" } });
    expect(resolveModelConfig({ LOCAL_DEV: "1", CLOUDFLARE_AIG_TOKEN: "   " })).toEqual({ ok: true, config: { kind: "scripted" } });
    expect(resolveModelConfig({ LOCAL_DEV: "", OPENAI_MODEL: "gpt-5.5" })).toEqual({
      ok: false,
      error:
        "model is not configured: set AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID, ANTHROPIC_MODEL (docs/model-setup.md; MODEL_PROVIDER=scripted runs only the offline demonstration)",
      fix: "set AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID, ANTHROPIC_MODEL (docs/model-setup.md; MODEL_PROVIDER=scripted runs only the offline demonstration)"
    });
  });

  it("honours an explicit provider and rejects an unknown one", () => {
    expect(resolveModelConfig({ ...gateway, MODEL_PROVIDER: "scripted" })).toEqual({ ok: true, config: { kind: "scripted" } });
    expect(resolveModelConfig({ MODEL_PROVIDER: "gateway", LOCAL_DEV: "1" }).ok).toBe(false);
    expect(refusal({ MODEL_PROVIDER: "openai" })).toEqual({
      ok: false,
      error: 'MODEL_PROVIDER must be "gateway" or "scripted", not "openai"',
      fix: 'set MODEL_PROVIDER to "gateway" or "scripted", or leave it empty'
    });
  });

  it("takes a custom gateway base URL and encodes ids", () => {
    const resolved = resolveModelConfig({ ...gateway, AI_GATEWAY_ID: "my gw", AI_GATEWAY_BASE_URL: "https://gw.example.test/v1/" });
    expect(resolved).toMatchObject({ config: { gatewayUrl: "https://gw.example.test/v1/acct/my%20gw" } });
  });
});

describe("resolveModelConfig refuses what cannot work, naming the variable", () => {
  const cases: Array<[string, ModelEnv, RegExp, RegExp]> = [
    [
      "no gateway token and no provider keys",
      noToken,
      /^the model has no credentials: set CLOUDFLARE_AIG_TOKEN alone for keys stored in the gateway, or with OPENAI_API_KEY and ANTHROPIC_API_KEY$/,
      /^set CLOUDFLARE_AIG_TOKEN/
    ],
    ["an empty gateway token and no provider keys", { ...gateway, CLOUDFLARE_AIG_TOKEN: "" }, /^the model has no credentials/, /CLOUDFLARE_AIG_TOKEN/],
    [
      "a blank gateway token",
      { ...gateway, CLOUDFLARE_AIG_TOKEN: " \t\n" },
      /^CLOUDFLARE_AIG_TOKEN is blank \(only whitespace\): set CLOUDFLARE_AIG_TOKEN to the gateway's token, or leave it empty$/,
      /^set CLOUDFLARE_AIG_TOKEN/
    ],
    ["a blank gateway token beside provider keys", { ...gateway, ...keys, CLOUDFLARE_AIG_TOKEN: "  " }, /^CLOUDFLARE_AIG_TOKEN is blank/, /CLOUDFLARE_AIG_TOKEN/],
    ["a blank OpenAI key", { ...gateway, ...keys, OPENAI_API_KEY: " " }, /^OPENAI_API_KEY is blank/, /^set OPENAI_API_KEY to the OpenAI key/],
    ["a blank Anthropic key", { ...gateway, ANTHROPIC_API_KEY: "\n" }, /^ANTHROPIC_API_KEY is blank/, /^set ANTHROPIC_API_KEY/],
    [
      "stored keys without a token",
      { ...noToken, AI_GATEWAY_KEYS: "stored" },
      /^AI_GATEWAY_KEYS=stored needs CLOUDFLARE_AIG_TOKEN, as stored keys \(BYOK\) work only through an authenticated gateway: set CLOUDFLARE_AIG_TOKEN/,
      /^set CLOUDFLARE_AIG_TOKEN to the gateway's token \(docs\/model-setup.md\)$/
    ],
    ["stored keys without a token, provider keys set", { ...noToken, ...keys, AI_GATEWAY_KEYS: "stored" }, /^AI_GATEWAY_KEYS=stored needs CLOUDFLARE_AIG_TOKEN/, /CLOUDFLARE_AIG_TOKEN/],
    [
      "request keys with no keys",
      { ...gateway, AI_GATEWAY_KEYS: "request" },
      /^AI_GATEWAY_KEYS=request sends each provider its key, and OPENAI_API_KEY and ANTHROPIC_API_KEY are not set: set OPENAI_API_KEY and ANTHROPIC_API_KEY, or AI_GATEWAY_KEYS=stored/,
      /^set OPENAI_API_KEY and ANTHROPIC_API_KEY/
    ],
    [
      "an OpenAI key without the Anthropic key",
      { ...gateway, OPENAI_API_KEY: "sk-openai" },
      /^OPENAI_API_KEY is set, so requests carry provider keys, and ANTHROPIC_API_KEY is not set: set ANTHROPIC_API_KEY, or AI_GATEWAY_KEYS=stored/,
      /^set ANTHROPIC_API_KEY,/
    ],
    ["an Anthropic key without the OpenAI key", { ...noToken, ANTHROPIC_API_KEY: "sk-ant" }, /^ANTHROPIC_API_KEY is set, .* OPENAI_API_KEY is not set/, /^set OPENAI_API_KEY,/],
    [
      "provider keys without a gateway token (AI Gateway requires one)",
      { ...noToken, ...keys },
      /^CLOUDFLARE_AIG_TOKEN is not set, and AI Gateway refuses requests without it \(new gateways always require authentication\): set CLOUDFLARE_AIG_TOKEN/,
      /^set CLOUDFLARE_AIG_TOKEN to the gateway's token \(docs\/model-setup.md\), or AI_GATEWAY_AUTH=off if the gateway's authentication is off$/
    ],
    ["request keys chosen without a gateway token", { ...noToken, ...keys, AI_GATEWAY_KEYS: "request" }, /^CLOUDFLARE_AIG_TOKEN is not set/, /AI_GATEWAY_AUTH=off/],
    ["an empty AI_GATEWAY_AUTH is not off", { ...noToken, ...keys, AI_GATEWAY_AUTH: "  " }, /^CLOUDFLARE_AIG_TOKEN is not set/, /^set CLOUDFLARE_AIG_TOKEN/],
    [
      "an AI_GATEWAY_AUTH that is not off",
      { ...noToken, ...keys, AI_GATEWAY_AUTH: "false" },
      /^AI_GATEWAY_AUTH must be empty \(the gateway's token required\) or "off", not "false": set AI_GATEWAY_AUTH to ""/,
      /^set AI_GATEWAY_AUTH to "" with CLOUDFLARE_AIG_TOKEN set to the gateway's token, or to "off"/
    ],
    ["an AI_GATEWAY_AUTH that is not off, beside a token", { ...gateway, AI_GATEWAY_AUTH: "none" }, /^AI_GATEWAY_AUTH must be .* not "none"/, /AI_GATEWAY_AUTH/],
    ["an AI_GATEWAY_AUTH holding a pasted token, not echoed", { ...gateway, AI_GATEWAY_AUTH: "Bearer aig-secret" }, /not a value of 17 characters/, /AI_GATEWAY_AUTH/],
    [
      "AI_GATEWAY_AUTH=off with no provider keys",
      { ...noToken, AI_GATEWAY_AUTH: "off" },
      /^the model has no credentials: AI_GATEWAY_AUTH=off sends no gateway token, and no provider key is set: set OPENAI_API_KEY and ANTHROPIC_API_KEY/,
      /^set OPENAI_API_KEY and ANTHROPIC_API_KEY/
    ],
    [
      "stored keys under AI_GATEWAY_AUTH=off",
      { ...noToken, AI_GATEWAY_KEYS: "stored", AI_GATEWAY_AUTH: "off" },
      /^AI_GATEWAY_KEYS=stored needs CLOUDFLARE_AIG_TOKEN, .*, whatever AI_GATEWAY_AUTH says: set CLOUDFLARE_AIG_TOKEN/,
      /^set CLOUDFLARE_AIG_TOKEN/
    ],
    ["an unknown key mode", { ...gateway, AI_GATEWAY_KEYS: "byok" }, /^AI_GATEWAY_KEYS must be "stored", "request" or empty, not "byok"/, /^set AI_GATEWAY_KEYS/],
    ["a gateway id without an account id", { ...gateway, AI_GATEWAY_ACCOUNT_ID: "" }, /^model is not configured: set AI_GATEWAY_ACCOUNT_ID \(/, /^set AI_GATEWAY_ACCOUNT_ID/],
    ["an account id without a gateway id", { ...gateway, AI_GATEWAY_ID: " " }, /^model is not configured: set AI_GATEWAY_ID \(/, /^set AI_GATEWAY_ID/],
    ["half a gateway in local dev", { AI_GATEWAY_ID: "gw", LOCAL_DEV: "1" }, /^model is not configured: set AI_GATEWAY_ACCOUNT_ID, OPENAI_MODEL/, /AI_GATEWAY_ACCOUNT_ID/]
  ];

  it.each(cases)("%s", (_name, env, error, fix) => {
    const refused = refusal(env);
    expect(refused.error).toMatch(error);
    expect(refused.fix).toMatch(fix);
    expect(refused.error.endsWith(refused.fix)).toBe(true);
    for (const secret of ["aig-secret", "sk-openai", "sk-ant"]) expect(`${refused.error} ${refused.fix}`).not.toContain(secret);
  });
});
