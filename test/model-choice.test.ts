/**
 * A model per repository, through real Think turns: `model:` in the
 * repository's `.github/agent-think.yml` (GitHub as MSW plays it) picks a
 * model MODELS_ALLOWED allows (these sessions allow gpt-5.4-test and
 * claude-opus-test beyond the deployment's gpt-5.5-test and claude-test),
 * and its steps go to that model's provider through the gateway
 * (src/model/run-models.ts, allowed-models.ts); the deployment's model of
 * the other provider is its fallback. A model not allowed ends the run
 * before any provider is asked, with the setup-failed comment naming the
 * field and every allowed model. Providers are MSW handlers.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { commandCenter } from "../src/command-center";
import { sessionName } from "../src/shared/session-name";
import { agentFor, assistantText, captureConsole, uniqueRepo, waitForStatus, waitForThread } from "./helpers";
import { FakeGitHub, serveGitHub } from "./support/github";
import { ANTHROPIC_MESSAGES_URL, anthropicText, OPENAI_RESPONSES_URL, openaiText, providerError, providerHandlers, type RecordedRequest } from "./support/providers";
import { GatewayThinkAgent } from "./worker";

const github = new FakeGitHub();
const server = serveGitHub(github);

const TOKEN = "ghs_modelChoiceRunTOKEN0000000000000";
const NUMBER = 30;
/** What the operator allows beyond the deployment's gpt-5.5-test and claude-test (TEST_GATEWAY_ENV). */
const ALLOWED = "gpt-5.4-test,claude-opus-test";

/** A run on a new repository whose config is `config` (none when undefined), to its end, with what each provider was asked. */
async function run(config: string | undefined, answer: Parameters<typeof providerHandlers>[0]) {
  const repo = uniqueRepo();
  if (config !== undefined) github.addFile(repo, ".github/agent-think.yml", config);
  const recorded: RecordedRequest[] = [];
  server.use(...providerHandlers(answer, recorded));
  const session = sessionName(repo, NUMBER);
  GatewayThinkAgent.withGitHub.add(session);
  GatewayThinkAgent.modelEnvFor.set(session, { MODELS_ALLOWED: ALLOWED });
  const agent = await agentFor(session, env.GatewayThinkAgent);
  const { result, lines } = await captureConsole(async () => {
    const { submissionId } = await agent.startRun({
      session,
      repo,
      issueNumber: NUMBER,
      instruction: "reproduce this issue",
      installationToken: TOKEN,
      commentId: 3030,
      requestedBy: { login: "octocat" }
    });
    return { submissionId, status: await waitForStatus(agent, submissionId) };
  });
  const asked = recorded.map((request) => ({ url: request.url, model: JSON.parse(request.body).model as string }));
  return { ...result, repo, session, lines, asked, messages: await agent.transcript() };
}

const unused = () => providerError(500, "must not be asked");

describe("a model per repository", () => {
  it("serves the steps of a repository that picked an allowed Claude model by Anthropic, with that model id", async () => {
    const { status, asked, messages } = await run("version: 1\nmodel: claude-opus-test\n", { openai: unused, anthropic: () => anthropicText("opus answered") });
    expect(status.status).toBe("completed");
    expect(assistantText(messages)).toBe("opus answered");
    expect(asked).toEqual([{ url: ANTHROPIC_MESSAGES_URL, model: "claude-opus-test" }]);
  });

  it("falls back from a picked Anthropic model to the deployment's OpenAI model", async () => {
    const { status, asked, lines } = await run("version: 1\nmodel: claude-opus-test\n", { openai: () => openaiText("gpt answered"), anthropic: () => providerError(529, "overloaded") });
    expect(status.status).toBe("completed");
    expect(asked).toEqual([
      { url: ANTHROPIC_MESSAGES_URL, model: "claude-opus-test" },
      { url: OPENAI_RESPONSES_URL, model: "gpt-5.5-test" }
    ]);
    expect(lines.some((line) => line.includes('"event":"model:fallback"') && line.includes("claude-opus-test"))).toBe(true);
  });

  it("serves an allowed OpenAI model by OpenAI, with the deployment's Anthropic model behind it", async () => {
    const { status, asked } = await run("version: 1\nmodel: gpt-5.4-test\n", { openai: () => providerError(500, "down"), anthropic: () => anthropicText("fallback") });
    expect(status.status).toBe("completed");
    expect(asked).toEqual([
      { url: OPENAI_RESPONSES_URL, model: "gpt-5.4-test" },
      { url: ANTHROPIC_MESSAGES_URL, model: "claude-test" }
    ]);
  });

  it("uses the deployment's model for a repository without model:", async () => {
    const { status, asked } = await run("version: 1\n", { openai: () => openaiText("default"), anthropic: unused });
    expect(status.status).toBe("completed");
    expect(asked).toEqual([{ url: OPENAI_RESPONSES_URL, model: "gpt-5.5-test" }]);
  });

  it("ends the run before any provider is asked when the model is not allowed, with the setup-failed comment naming model: and the allowed ones", async () => {
    const { status, asked, repo } = await run("version: 1\nmodel: gpt-9-unlisted\n", { openai: unused, anthropic: unused });
    expect(status.status).toBe("error");
    expect(asked).toEqual([]);
    const closing = await github.closingComment(repo, NUMBER);
    expect(closing).toContain("could not prepare the repository: .github/agent-think.yml is invalid (1 problem).");
    expect(closing).toContain("The model did not start.");
    // Refused when the config was read, before the clone: no progress comment was ever posted, only the one closing comment.
    expect(github.comments(repo, NUMBER)).toHaveLength(1);
    expect(closing).toContain(
      '- `model: "gpt-9-unlisted" is not allowed here; the allowed models are gpt-5.5-test, claude-test, gpt-5.4-test, claude-opus-test (the operator\'s MODELS_ALLOWED, docs/model-setup.md)`'
    );
  });

  // Waits on the turn-ended event and the footer carrying the served models: src/report/run-reports.ts, closing-text.ts and src/steps/run-closing.ts.
  it("records the model that served the steps in the command center's run record", async () => {
    const { status, session, submissionId, repo } = await run("version: 1\nmodel: claude-opus-test\n", { openai: unused, anthropic: () => anthropicText("opus answered") });
    expect(status.status).toBe("completed");
    await waitForThread(session);
    const detail = await (await commandCenter(env)).threadDetail(session);
    // The recorded answer names the model the Anthropic stand-in says it is (providers.ts: claude-test).
    expect(detail?.runs.find((entry) => entry.submissionId === submissionId)?.models).toEqual(["claude-test"]);
    // The closing comment's footer names it too.
    expect(await github.closingComment(repo, NUMBER)).toMatch(/<sub>agent-think · .* · claude-test · \[thread\]/);
  });
});
