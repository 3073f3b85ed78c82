/**
 * The health report's gateway probe against recorded answers, played by MSW
 * handlers at the gateway's URL: success, the gateway refusing the token
 * (401, both of Cloudflare's shapes), the provider refusing the key (401),
 * no such model (404), a provider's 503, no answer in time, a request that
 * cannot be sent; the exact request it sends in each key mode; and the
 * cache that keeps dashboard loads from paying for a call each. The bodies
 * are what Cloudflare's and OpenAI's docs and issue threads show
 * (docs/model-setup.md), not captured from a live gateway.
 */
import { delay, http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resolveModelConfig, type GatewayModelConfig, type ModelEnv } from "../../src/model/config";
import { liveModelHealth } from "../../src/model/health";
import { mask, probeGateway, refusalOf, PROBE_MAX_OUTPUT_TOKENS } from "../../src/model/probe";
import { createProbeCache, probeKey, PROBE_ANSWER_TTL_MS, PROBE_RETRY_TTL_MS } from "../../src/model/probe-cache";
import type { ProbeAnswer } from "../../src/model/probe";

const RESPONSES_URL = "https://gateway.ai.cloudflare.com/v1/acct/gw/openai/responses";
const TOKEN = "aig-probe-canary-0123456789";
const KEYS = { OPENAI_API_KEY: "sk-openai-probe-canary-0123", ANTHROPIC_API_KEY: "sk-ant-probe-canary-0123" };
const SECRETS = [TOKEN, KEYS.OPENAI_API_KEY, KEYS.ANTHROPIC_API_KEY];
const STORED: ModelEnv = { AI_GATEWAY_ACCOUNT_ID: "acct", AI_GATEWAY_ID: "gw", OPENAI_MODEL: "gpt-5.5", ANTHROPIC_MODEL: "claude-opus-4-5", CLOUDFLARE_AIG_TOKEN: TOKEN };
const REQUEST: ModelEnv = { ...STORED, ...KEYS };

/** What the gateway answers, as Cloudflare and OpenAI document them. */
const RECORDED = {
  ok: () =>
    new HttpResponse('event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1","model":"gpt-5.5"}}\n\n', {
      headers: { "content-type": "text/event-stream" }
    }),
  gatewayUnauthorized: () => HttpResponse.json({ success: false, result: [], messages: [], error: [{ code: 2009, message: "Unauthorized" }] }, { status: 401 }),
  gatewayUnauthorizedNamed: () => HttpResponse.json({ name: "AiGatewayError", internalCode: 2009, message: "Unauthorized" }, { status: 401 }),
  providerUnauthorized: () =>
    HttpResponse.json(
      {
        error: {
          message: "Incorrect API key provided: sk-proj-****abcd. You can find your API key at https://platform.openai.com/account/api-keys.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key"
        }
      },
      { status: 401 }
    ),
  modelNotFound: () =>
    HttpResponse.json(
      { error: { message: "The model `gpt-5.5` does not exist or you do not have access to it.", type: "invalid_request_error", param: null, code: "model_not_found" } },
      { status: 404 }
    ),
  overloaded: () => HttpResponse.json({ error: { message: "The server is overloaded", type: "server_error", code: null } }, { status: 503 })
};

type Sent = { url: string; headers: Record<string, string>; body: Record<string, unknown> };
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function answerWith(reply: () => Response | Promise<Response>): Sent[] {
  const sent: Sent[] = [];
  server.use(
    http.post(RESPONSES_URL, async ({ request }) => {
      sent.push({ url: request.url, headers: Object.fromEntries(request.headers), body: (await request.json()) as Record<string, unknown> });
      return reply();
    })
  );
  return sent;
}

function configOf(env: ModelEnv): GatewayModelConfig {
  const resolved = resolveModelConfig(env);
  if (!resolved.ok || resolved.config.kind !== "gateway") throw new Error(JSON.stringify(resolved));
  return resolved.config;
}

const probeOptions = (timeoutMs = 2_500) => ({ fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, init), timeoutMs, now: () => Date.now() });

/** The model line as the Worker builds it, with a fresh cache. */
async function line(env: ModelEnv, timeoutMs?: number) {
  const cache = createProbeCache();
  const check = await liveModelHealth(env, (config) => cache.get(config, () => probeGateway(config, probeOptions(timeoutMs))));
  for (const secret of SECRETS) expect(JSON.stringify(check)).not.toContain(secret);
  expect(JSON.stringify(check)).not.toMatch(/sk-proj|\*\*\*\*/);
  return check;
}

describe("the gateway probe's request", () => {
  it("stored keys: one streamed, 16-token, unstored call to the primary, with only the gateway's headers", async () => {
    const sent = answerWith(RECORDED.ok);
    expect(await probeGateway(configOf(STORED), probeOptions())).toMatchObject({ kind: "answered", status: 200 });
    expect(sent).toEqual([
      {
        url: RESPONSES_URL,
        headers: { "content-type": "application/json", "cf-aig-authorization": `Bearer ${TOKEN}`, "cf-aig-metadata": '{"session":"agent-think-health"}' },
        body: { model: "gpt-5.5", input: "ping", max_output_tokens: PROBE_MAX_OUTPUT_TOKENS, store: false, stream: true }
      }
    ]);
  });

  it("request keys: the OpenAI key in its own header beside the gateway's token; AI_GATEWAY_AUTH=off sends no token", async () => {
    const sent = answerWith(RECORDED.ok);
    await probeGateway(configOf(REQUEST), probeOptions());
    await probeGateway(configOf({ ...REQUEST, CLOUDFLARE_AIG_TOKEN: "", AI_GATEWAY_AUTH: "off" }), probeOptions());
    expect(sent.map((request) => [request.headers.authorization, request.headers["cf-aig-authorization"]])).toEqual([
      [`Bearer ${KEYS.OPENAI_API_KEY}`, `Bearer ${TOKEN}`],
      [`Bearer ${KEYS.OPENAI_API_KEY}`, undefined]
    ]);
    expect(JSON.stringify(sent)).not.toContain(KEYS.ANTHROPIC_API_KEY);
  });
});

describe("the model line with the gateway's answer", () => {
  it("is ok when the gateway answers, saying what was asked and when", async () => {
    answerWith(RECORDED.ok);
    const check = await line(STORED);
    expect(check.status).toBe("ok");
    expect(check.detail).toMatch(
      /^stored keys \(BYOK\): .*; the gateway answered a 16-token test call to gpt-5\.5: HTTP 200 in \d+ ms \(asked \d{4}-\d\d-\d\dT[\d:.]+Z, kept 10 min\)$/
    );
  });

  it("blocks when the gateway refuses the token (401, code 2009, in either of Cloudflare's shapes), naming CLOUDFLARE_AIG_TOKEN", async () => {
    for (const reply of [RECORDED.gatewayUnauthorized, RECORDED.gatewayUnauthorizedNamed]) {
      server.resetHandlers();
      answerWith(reply);
      const check = await line(REQUEST);
      expect(check).toMatchObject({ status: "block", fix: expect.stringMatching(/^put a valid token in CLOUDFLARE_AIG_TOKEN/) });
      expect(check.detail).toContain("test call to gpt-5.5 was refused with HTTP 401 by AI Gateway (2009: Unauthorized): every model request of a run would be refused (asked");
      expect(check.detail).toMatch(/, kept 1 min\)$/);
    }
  });

  it("blocks a gateway that requires authentication when AI_GATEWAY_AUTH=off sends no token", async () => {
    answerWith(RECORDED.gatewayUnauthorized);
    const check = await line({ ...REQUEST, CLOUDFLARE_AIG_TOKEN: "", AI_GATEWAY_AUTH: "off" });
    expect(check).toMatchObject({ status: "block", unsafe: true, fix: expect.stringMatching(/^the gateway requires authentication: .*CLOUDFLARE_AIG_TOKEN and leave AI_GATEWAY_AUTH empty$/) });
  });

  it("blocks when OpenAI refuses the key (401), pointing at the stored key or OPENAI_API_KEY, and never quotes the key's characters", async () => {
    answerWith(RECORDED.providerUnauthorized);
    const stored = await line(STORED);
    expect(stored).toMatchObject({ status: "block", fix: "add a valid OpenAI key under the gateway's Provider Keys (docs/model-setup.md)" });
    expect(stored.detail).toContain("was refused with HTTP 401 by OpenAI (invalid_api_key: Incorrect API key provided: [redacted]");
    const request = await line(REQUEST);
    expect(request).toMatchObject({ status: "block", fix: "put a valid OpenAI key in OPENAI_API_KEY, with wrangler secret put" });
  });

  it("blocks a 404, naming the account, gateway and model to check", async () => {
    answerWith(RECORDED.modelNotFound);
    const check = await line(STORED);
    expect(check).toMatchObject({ status: "block", fix: 'check AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID and OPENAI_MODEL ("gpt-5.5") against the dashboard\'s AI Gateway page' });
    expect(check.detail).toContain("HTTP 404 by OpenAI (model_not_found: The model `gpt-5.5` does not exist or you do not have access to it.): no such gateway, account or model");
  });

  it("warns on a provider's 503 and on no answer in time, each kept only a minute", async () => {
    answerWith(RECORDED.overloaded);
    expect(await line(STORED)).toMatchObject({ status: "warn", detail: expect.stringMatching(/HTTP 503 by OpenAI .*: runs may be refused too \(asked .*, kept 1 min\)$/) });
    server.resetHandlers();
    answerWith(async () => {
      await delay("infinite");
      return RECORDED.ok();
    });
    const started = Date.now();
    const check = await line(STORED, 50);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(check).toMatchObject({ status: "warn", detail: expect.stringContaining("the gateway did not answer a 16-token test call to gpt-5.5 within 50 ms"), fix: expect.stringContaining("AI_GATEWAY_BASE_URL") });
  });

  it("blocks a request that cannot be sent (a network error), naming the gateway settings", async () => {
    server.use(http.post(RESPONSES_URL, () => HttpResponse.error()));
    expect(await line(STORED)).toMatchObject({ status: "block", detail: expect.stringContaining("could not be sent"), fix: expect.stringContaining("AI_GATEWAY_BASE_URL") });
  });

  it("asks nothing when the configuration already blocks, or runs the scripted model, and keeps a warning of its own", async () => {
    let asked = 0;
    const prober = async (): Promise<never> => {
      asked++;
      throw new Error("not asked");
    };
    expect((await liveModelHealth({ ...REQUEST, CLOUDFLARE_AIG_TOKEN: "" }, prober)).status).toBe("block");
    expect((await liveModelHealth({ LOCAL_DEV: "1" }, prober)).status).toBe("warn");
    expect(asked).toBe(0);
    answerWith(RECORDED.ok);
    const unpriced = await line({ ...STORED, OPENAI_MODEL: "o9-preview" });
    expect(unpriced).toMatchObject({ status: "warn", fix: expect.stringContaining('add "o9-preview" to MODEL_PRICES') });
  });
});

describe("reading a refusal", () => {
  it("tells the gateway's errors from a provider's, and says unknown for anything else", () => {
    expect(refusalOf('{"success":false,"errors":[{"code":10000,"message":"Authentication error"}]}')).toEqual({ by: "gateway", code: "10000", message: "Authentication error" });
    expect(refusalOf('{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}')).toEqual({ by: "provider", code: "authentication_error", message: "invalid x-api-key" });
    expect(refusalOf("<html>Bad gateway</html>")).toEqual({ by: "unknown", message: "<html>Bad gateway</html>" });
    expect(refusalOf("[]")).toEqual({ by: "unknown" });
  });

  it("masks anything key-shaped and bounds the message", () => {
    expect(mask(`key sk-proj-abcdef0123 and ${"x".repeat(40)} and a****b`)).toBe("key [redacted] and [redacted] and [redacted]");
    expect(mask("y ".repeat(200)).length).toBeLessThanOrEqual(160);
  });
});

describe("the probe cache", () => {
  const ok: ProbeAnswer = { kind: "answered", status: 200, ms: 5 };

  it("asks once per configuration within the answer's time, shares a probe in flight, and asks again after", async () => {
    let clock = 1_000_000;
    const cache = createProbeCache(() => clock);
    let asked = 0;
    const probe = async () => (asked++, ok);
    const config = configOf(STORED);
    const both = await Promise.all([cache.get(config, probe), cache.get(config, probe)]);
    expect(asked).toBe(1);
    // One asked, the other shared its probe; which one depends on whose key digest resolved first.
    const fresh = both.filter((got) => !got.cached);
    expect(fresh).toEqual([{ answer: ok, askedAt: 1_000_000, cached: false }]);
    expect(both.find((got) => got.cached)).toMatchObject({ answer: ok, cached: true, askedAt: 1_000_000 });
    clock += PROBE_ANSWER_TTL_MS - 1;
    await cache.get(config, probe);
    expect(asked).toBe(1);
    clock += 1;
    expect(await cache.get(config, probe)).toMatchObject({ cached: false, askedAt: clock });
    expect(asked).toBe(2);
    // A new token is a new configuration: asked at once.
    await cache.get(configOf({ ...STORED, CLOUDFLARE_AIG_TOKEN: "aig-another-token-000" }), probe);
    expect(asked).toBe(3);
  });

  it("keeps anything but a success (which no provider bills) only a minute, and a probe that throws as a failure", async () => {
    let clock = 0;
    const cache = createProbeCache(() => clock);
    const config = configOf(REQUEST);
    let answer: ProbeAnswer = { kind: "timeout", ms: 2_500 };
    let asked = 0;
    const probe = async () => (asked++, answer);
    for (const next of [{ kind: "refused", status: 401, ms: 3, by: "gateway" }, { kind: "refused", status: 404, ms: 3, by: "provider" }, ok] as ProbeAnswer[]) {
      await cache.get(config, probe);
      clock += PROBE_RETRY_TTL_MS - 1;
      await cache.get(config, probe);
      clock += 1;
      answer = next;
    }
    expect(asked).toBe(3);
    await cache.get(config, probe);
    expect(asked).toBe(4);
    clock += PROBE_RETRY_TTL_MS;
    await cache.get(config, probe);
    expect(asked).toBe(4);
    const thrown = await createProbeCache(() => 0).get(config, async () => {
      throw new Error(`boom ${"k".repeat(40)}`);
    });
    expect(thrown.answer).toEqual({ kind: "failed", error: "boom [redacted]" });
  });

  it("keys answers by a digest that holds no secret", async () => {
    const key = await probeKey(configOf(REQUEST));
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(key).not.toBe(await probeKey(configOf({ ...REQUEST, OPENAI_API_KEY: "sk-openai-other-0000" })));
  });
});
