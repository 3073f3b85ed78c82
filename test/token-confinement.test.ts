/**
 * No token out of a run, tried with real turns: a canary run token (and a
 * token-shaped string) planted in the workspace and printed by tools in
 * several ways (a shell `cat` on stdout and stderr, Think's `read`, a page
 * built with it; the container's `gh auth token` prints no token at all), and one the model writes itself (into report_result, into
 * a model error), must be found nowhere it must not be: the transcript, a
 * socket's frames, the command center, the comments GitHub (MSW) got, the
 * console, the published pages. The same against `wrangler dev`:
 * tests-e2e/token-confinement.test.ts.
 */
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { commandCenter } from "../src/command-center";
import { sessionName } from "../src/shared/session-name";
import type { OutboxEntry } from "../src/report/outbox";
import { agentFor, captureConsole, toolParts, uniqueRepo, waitForStatus, waitForThread, type TestAgent } from "./helpers";
import { containerFor } from "./support/containers";
import { FakeGitHub, serveGitHub } from "./support/github";
import { SANDBOX_GH_TOKEN } from "../src/pool/launch-spec";

const github = new FakeGitHub();
// Every test is also judged by GitHub's description: none passes on a request it would refuse.
serveGitHub(github, [], { onUnhandledRequest: "bypass" });

/** Shaped like nothing GitHub issues, so only knowing it as the run's token redacts it. */
const RUN_TOKEN = `canary-run-token-${crypto.randomUUID().slice(0, 8)}`;
/** A token the run never held, found in a file. */
const FOUND = `ghp_${"Found".repeat(7)}X`;

type ReportingAgent = TestAgent & DurableObjectStub & { notices(): Promise<OutboxEntry[]> };

/** A session whose workspace holds the canaries (as the issue's repository might), with a container path when asked. */
async function prepare(options: { container?: boolean } = {}) {
  const repo = uniqueRepo();
  const session = sessionName(repo, 9);
  const container = options.container ? await containerFor(session) : undefined;
  const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
  const workspace = (await getAgentByName(env.WorkspaceAgent, session)) as unknown as {
    exec(request: { command: string; backend: "shell"; timeoutMs: number }): Promise<unknown>;
  };
  await workspace.exec({
    command: `mkdir -p /workspace/site && printf 'run %s\\nfound %s\\n' '${RUN_TOKEN}' '${FOUND}' > /workspace/secrets.txt && cp /workspace/secrets.txt /workspace/site/index.html`,
    backend: "shell",
    timeoutMs: 10_000
  });
  const run = (instruction: string) =>
    agent.startRun({ session, repo, issueNumber: 9, instruction, installationToken: RUN_TOKEN, commentId: 9 });
  return { agent, repo, session, container, run };
}

/** A socket on the agent itself (the Worker routes only threads the command center knows), collecting every frame. */
async function watch(agent: DurableObjectStub) {
  const response = await agent.fetch("https://agent-think.test/agents/reporting-think-agent/x", { headers: { upgrade: "websocket" } });
  expect(response.status).toBe(101);
  const frames: string[] = [];
  const socket = response.webSocket!;
  socket.addEventListener("message", (event) => frames.push(String(event.data)));
  socket.accept();
  return { frames, close: () => socket.close(1000) };
}

async function outflows(session: string, repo: string, agent: ReportingAgent) {
  const thread = await waitForThread(session, (candidate) => candidate.status !== "running" && candidate.issueMessages?.closing !== undefined);
  const snapshot = await (await commandCenter(env)).snapshot({ limit: 200 });
  const repros = await env.REPROS.list({ prefix: "repros/" });
  const pages = await Promise.all(repros.objects.map(async (object) => (await env.REPROS.get(object.key))?.text()));
  return {
    transcript: JSON.stringify(await agent.transcript()),
    thread: JSON.stringify(thread),
    snapshot: JSON.stringify(snapshot.threads.filter((candidate) => candidate.session === session)),
    github: JSON.stringify(github.callsFor(repo).map((call) => call.body)),
    outbox: JSON.stringify(await agent.notices()),
    pages: pages.join("\n")
  };
}

function expectNowhere(places: Record<string, string>, secrets: readonly string[]) {
  for (const [place, text] of Object.entries(places)) {
    for (const secret of secrets) expect(text.includes(secret), `${secret} found in ${place}`).toBe(false);
  }
}

describe("a token printed by tools", () => {
  it("is redacted from every tool result, so no transcript, socket, event, comment, log or page holds it", async () => {
    const { agent, repo, session, container: path, run } = await prepare({ container: true });
    const socket = await watch(agent);
    const { result: status, lines } = await captureConsole(async () => {
      const { submissionId } = await run(
        [
          "TEST: container gh auth token",
          "TEST: run cat /workspace/secrets.txt",
          "TEST: run cat /workspace/secrets.txt >&2",
          "TEST: read /workspace/secrets.txt",
          "TEST: publish /workspace/site",
          "TEST: result reproduced The tools printed what they printed.",
          "TEST: reply done"
        ].join("\n")
      );
      return waitForStatus(agent, submissionId);
    });
    expect(status.status).toBe("completed");
    socket.close();

    // The container holds no token: its `gh auth token` prints the launch
    // env's placeholder. The shell and Think's read did print the planted
    // ones; each of those results shows the redaction.
    expect(path!.container.stdins()).toEqual([]);
    const results = toolParts(await agent.transcript()).map((part) => JSON.stringify(part.output ?? part.errorText ?? ""));
    expect(results).toHaveLength(6);
    expect(results[0]).toContain(SANDBOX_GH_TOKEN);
    for (const result of results.slice(1, 4)) expect(result).toContain("[redacted]");
    expect(results[4]).toMatch(/refused: index\.html holds a GitHub token/);
    expect(socket.frames.join("\n")).toContain("[redacted]");

    const places = { ...(await outflows(session, repo, agent)), socket: socket.frames.join("\n"), console: lines.join("\n") };
    expect(places.github).toContain("The tools printed what they printed.");
    expectNowhere(places, [RUN_TOKEN, FOUND]);
  });
});

describe("a token the model writes itself", () => {
  // `\xNN` lets the scripted model write what its instruction does not spell.
  const spelled = (token: string) => token.replace(/^(.)/, (first) => `\\x${first.charCodeAt(0).toString(16)}`);

  it("never reaches the closing comment or the command center through report_result", async () => {
    const { agent, repo, session, run } = await prepare();
    const { submissionId } = await run(`TEST: result reproduced The token is ${spelled(RUN_TOKEN)} and ${spelled(FOUND)}.\nTEST: reply done`);
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    const places = await outflows(session, repo, agent);
    expect(places.github).toContain("The token is [redacted] and [redacted].");
    const { transcript: _modelWroteIt, ...rest } = places;
    expectNowhere(rest, [RUN_TOKEN, FOUND]);
  });

  it("never reaches the issue, the command center, the status or a log line through a model error", async () => {
    const { agent, repo, session, run } = await prepare();
    const { result: status, lines } = await captureConsole(async () => {
      const { submissionId } = await run(`TEST: fail the provider echoed ${spelled(RUN_TOKEN)} and ${spelled(FOUND)}`);
      return waitForStatus(agent, submissionId);
    });
    expect(status.status).toBe("error");
    expect(status.error).toContain("[redacted]");
    const places = { ...(await outflows(session, repo, agent)), status: JSON.stringify(status), console: lines.join("\n") };
    expect(places.thread).toContain("the provider echoed [redacted]");
    expect(places.console).toContain("[redacted]");
    expectNowhere(places, [RUN_TOKEN, FOUND]);
  });
});
