import { describe, expect, it } from "vitest";
import { resolveModelConfig } from "../../src/model/config";

const gateway = {
  AI_GATEWAY_ACCOUNT_ID: "acct",
  AI_GATEWAY_ID: "gw",
  OPENAI_MODEL: "gpt-5.5",
  ANTHROPIC_MODEL: "claude-opus-4-5",
  CLOUDFLARE_AIG_TOKEN: "aig"
};

describe("resolveModelConfig", () => {
  it("uses the gateway when its configuration is present", () => {
    expect(resolveModelConfig(gateway)).toEqual({
      ok: true,
      config: {
        kind: "gateway",
        gatewayUrl: "https://gateway.ai.cloudflare.com/v1/acct/gw",
        gatewayToken: "aig",
        openai: { model: "gpt-5.5", apiKey: undefined },
        anthropic: { model: "claude-opus-4-5", apiKey: undefined }
      }
    });
  });

  it("prefers the gateway over the scripted model even in local dev", () => {
    expect(resolveModelConfig({ ...gateway, LOCAL_DEV: "1" })).toMatchObject({ ok: true, config: { kind: "gateway" } });
  });

  it("falls back to the scripted model only in local dev", () => {
    expect(resolveModelConfig({ LOCAL_DEV: "1" })).toEqual({ ok: true, config: { kind: "scripted" } });
    const production = resolveModelConfig({ LOCAL_DEV: "", OPENAI_MODEL: "gpt-5.5" });
    expect(production).toEqual({
      ok: false,
      error:
        "model is not configured: set AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID, ANTHROPIC_MODEL (or MODEL_PROVIDER=scripted for the offline model)"
    });
  });

  it("honours an explicit provider and rejects an unknown one", () => {
    expect(resolveModelConfig({ ...gateway, MODEL_PROVIDER: "scripted" })).toEqual({ ok: true, config: { kind: "scripted" } });
    expect(resolveModelConfig({ MODEL_PROVIDER: "gateway", LOCAL_DEV: "1" }).ok).toBe(false);
    expect(resolveModelConfig({ MODEL_PROVIDER: "openai" })).toEqual({
      ok: false,
      error: 'MODEL_PROVIDER must be "gateway" or "scripted", not "openai"'
    });
  });

  it("takes a custom gateway base URL and encodes ids", () => {
    const resolved = resolveModelConfig({ ...gateway, AI_GATEWAY_ID: "my gw", AI_GATEWAY_BASE_URL: "https://gw.example.test/v1/" });
    expect(resolved).toMatchObject({ config: { gatewayUrl: "https://gw.example.test/v1/acct/my%20gw" } });
  });
});
