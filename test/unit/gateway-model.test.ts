/**
 * The gateway chain's requests as they leave the Worker: the real AI SDK
 * providers over a recording fetch, so the exact URL and headers of the
 * OpenAI Responses and Anthropic Messages requests are checked in each key
 * mode, on fallback, with each request's cf-aig-metadata. (The same through
 * real Think turns: test/model-chain.test.ts.)
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveModelConfig, type GatewayModelConfig, type ModelEnv } from "../../src/model/config";
import { createGatewayModel, UNSENT_KEY } from "../../src/model/gateway";
import { gatewayFetch, gatewayHeaders } from "../../src/model/gateway-fetch";
import { metadataHeader, runMetadata, type GatewayMetadata } from "../../src/model/metadata";

const GATEWAY = "https://gateway.ai.cloudflare.com/v1/acct/gw";
const env = { AI_GATEWAY_ACCOUNT_ID: "acct", AI_GATEWAY_ID: "gw", OPENAI_MODEL: "gpt-5.5", ANTHROPIC_MODEL: "claude-x" };
const TOKEN = "aig-token-0000";
const keys = { OPENAI_API_KEY: "sk-openai-0000", ANTHROPIC_API_KEY: "sk-ant-0000" };

function config(overrides: ModelEnv): GatewayModelConfig {
  const resolved = resolveModelConfig({ ...env, ...overrides });
  if (!resolved.ok || resolved.config.kind !== "gateway") throw new Error(JSON.stringify(resolved));
  return resolved.config;
}

type Sent = { url: string; headers: Record<string, string> };

/** globalThis.fetch answering `answer(url)` and recording every request; the providers' fetch looks it up per call. */
function recordFetch(answer: (url: string) => Response): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    sent.push({ url, headers: Object.fromEntries(new Headers(init?.headers)) });
    return answer(url);
  });
  return sent;
}
afterEach(() => vi.unstubAllGlobals());

const openaiOk = () =>
  Response.json({
    id: "resp_1",
    created_at: 1,
    model: "gpt-5.5",
    output: [{ type: "message", id: "msg_1", role: "assistant", content: [{ type: "output_text", text: "hi", annotations: [] }] }],
    usage: { input_tokens: 1, output_tokens: 1 }
  });
const anthropicOk = () =>
  Response.json({
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-x",
    content: [{ type: "text", text: "hi" }],
    stop_reason: "end_turn",
    usage: { input_tokens: 1, output_tokens: 1 }
  });
const failing = () => Response.json({ error: { message: "down", type: "api_error" } }, { status: 500 });

const call = (model: LanguageModelV4) =>
  model.doGenerate({ prompt: [{ role: "user", content: [{ type: "text", text: "hello" }] }], maxRetries: 0 } as never);

/** What a request carries apart from the SDK's own bookkeeping (user agent, content type, version). */
function gatewayView(headers: Record<string, string>) {
  const { "user-agent": _ua, "content-type": _ct, "anthropic-version": _v, ...rest } = headers;
  return rest;
}

const META: GatewayMetadata = { session: "acme-widgets-7", repo: "acme/widgets", issue: 7, submission: "sub-1" };
const META_JSON = '{"session":"acme-widgets-7","repo":"acme/widgets","issue":7,"submission":"sub-1"}';

describe("the gateway chain's requests", () => {
  it("stored keys: OpenAI gets only cf-aig-authorization and cf-aig-metadata, no provider key", async () => {
    const sent = recordFetch(openaiOk);
    await call(createGatewayModel(config({ CLOUDFLARE_AIG_TOKEN: TOKEN }), { metadata: () => META }));
    expect(sent.map((request) => request.url)).toEqual([`${GATEWAY}/openai/responses`]);
    expect(gatewayView(sent[0]!.headers)).toEqual({ "cf-aig-authorization": `Bearer ${TOKEN}`, "cf-aig-metadata": META_JSON });
    expect(JSON.stringify(sent)).not.toContain(UNSENT_KEY);
  });

  it("stored keys on fallback: Anthropic gets no x-api-key and no authorization either", async () => {
    const sent = recordFetch((url) => (url.includes("/openai/") ? failing() : anthropicOk()));
    await call(createGatewayModel(config({ CLOUDFLARE_AIG_TOKEN: TOKEN }), { metadata: () => META }));
    expect(sent.map((request) => request.url)).toEqual([`${GATEWAY}/openai/responses`, `${GATEWAY}/anthropic/v1/messages`]);
    for (const request of sent) {
      expect(gatewayView(request.headers)).toEqual({ "cf-aig-authorization": `Bearer ${TOKEN}`, "cf-aig-metadata": META_JSON });
    }
    expect(sent[1]!.headers["anthropic-version"]).toBe("2023-06-01");
  });

  it("stored keys never send provider keys that are configured but unused", async () => {
    const sent = recordFetch((url) => (url.includes("/openai/") ? failing() : anthropicOk()));
    await call(createGatewayModel(config({ CLOUDFLARE_AIG_TOKEN: TOKEN, ...keys, AI_GATEWAY_KEYS: "stored" })));
    for (const request of sent) expect(gatewayView(request.headers)).toEqual({ "cf-aig-authorization": `Bearer ${TOKEN}` });
  });

  it("request keys: each provider gets its key in its own header, beside cf-aig-authorization", async () => {
    const sent = recordFetch((url) => (url.includes("/openai/") ? failing() : anthropicOk()));
    await call(createGatewayModel(config({ CLOUDFLARE_AIG_TOKEN: TOKEN, ...keys }), { metadata: () => META }));
    expect(sent.map((request) => [request.url, gatewayView(request.headers)])).toEqual([
      [
        `${GATEWAY}/openai/responses`,
        { authorization: `Bearer ${keys.OPENAI_API_KEY}`, "cf-aig-authorization": `Bearer ${TOKEN}`, "cf-aig-metadata": META_JSON }
      ],
      [
        `${GATEWAY}/anthropic/v1/messages`,
        { "x-api-key": keys.ANTHROPIC_API_KEY, "cf-aig-authorization": `Bearer ${TOKEN}`, "cf-aig-metadata": META_JSON }
      ]
    ]);
  });

  it("request keys with AI_GATEWAY_AUTH=off: no cf-aig-authorization at all", async () => {
    const sent = recordFetch(openaiOk);
    await call(createGatewayModel(config({ ...keys, AI_GATEWAY_AUTH: "off" })));
    expect(gatewayView(sent[0]!.headers)).toEqual({ authorization: `Bearer ${keys.OPENAI_API_KEY}` });
  });

  it("reads the metadata per request, so one model serves turn after turn", async () => {
    const sent = recordFetch(openaiOk);
    let submission = "first";
    const model = createGatewayModel(config({ CLOUDFLARE_AIG_TOKEN: TOKEN }), {
      metadata: async () => ({ session: "s", submission })
    });
    await call(model);
    submission = "second";
    await call(model);
    expect(sent.map((request) => request.headers["cf-aig-metadata"])).toEqual([
      '{"session":"s","submission":"first"}',
      '{"session":"s","submission":"second"}'
    ]);
  });
});

describe("gatewayHeaders", () => {
  it("removes every provider auth header in the stored-keys mode, whatever its case", () => {
    const built = { Authorization: "Bearer x", "X-Api-Key": "y", accept: "text/event-stream" };
    expect(Object.fromEntries(gatewayHeaders(built, { keys: "stored", gatewayToken: TOKEN }))).toEqual({
      accept: "text/event-stream",
      "cf-aig-authorization": `Bearer ${TOKEN}`
    });
  });

  it("keeps the provider header in the request-keys mode and drops a stray cf-aig-authorization without a token", () => {
    const auth = { keys: "request", openaiApiKey: "a", anthropicApiKey: "b" } as const;
    expect(Object.fromEntries(gatewayHeaders({ "x-api-key": "b", "cf-aig-authorization": "stray" }, auth))).toEqual({ "x-api-key": "b" });
  });

  it("wraps a given fetch, passing the URL and body through", async () => {
    const seen: Array<[string, RequestInit | undefined]> = [];
    const base = async (input: RequestInfo | URL, init?: RequestInit) => (seen.push([String(input), init]), new Response("ok"));
    const fetch = gatewayFetch({ keys: "stored", gatewayToken: TOKEN }, () => META, base as typeof globalThis.fetch);
    await fetch(`${GATEWAY}/openai/responses`, { method: "POST", body: "{}", headers: { authorization: "Bearer x" } });
    expect(seen[0]![0]).toBe(`${GATEWAY}/openai/responses`);
    expect(seen[0]![1]).toMatchObject({ method: "POST", body: "{}" });
    expect(Object.fromEntries(seen[0]![1]!.headers as Headers)).toEqual({ "cf-aig-authorization": `Bearer ${TOKEN}`, "cf-aig-metadata": META_JSON });
  });
});

describe("gateway metadata", () => {
  it("names the session, and the run's repo, issue and submission when there is one", () => {
    expect(runMetadata("acme-widgets-7", { repo: "acme/widgets", issueNumber: 7 }, { submissionId: "sub-1" })).toEqual(META);
    expect(runMetadata("acme-widgets-7", null, null)).toEqual({ session: "acme-widgets-7" });
  });

  it("is a flat JSON object within the gateway's limits of five entries of strings, numbers and booleans", () => {
    expect(metadataHeader(META)).toBe(META_JSON);
    expect(metadataHeader({ a: "x", b: undefined, c: true })).toBe('{"a":"x","c":true}');
    expect(() => metadataHeader({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 })).toThrow(/at most 5 entries, not 6/);
    expect(() => metadataHeader({ a: { nested: 1 } as never })).toThrow(/a is object/);
  });
});
