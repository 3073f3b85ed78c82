/**
 * A repository's registries as the preparation hands them to the run
 * (src/steps/prepare.ts): the container's npmrc names each usable scope's
 * registry with no credential in it, and the workspace block the model's
 * first request carries lists the usable registry and says why each other
 * entry is not usable (a secret the operator did not give, a repository
 * REGISTRY_REPOS does not give). Real Think turns, the model played by MSW,
 * a recording container; the operator's REGISTRY_SECRETS is the test
 * Worker's (test/vitest.config.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { WorkspaceFacts } from "../src/steps/prepare";
import { sessionName } from "../src/shared/session-name";
import { agentFor, captureConsole, uniqueRepo, waitForStatus } from "./helpers";
import { containerFor } from "./support/containers";
import { FakeGitHub, serveGitHub } from "./support/github";
import { openaiText, providerError, providerHandlers, type RecordedRequest } from "./support/providers";
import { GatewayThinkAgent } from "./worker";

const github = new FakeGitHub();
const server = serveGitHub(github);

const NUMBER = 5;
const TOKEN = "ghs_registriesPrepareTOKEN0000000000";
/** The Worker secret's value (test/vitest.config.ts). */
const REGISTRY_TOKEN = "npm_privsrcTestTOKEN000000000000";
const CONFIG = [
  "version: 1",
  "registries:",
  '  - { kind: npm, host: npm.privsrc.example, path: /npm/, scope: "@privsrc", secret: PRIVSRC_NPM_TOKEN }',
  '  - { kind: npm, host: npm.other.example, scope: "@other", secret: UNGIVEN_TOKEN }',
  "  - { kind: git, repositories: [privsrc/shared] }"
].join("\n");

/** The JSON of the workspace block in the model's first request. */
function factsIn(body: string): WorkspaceFacts {
  const open = body.indexOf("<agent-think-workspace>\\n{");
  const text = JSON.parse(`"${body.slice(open, body.indexOf("</agent-think-workspace>", open))}"`) as string;
  return JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as WorkspaceFacts;
}

describe("a repository's registries, prepared", () => {
  it("writes the container's npmrc with the usable scope and no credential, and tells the model what is usable and why the rest is not", async () => {
    const repo = uniqueRepo("privsrc");
    const session = sessionName(repo, NUMBER);
    github.addFile(repo, ".github/agent-think.yml", CONFIG);
    const { container } = await containerFor(session);
    const recorded: RecordedRequest[] = [];
    server.use(...providerHandlers({ openai: () => openaiText("done"), anthropic: () => providerError(500, "not the fallback") }, recorded));
    GatewayThinkAgent.withGitHub.add(session);
    const agent = await agentFor(session, env.GatewayThinkAgent);
    const { result } = await captureConsole(async () => {
      const { submissionId } = await agent.startRun({ session, repo, issueNumber: NUMBER, instruction: "reproduce this issue", installationToken: TOKEN, commentId: 51 });
      return waitForStatus(agent, submissionId);
    });
    expect(result.status).toBe("completed");

    const npmrc = container.runs.filter((run) => run.script.includes("# agent-think prepare: registries"));
    expect(npmrc).toHaveLength(1);
    // The wrapper quotes the command (src/run/command-report.ts): the line and the file it goes to are in it as written.
    expect(npmrc[0]!.script).toContain("@privsrc:registry=https://npm.privsrc.example/npm/");
    expect(npmrc[0]!.script).toContain('> "$HOME/.npmrc"');
    expect(npmrc[0]!.script).not.toContain("npm.other.example");
    // No registry credential went into the container, by any command or stdin.
    for (const run of container.runs) expect(`${run.script}${run.stdin ?? ""}`).not.toContain(REGISTRY_TOKEN);

    expect(factsIn(recorded[0]!.body).registries).toEqual({
      usable: [{ host: "npm.privsrc.example", path: "/npm/", scope: "@privsrc" }],
      refused: [
        `registries: npm.other.example names the secret UNGIVEN_TOKEN, which the operator's REGISTRY_SECRETS does not give ${repo} (ask for ${repo}:UNGIVEN_TOKEN there)`,
        `registries: ${repo} may not read privsrc/shared: the operator's REGISTRY_REPOS does not give it (ask for ${repo}:privsrc/shared there)`
      ]
    });
    expect(recorded[0]!.body).not.toContain(REGISTRY_TOKEN);
  });
});
