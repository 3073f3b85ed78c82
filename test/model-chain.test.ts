/**
 * The production model chain driven by real Think turns: OpenAI's Responses
 * API through AI Gateway first, Anthropic through the same gateway when the
 * primary request fails, and a recorded error when both fail. Each request's
 * exact URL and headers are checked in both key modes: stored keys (BYOK,
 * only cf-aig-authorization) and request keys (each provider's own header),
 * with the turn's cf-aig-metadata. Each step's provider options are checked
 * in the bodies: OpenAI's reasoning effort per the skill the run activated
 * (REASONING_EFFORT), and Anthropic's prompt caching. Providers are MSW
 * handlers; nothing reaches the network.
 */
import { env } from "cloudflare:workers";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import openPr from "../skills/open-pr/SKILL.md?raw";
import { RUN_CONTRACT } from "../src/run/run-contract";
import { sessionName } from "../src/shared/session-name";
import { agentFor, assistantText, captureConsole, toolParts, uniqueRepo, waitForStatus } from "./helpers";
import {
  ANTHROPIC_MESSAGES_URL,
  anthropicText,
  OPENAI_RESPONSES_URL,
  openaiText,
  openaiToolCall,
  providerError,
  providerHandlers,
  type RecordedRequest
} from "./support/providers";
import { GatewayThinkAgent, TEST_GATEWAY_ENV } from "./worker";

const server = setupServer();
beforeAll(async () => {
  server.listen({ onUnhandledRequest: "error" });
  // The skill the reasoning-effort tests activate, as `npm run seed:r2` puts it.
  await env.SKILLS_BUCKET.put("skills/open-pr/SKILL.md", openPr);
});
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const CANARY_TOKEN = "ghs_CANARYtokenMODELchain0000000000";
const REQUEST_KEYS = { OPENAI_API_KEY: "sk-openai-chain-0000", ANTHROPIC_API_KEY: "sk-ant-chain-0000" };
const GATEWAY_AUTH = `Bearer ${TEST_GATEWAY_ENV.CLOUDFLARE_AIG_TOKEN}`;

async function runTurn(answer: Parameters<typeof providerHandlers>[0], modelEnv?: Record<string, string>) {
  const recorded: RecordedRequest[] = [];
  server.use(...providerHandlers(answer, recorded));
  const repo = uniqueRepo();
  const session = sessionName(repo, 12);
  if (modelEnv) GatewayThinkAgent.modelEnvFor.set(session, modelEnv);
  const agent = await agentFor(session, env.GatewayThinkAgent);
  const { result, lines } = await captureConsole(async () => {
    const { submissionId } = await agent.startRun({
      session,
      repo,
      issueNumber: 12,
      instruction: "reproduce this issue",
      installationToken: CANARY_TOKEN,
      commentId: 31337
    });
    return { submissionId, status: await waitForStatus(agent, submissionId) };
  });
  const metadata = JSON.stringify({ session, repo, issue: 12, submission: result.submissionId });
  return { ...result, lines, recorded, metadata, messages: await agent.transcript() };
}

/** A request's URL and the headers that carry credentials or metadata (the SDK's own bookkeeping left out). */
function sent(request: RecordedRequest) {
  const { "user-agent": _ua, "content-type": _ct, "content-length": _cl, "anthropic-version": _v, "anthropic-beta": _b, ...headers } =
    request.headers;
  return { url: request.url, headers };
}

describe("model chain", () => {
  it("answers with the OpenAI Responses API through the gateway, store: false, with stored keys only", async () => {
    const { status, recorded, messages, metadata } = await runTurn({
      openai: () => openaiText("primary answered"),
      anthropic: () => providerError(500, "fallback must not be called")
    });
    expect(status.status).toBe("completed");
    expect(assistantText(messages)).toBe("primary answered");
    expect(recorded.map(sent)).toEqual([
      { url: OPENAI_RESPONSES_URL, headers: { "cf-aig-authorization": GATEWAY_AUTH, "cf-aig-metadata": metadata } }
    ]);
    const body = JSON.parse(recorded[0]!.body);
    expect(body).toMatchObject({ model: "gpt-5.5-test", store: false, stream: true, reasoning: { effort: "medium" } });
    // The system prompt the provider gets is the run contract, said once.
    const system = (body.input as Array<{ role: string; content: unknown }>).find((item) => item.role === "system" || item.role === "developer");
    expect(JSON.stringify(system?.content)).toContain(JSON.stringify(RUN_CONTRACT.slice(0, 200)).slice(1, -1));
    expect(JSON.stringify(system?.content)).toContain("# The run envelope (fail closed)");
  });

  it("reasons at medium until the run activates open-pr, then at high", async () => {
    let asked = 0;
    const { status, recorded, messages } = await runTurn({
      openai: () => (++asked === 1 ? openaiToolCall("activate_skill", { name: "open-pr" }) : openaiText("diagnosed")),
      anthropic: () => providerError(500, "fallback must not be called")
    });
    expect(status.status).toBe("completed");
    expect(toolParts(messages)).toEqual([expect.objectContaining({ type: "tool-activate_skill", state: "output-available" })]);
    expect(assistantText(messages)).toContain("diagnosed");
    expect(recorded.map((request) => JSON.parse(request.body).reasoning.effort)).toEqual(["medium", "high"]);
    expect(recorded.map((request) => JSON.parse(request.body).store)).toEqual([false, false]);
  });

  it("follows REASONING_EFFORT: one effort for every step when no skill has its own", async () => {
    let asked = 0;
    const { recorded } = await runTurn(
      {
        openai: () => (++asked === 1 ? openaiToolCall("activate_skill", { name: "open-pr" }) : openaiText("done")),
        anthropic: () => providerError(500, "fallback must not be called")
      },
      { REASONING_EFFORT: "low" }
    );
    expect(recorded.map((request) => JSON.parse(request.body).reasoning.effort)).toEqual(["low", "low"]);
  });

  it("falls back to Anthropic when the primary request fails, still sending no provider key", async () => {
    const { status, recorded, messages, lines, metadata } = await runTurn({
      openai: () => providerError(500, "primary is down"),
      anthropic: () => anthropicText("fallback answered")
    });
    expect(status.status).toBe("completed");
    expect(assistantText(messages)).toBe("fallback answered");
    const headers = { "cf-aig-authorization": GATEWAY_AUTH, "cf-aig-metadata": metadata };
    expect(recorded.map(sent)).toEqual([
      { url: OPENAI_RESPONSES_URL, headers },
      { url: ANTHROPIC_MESSAGES_URL, headers }
    ]);
    expect(recorded[1]!.headers["anthropic-version"]).toBe("2023-06-01");
    // Anthropic's automatic prompt caching: the request's top-level cache_control caches the prompt's prefix.
    expect(JSON.parse(recorded[1]!.body)).toMatchObject({ model: "claude-test", stream: true, cache_control: { type: "ephemeral" } });
    expect(lines.some((line) => line.includes('"event":"model:fallback"'))).toBe(true);
  });

  it("sends each provider its own key with request keys, primary and fallback", async () => {
    const { status, recorded, metadata, lines } = await runTurn(
      { openai: () => providerError(500, "primary is down"), anthropic: () => anthropicText("fallback answered") },
      REQUEST_KEYS
    );
    expect(status.status).toBe("completed");
    expect(recorded.map(sent)).toEqual([
      {
        url: OPENAI_RESPONSES_URL,
        headers: { authorization: `Bearer ${REQUEST_KEYS.OPENAI_API_KEY}`, "cf-aig-authorization": GATEWAY_AUTH, "cf-aig-metadata": metadata }
      },
      {
        url: ANTHROPIC_MESSAGES_URL,
        headers: { "x-api-key": REQUEST_KEYS.ANTHROPIC_API_KEY, "cf-aig-authorization": GATEWAY_AUTH, "cf-aig-metadata": metadata }
      }
    ]);
    // The keys go to their providers, never to a log line.
    for (const key of Object.values(REQUEST_KEYS)) expect(lines.join("\n")).not.toContain(key);
  });

  it("names every request's submission: a second turn's requests carry the second submission", async () => {
    const first = await runTurn({ openai: () => openaiText("one"), anthropic: () => providerError(500, "unused") });
    const session = JSON.parse(first.metadata).session as string;
    const recorded: RecordedRequest[] = [];
    server.use(...providerHandlers({ openai: () => openaiText("two"), anthropic: () => providerError(500, "unused") }, recorded));
    const agent = await agentFor(session, env.GatewayThinkAgent);
    const { submissionId } = await agent.continueRun({ installationToken: CANARY_TOKEN });
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    expect(submissionId).not.toBe(first.submissionId);
    expect(recorded.map((request) => JSON.parse(request.headers["cf-aig-metadata"]!))).toEqual([
      { ...JSON.parse(first.metadata), submission: submissionId }
    ]);
  });

  it("ends the run in a recorded error when both providers fail", async () => {
    const { status, lines } = await runTurn({
      openai: () => providerError(500, "primary is down"),
      anthropic: () => providerError(401, "fallback key rejected")
    });
    expect(status.status).toBe("error");
    expect(status.error).toMatch(/openai\.responses:gpt-5\.5-test failed: .+; anthropic\.messages:claude-test failed: Unauthorized/);
    expect(status.completedAt).toBeGreaterThan(0);
    expect(lines.some((line) => line.includes('"event":"turn:error"'))).toBe(true);
  });

  it("never sends the installation token to a provider or a log line", async () => {
    const { recorded, lines, messages } = await runTurn({
      openai: () => providerError(500, `echoing ${CANARY_TOKEN} back`),
      anthropic: () => anthropicText("done")
    });
    expect(recorded.length).toBeGreaterThan(0);
    for (const request of recorded) {
      expect(request.body).not.toContain(CANARY_TOKEN);
      expect(JSON.stringify(request.headers)).not.toContain(CANARY_TOKEN);
    }
    expect(lines.join("\n")).toContain("model:fallback");
    expect(lines.join("\n")).not.toContain(CANARY_TOKEN);
    expect(JSON.stringify(messages)).not.toContain(CANARY_TOKEN);
  });
});
