/**
 * One GitHub host, everywhere: a whole turn on agents configured as a deploy
 * for a GitHub Enterprise Server is (GITHUB_API_URL =
 * https://ghe.example.com/api/v3; EnterpriseThinkAgent and
 * EnterpriseWorkspaceAgent in test/worker.ts), with a container command.
 * Nothing it sends or writes names github.com: not the envelope or the
 * transcript, not the scripts the container runs (its identity is
 * ghe.example.com's noreply domain), not the env the
 * container is launched with, not what it posts on the issue (which MSW
 * answers as that server), not its log lines.
 *
 * No container engine runs here: the recording container shell stands in
 * for the container's commands, and a fake container behind a real Sandbox
 * records what the WorkspaceAgent's own backend launches (test/pool/fakes.ts).
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { GitHubSpec, type JudgedRequest } from "./support/github-spec";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ContainerBackend, ContainerBackendOptions } from "@cloudflare/computer/backends/container";
import { SANDBOX_GH_TOKEN, warmLaunchSpec } from "../src/pool/launch-spec";
import { gitIdentityScript, identityMarker } from "../src/run/git-identity";
import { parseEnvelope } from "../src/run/envelope";
import { sessionName } from "../src/shared/session-name";
import { githubHost } from "../src/shared/github-urls";
import { sandboxStub } from "../src/sandbox";
import type { CommandRunner, WorkspaceAgent } from "../src/workspace-agent";
import type { ThinkAgent } from "../src/agent";
import { agentFor, captureConsole, uniqueRepo, waitForStatus, waitForThread, type TestAgent } from "./helpers";
import { FakeContainer, RecordingFleet } from "./pool/fakes";
import { installContainer, poolWithFleet } from "./pool/seams";
import { RecordingContainer } from "./support/recording-container";
import { TEST_ENTERPRISE_API_URL } from "./worker";

const ENTERPRISE = githubHost(TEST_ENTERPRISE_API_URL);
const TOKEN = "ghs_ENTERPRISEtestTOKEN0000000000000";
const COMMENT_ID = 515151;
/** The App's bot on the Enterprise server: its own user id there. */
const ENTERPRISE_BOT = { login: "agent-think[bot]", id: 17 };

type EnterpriseBindings = {
  EnterpriseThinkAgent: DurableObjectNamespace<ThinkAgent>;
  EnterpriseWorkspaceAgent: DurableObjectNamespace<WorkspaceAgent>;
};
const bindings = env as unknown as EnterpriseBindings;

type WorkspaceSeams = {
  containersEnabled: () => boolean;
  poolName: string;
  containerRunner: CommandRunner;
  containerBackendOverrides: Partial<ContainerBackendOptions>;
  containerBackend: () => ContainerBackend | undefined;
};

/**
 * The Enterprise server as MSW plays it: every request recorded and judged
 * by GHES 3.19's REST description (a refused one fails the test), 🚀 and
 * comments answered as GitHub would.
 */
const requests: Array<{ method: string; url: string; body: string }> = [];
const spec = new GitHubSpec(TEST_ENTERPRISE_API_URL);
let nextId = 9000;
const record = async (request: JudgedRequest & { text(): Promise<string> }) => {
  const body = await request.text();
  requests.push({ method: request.method, url: request.url, body });
  return body;
};
const handlers = () => [
  http.post(`${TEST_ENTERPRISE_API_URL}/repos/:owner/:repo/issues/comments/:id/reactions`, async ({ request }) => {
    const refused = await spec.judge(request);
    if (refused) return refused;
    const body = JSON.parse(await record(request)) as { content?: string };
    return HttpResponse.json({ id: nextId++, content: body.content }, { status: 201 });
  }),
  http.post(`${TEST_ENTERPRISE_API_URL}/repos/:owner/:repo/issues/:number/comments`, async ({ request, params }) => {
    const refused = await spec.judge(request);
    if (refused) return refused;
    const body = JSON.parse(await record(request)) as { body?: string };
    const id = nextId++;
    const html_url = `${ENTERPRISE.web}/${params.owner}/${params.repo}/issues/${params.number}#issuecomment-${id}`;
    return HttpResponse.json({ id, body: body.body, html_url, created_at: new Date().toISOString() }, { status: 201 });
  }),
  // The progress comment's edits.
  http.patch(`${TEST_ENTERPRISE_API_URL}/repos/:owner/:repo/issues/comments/:id`, async ({ request, params }) => {
    const refused = await spec.judge(request);
    if (refused) return refused;
    const body = JSON.parse(await record(request)) as { body?: string };
    const html_url = `${ENTERPRISE.web}/${params.owner}/${params.repo}/issues/7#issuecomment-${params.id}`;
    return HttpResponse.json({ id: Number(params.id), body: body.body, html_url, created_at: new Date().toISOString() });
  }),
  http.get(`${TEST_ENTERPRISE_API_URL}/repos/:owner/:repo/issues/:number/comments`, async ({ request }) => {
    const refused = await spec.judge(request);
    if (refused) return refused;
    await record(request);
    return HttpResponse.json([]);
  }),
  // What a run reads before its model starts (src/steps/prepare.ts): the repository has no agent-think files, and no open pull request.
  http.get(`${TEST_ENTERPRISE_API_URL}/repos/:owner/:repo/contents/*`, async ({ request }) => {
    const refused = await spec.judge(request);
    if (refused) return refused;
    await record(request);
    return HttpResponse.json({ message: "Not Found" }, { status: 404 });
  }),
  http.get(`${TEST_ENTERPRISE_API_URL}/repos/:owner/:repo/pulls`, async ({ request }) => {
    const refused = await spec.judge(request);
    if (refused) return refused;
    await record(request);
    return HttpResponse.json([]);
  }),
  // Whether the run's commits must be signed (src/steps/turn-workspace.ts): the default branch, and no rule on either branch.
  http.get(`${TEST_ENTERPRISE_API_URL}/repos/:owner/:repo`, async ({ request, params }) => {
    const refused = await spec.judge(request);
    if (refused) return refused;
    await record(request);
    return HttpResponse.json({ name: params.repo, full_name: `${params.owner}/${params.repo}`, default_branch: "main", private: true });
  }),
  http.get(`${TEST_ENTERPRISE_API_URL}/repos/:owner/:repo/rules/branches/*`, async ({ request }) => {
    const refused = await spec.judge(request);
    if (refused) return refused;
    await record(request);
    return HttpResponse.json([]);
  })
];
// A tripwire: a request to any other host (api.github.com) fails the run's delivery and this test.
const server = setupServer(...handlers());
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());
afterEach(() => {
  server.resetHandlers(...handlers());
  expect(spec.refusals).toEqual([]);
});

/** The issue's Enterprise WorkspaceAgent with a container path: a primed pool of its own and `container` as its shell. */
async function enterpriseWorkspace(session: string, container: RecordingContainer) {
  const pool = await poolWithFleet(new RecordingFleet());
  await pool.prime();
  const poolName = (await runInDurableObject(pool, (_instance, state) => state.id.name)) ?? "";
  const workspace = (await getAgentByName(bindings.EnterpriseWorkspaceAgent, session)) as unknown as DurableObjectStub<WorkspaceAgent>;
  await runInDurableObject(workspace, (instance) => {
    const seams = instance as unknown as WorkspaceSeams;
    seams.containersEnabled = () => true;
    seams.poolName = poolName;
    seams.containerRunner = container;
  });
  return workspace;
}

describe("a deploy for a GitHub Enterprise Server", () => {
  it("runs a whole turn with a container command and sends or writes no github.com anywhere", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 7);
    const container = new RecordingContainer();
    await enterpriseWorkspace(session, container);
    const agent = (await agentFor(session, bindings.EnterpriseThinkAgent)) as unknown as TestAgent & DurableObjectStub;

    const { result, lines } = await captureConsole(async () => {
      const { submissionId } = await agent.startRun({
        session,
        repo,
        issueNumber: 7,
        issueTitle: "Widgets wobble",
        instruction: "TEST: container echo cloned\nTEST: result reproduced The widgets wobble.",
        installationToken: TOKEN,
        commentId: COMMENT_ID,
        // The App's bot as the Enterprise server names it (the webhook app asks that server, not github.com).
        bot: ENTERPRISE_BOT
      });
      const status = await waitForStatus(agent, submissionId);
      // The closing comment settles after the turn; the command center shows it posted.
      const thread = await waitForThread(session, (summary) => summary.issueMessages?.closing !== undefined, { timeoutMs: 15_000 });
      return { status, thread };
    });
    expect(result.status.status).toBe("completed");

    // The envelope: the issue and the comment on the Enterprise host, and that host named for the skills.
    const transcript = await agent.transcript();
    const firstText = transcript[0]!.parts.find((part) => part.type === "text")?.text;
    expect(parseEnvelope(String(firstText))).toMatchObject({
      repository: repo,
      issue: { number: 7, url: `https://ghe.example.com/${repo}/issues/7` },
      github: { host: "ghe.example.com", web: "https://ghe.example.com" },
      triggeringComment: { id: COMMENT_ID, url: `https://ghe.example.com/${repo}/issues/7#issuecomment-${COMMENT_ID}` }
    });
    expect(JSON.stringify(transcript)).not.toContain("github.com");

    // The container: git's identity on ghe.example.com (GHES noreply domain), then the command ran; no token went in.
    expect(container.commands()).toEqual(["prepare: clone", "cloned"]);
    expect(container.stdins()).toEqual([]);
    const [login] = container.identities();
    expect(login).toBe(gitIdentityScript(ENTERPRISE_BOT, await identityMarker(ENTERPRISE_BOT, ENTERPRISE), ENTERPRISE));
    expect(login).toContain("@users.noreply.ghe.example.com");
    expect(login).not.toContain("gh api");
    expect(JSON.stringify(container.runs)).not.toContain("github.com");

    // What it posted on the issue: 🚀, the progress comment and the closing comment, to the Enterprise API only.
    const posts = requests.filter((request) => request.url.includes(`/repos/${repo}/`) && request.method !== "GET");
    expect(posts.filter((post) => post.method === "POST").map((post) => post.url).sort()).toEqual([
      `${TEST_ENTERPRISE_API_URL}/repos/${repo}/issues/7/comments`,
      `${TEST_ENTERPRISE_API_URL}/repos/${repo}/issues/7/comments`,
      `${TEST_ENTERPRISE_API_URL}/repos/${repo}/issues/comments/${COMMENT_ID}/reactions`
    ]);
    expect(JSON.stringify(posts)).not.toContain("github.com");
    // Its repository's files and open pull requests were asked of the Enterprise API too.
    const reads = requests.filter((request) => request.url.includes(`/repos/${repo}/`) && request.method === "GET" && !request.url.includes("/comments"));
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) expect(read.url.startsWith(`${TEST_ENTERPRISE_API_URL}/repos/${repo}/`)).toBe(true);
    // Whether its commits must be signed was asked there too, for its branch and the default branch: no rule, so it pushes with git.
    expect(reads.filter((read) => read.url.includes("/rules/branches/")).map((read) => new URL(read.url).pathname.split("/rules/branches/")[1])).toEqual(["agent-think%2Fissue-7", "main"]);
    expect(result.thread.issueMessages).toMatchObject({ rocket: { state: "sent" }, closing: { state: "sent", url: expect.stringMatching(/^https:\/\/ghe\.example\.com\//) } });
    expect(JSON.stringify(result.thread)).not.toContain("github.com");

    // And nothing it logged.
    expect(lines.filter((line) => line.includes(session)).length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes("github.com"))).toEqual([]);
  });

  it("launches its container with gh pointed at ghe.example.com: the spec a Sandbox of that deploy warms with", async () => {
    // The WorkspaceAgent's own ContainerBackend, connecting to the turn's Sandbox, whose container is a recording fake.
    const fleet = new RecordingFleet();
    const pool = await poolWithFleet(fleet);
    await pool.prime();
    const [warm] = fleet.warmed();
    const fake = new FakeContainer();
    await installContainer(sandboxStub(env, warm!), fake);
    const poolName = (await runInDurableObject(pool, (_instance, state) => state.id.name)) ?? "";
    const session = sessionName(uniqueRepo(), 8);
    const workspace = (await getAgentByName(bindings.EnterpriseWorkspaceAgent, session)) as unknown as DurableObjectStub<WorkspaceAgent>;
    await runInDurableObject(workspace, (instance) => {
      const seams = instance as unknown as WorkspaceSeams;
      seams.containersEnabled = () => true;
      seams.poolName = poolName;
      seams.containerBackendOverrides = { connectTimeoutMs: 5_000, restartAttempts: 0, heartbeatIntervalMs: 0 };
    });
    await workspace.beginTurn({ session, submissionId: "sub-launch" });
    const connected = await runInDurableObject(workspace, async (instance) => {
      const backend = (instance as unknown as WorkspaceSeams).containerBackend();
      if (!backend) return "no container backend";
      try {
        await (await backend.connect()).close();
        return "connected";
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    });
    // The fake daemon refuses /connect: past start, which is what this looks at.
    expect(connected).toMatch(/stage=connect/);

    expect(fake.startOptions).toHaveLength(1);
    const launched = (fake.startOptions[0] as { env: Record<string, string> }).env;
    expect(launched).toEqual({ ...warmLaunchSpec({ GITHUB_API_URL: TEST_ENTERPRISE_API_URL }).env, RPC_CLIENT_SECRET: expect.any(String) });
    expect(launched.COMPUTER_VAR_GH_HOST).toBe("ghe.example.com");
    expect(JSON.stringify(launched)).not.toContain("github.com");
    // gh's token variables hold the fixed placeholder, which is no credential; nothing else is a token.
    expect(Object.entries(launched).filter(([key, value]) => /TOKEN/.test(key) && value !== SANDBOX_GH_TOKEN)).toEqual([]);
    expect(launched.COMPUTER_VAR_GH_ENTERPRISE_TOKEN).toBe(SANDBOX_GH_TOKEN);
  });
});
