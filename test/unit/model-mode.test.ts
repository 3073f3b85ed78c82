import { describe, expect, it } from "vitest";
import { createModel, ModelConfigError } from "../../src/model";
import type { LogFields } from "../../src/run/log";

const TOKEN = "aig-mode-secret";
const keys = { OPENAI_API_KEY: "sk-openai-mode-secret", ANTHROPIC_API_KEY: "sk-ant-mode-secret" };

/** A gateway no other test builds a model for, so this isolate has not logged its mode yet. */
const freshGateway = () => ({
  AI_GATEWAY_ACCOUNT_ID: "acct",
  AI_GATEWAY_ID: `gw-${crypto.randomUUID().slice(0, 8)}`,
  OPENAI_MODEL: "gpt-5.5",
  ANTHROPIC_MODEL: "claude-x"
});

function recorder() {
  const lines: Array<{ event: string; fields?: LogFields }> = [];
  return { lines, log: (event: string, fields?: LogFields) => void lines.push({ event, fields }) };
}

describe("createModel's mode line", () => {
  it("logs the stored-keys mode once per isolate, naming no secret", () => {
    const gateway = freshGateway();
    const { lines, log } = recorder();
    createModel({ ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN }, { log });
    createModel({ ...gateway, CLOUDFLARE_AIG_TOKEN: TOKEN }, { log });
    expect(lines).toEqual([
      {
        event: "model:mode",
        fields: {
          mode: "stored-keys",
          gateway: `https://gateway.ai.cloudflare.com/v1/acct/${gateway.AI_GATEWAY_ID}`,
          primary: "gpt-5.5",
          fallback: "claude-x",
          gatewayToken: true,
          providerKeys: false
        }
      }
    ]);
  });

  it("logs the request-keys mode with whether each credential is present, never a value", () => {
    const { lines, log } = recorder();
    createModel({ ...freshGateway(), ...keys, AI_GATEWAY_AUTH: "off" }, { log });
    expect(lines).toMatchObject([{ event: "model:mode", fields: { mode: "request-keys", gatewayToken: false, providerKeys: true } }]);
    expect(JSON.stringify(lines)).not.toMatch(/secret/);
  });

  it("throws a ModelConfigError naming the variable for a configuration that cannot work", () => {
    expect(() => createModel({ ...freshGateway(), CLOUDFLARE_AIG_TOKEN: "  " })).toThrow(ModelConfigError);
    expect(() => createModel({ ...freshGateway(), CLOUDFLARE_AIG_TOKEN: "  " })).toThrow(/^CLOUDFLARE_AIG_TOKEN is blank/);
  });
});
