/**
 * The production model chain driven by real Think turns: OpenAI's Responses
 * API through AI Gateway first, Anthropic through the same gateway when the
 * primary request fails, and a recorded error when both fail. Providers are
 * MSW handlers; nothing reaches the network.
 */
import { env } from "cloudflare:workers";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sessionName } from "../src/run/session-name";
import { agentFor, assistantText, captureConsole, uniqueRepo, waitForStatus } from "./helpers";
import {
  anthropicText,
  openaiText,
  providerError,
  providerHandlers,
  type RecordedRequest
} from "./support/providers";

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const CANARY_TOKEN = "ghs_CANARYtokenMODELchain0000000000";

async function runTurn(answer: Parameters<typeof providerHandlers>[0]) {
  const recorded: RecordedRequest[] = [];
  server.use(...providerHandlers(answer, recorded));
  const repo = uniqueRepo();
  const session = sessionName(repo, 12);
  const agent = await agentFor(session, env.GatewayThinkAgent);
  const { result: status, lines } = await captureConsole(async () => {
    const { submissionId } = await agent.startRun({
      session,
      repo,
      issueNumber: 12,
      instruction: "reproduce this issue",
      installationToken: CANARY_TOKEN,
      commentId: 31337
    });
    return waitForStatus(agent, submissionId);
  });
  return { status, lines, recorded, messages: await agent.transcript() };
}

describe("model chain", () => {
  it("answers with the OpenAI Responses API through the gateway, store: false", async () => {
    const { status, recorded, messages } = await runTurn({
      openai: () => openaiText("primary answered"),
      anthropic: () => providerError(500, "fallback must not be called")
    });
    expect(status.status).toBe("completed");
    expect(assistantText(messages)).toBe("primary answered");
    expect(recorded).toHaveLength(1);
    const [request] = recorded;
    expect(request!.headers["cf-aig-authorization"]).toBe("Bearer aig-test-token-0000");
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({ model: "gpt-5.5-test", store: false, stream: true, reasoning: { effort: "high" } });
  });

  it("falls back to Anthropic when the primary request fails", async () => {
    const { status, recorded, messages, lines } = await runTurn({
      openai: () => providerError(500, "primary is down"),
      anthropic: () => anthropicText("fallback answered")
    });
    expect(status.status).toBe("completed");
    expect(assistantText(messages)).toBe("fallback answered");
    expect(recorded.map((request) => new URL(request.url).pathname.split("/").slice(-2).join("/"))).toEqual([
      "openai/responses",
      "v1/messages"
    ]);
    expect(JSON.parse(recorded[1]!.body)).toMatchObject({ model: "claude-test", stream: true });
    expect(lines.some((line) => line.includes('"event":"model:fallback"'))).toBe(true);
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
