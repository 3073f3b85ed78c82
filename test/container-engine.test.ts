/**
 * Local dev with CONTAINERS_ENABLED=1 but no container engine: what a plain
 * `wrangler dev` gives (the checked-in dev.enable_containers is false, so
 * workerd gives the Sandbox no `ctx.container`). A Sandbox here is made to
 * look exactly so: its state without a container. Real Think turns on the
 * scripted model, GitHub as MSW plays it, the recording container and the
 * real WarmPool behind the WorkspaceAgent:
 * - in local dev the run goes on in the worker shell as under `npm start`:
 *   no clone, no claim, every container command answered with the cause,
 *   said once in the log, and the health line names it with the fix;
 * - as a deploy (nothing asks for the engine) the same Sandbox fails the
 *   clone, and the run's status and comment say why, not only which step.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { workerHealth } from "../src/health/worker-health";
import { ENGINE_PROBE_SANDBOX, NO_CONTAINER_ENGINE } from "../src/pool/engine";
import { LOG_PREFIX } from "../src/run/log";
import { sessionName } from "../src/shared/session-name";
import { sandboxStub, type Sandbox } from "../src/sandbox";
import type { HealthReport } from "../src/shared/health";
import type { WorkspaceAgent } from "../src/workspace-agent";
import { agentFor, captureConsole, toolParts, uniqueRepo, waitForStatus, waitForThread } from "./helpers";
import { FakeContainer } from "./pool/fakes";
import { installContainer } from "./pool/seams";
import { containerFor } from "./support/containers";
import { FakeGitHub, serveGitHub } from "./support/github";

const github = new FakeGitHub();
serveGitHub(github);

const TOKEN = "ghs_containerEngineTOKEN00000000000000";

type SandboxSeam = { containerContext: () => DurableObjectState & { container?: Container } };
type WorkspaceSeams = {
  containerProbe: (() => Promise<boolean>) | null;
  containersEnabled: () => boolean;
  containerRunner: unknown;
  pool: () => unknown;
};

/** A Sandbox as wrangler dev with containers off starts it: its state has no container. */
async function sandboxWithoutContainer(name: string = crypto.randomUUID()) {
  const stub = sandboxStub(env, name);
  await runInDurableObject(stub, (instance: Sandbox, state) => {
    (instance as unknown as SandboxSeam).containerContext = () => ({ storage: state.storage, id: state.id }) as unknown as DurableObjectState;
  });
  return { name, stub };
}

const events = (lines: string[], session: string) =>
  lines
    .filter((line) => line.startsWith(LOG_PREFIX))
    .map((line) => JSON.parse(line.slice(LOG_PREFIX.length)) as Record<string, unknown> & { event: string })
    .filter((event) => event.session === session);

/**
 * A run on `repo` to its end. `setup` gets the issue's WorkspaceAgent, with
 * the recording container and a pool of its own unless `real`: then it has
 * its own container runner, the real backend.
 */
async function run(repo: string, instruction: string, setup: (workspace: DurableObjectStub<WorkspaceAgent>) => Promise<void>, real = false) {
  const session = sessionName(repo, 7);
  const { container, pool, fleet } = real ? { container: undefined, pool: undefined, fleet: undefined } : await containerFor(session);
  await setup((await getAgentByName(env.WorkspaceAgent, session)) as unknown as DurableObjectStub<WorkspaceAgent>);
  const agent = await agentFor(session, env.ReportingThinkAgent);
  const { result: status, lines } = await captureConsole(async () => {
    const { submissionId } = await agent.startRun({ session, repo, issueNumber: 7, instruction, installationToken: TOKEN, commentId: 99, requestedBy: { login: "octocat" } });
    return await waitForStatus(agent, submissionId);
  });
  return { session, status, lines, container, pool, fleet, agent, closing: await github.closingComment(repo, 7), tools: toolParts(await agent.transcript()) };
}

describe("local dev whose Sandbox has no container", () => {
  it("runs in the worker shell as npm start does: no clone, no claim, the cause said once", async () => {
    const { name: probe } = await sandboxWithoutContainer();
    const repo = uniqueRepo();
    const { session, status, lines, container, pool, closing, tools } = await run(
      repo,
      "reproduce this\nTEST: container echo in-container\nTEST: run echo in-shell\nTEST: result not-reproduced Scripted.",
      (workspace) =>
        runInDurableObject(workspace, (instance) => {
          // What LOCAL_DEV=1 with CONTAINERS_ENABLED=1 gives (pool/engine.ts asksForEngine), asking this Sandbox.
          // The stub is made when asked: a stub from the test's own context cannot be called from the agent's.
          (instance as unknown as WorkspaceSeams).containerProbe = () => sandboxStub(env, probe).hasContainer();
        })
    );
    expect(status.status).toBe("completed");
    // Nothing reached a container and none was claimed.
    expect(container!.runs).toEqual([]);
    expect((await pool!.stats()).assigned).toBe(0);
    const bash = tools.filter((part) => part.type === "tool-bash");
    expect(bash[0]!.output).toEqual({ backend: "container", error: NO_CONTAINER_ENGINE });
    expect(bash[1]!.output).toMatchObject({ backend: "shell", exitCode: 0, stdout: { text: "in-shell\n" } });
    const logged = events(lines, session);
    expect(logged.filter((event) => event.event === "workspace:no-container-engine")).toEqual([
      expect.objectContaining({ error: NO_CONTAINER_ENGINE, fix: expect.stringContaining("wrangler dev --enable-containers=true") })
    ]);
    expect(logged.filter((event) => event.event === "prepare:no-container")).toEqual([expect.objectContaining({ reason: NO_CONTAINER_ENGINE })]);
    // The run ends with its result, not a setup failure.
    expect(closing).not.toContain("could not prepare the repository");
    expect(closing).toContain("Scripted.");
  });

  it("as a deploy (nothing asks) fails the clone on that Sandbox, and the status and comment say why", async () => {
    const { name: sandboxId } = await sandboxWithoutContainer();
    const repo = uniqueRepo();
    const { session, status, tools, closing } = await run(
      repo,
      "reproduce this\nTEST: result reproduced Never.",
      (workspace) =>
        runInDurableObject(workspace, (instance) => {
          const seams = instance as unknown as WorkspaceSeams;
          // Outside LOCAL_DEV nothing is asked (asksForEngine), and the real backend dials the claimed Sandbox.
          seams.containerProbe = null;
          seams.containersEnabled = () => true;
          seams.pool = () => ({ claim: async () => ({ sandboxId, reused: false }), release: async () => ({ released: true, sandboxId }) });
        }),
      true
    );
    expect(status.status).toBe("error");
    expect(tools).toEqual([]);
    const cause = "container backend unavailable: the Sandbox Durable Object has no container";
    expect(closing).toMatch(new RegExp(`⚠️ \\*\\*agent-think could not prepare the repository: git clone https://[^ /]+/${repo}\\.git`));
    expect(closing).toContain("could not run.**");
    expect(closing).toContain(cause);
    expect(closing).toContain("wrangler dev: it runs with containers off unless given --enable-containers=true");
    expect(closing).toContain("The command never ran: its backend answered the error above");
    const thread = await waitForThread(session);
    expect(thread.lastError).toMatch(new RegExp(`^setup failed: \`git clone https://[^ /]+/${repo}\\.git\` could not run: ${cause}`));
  });
});

describe("the health report's containers line", () => {
  const localDev = { ...env, CONTAINERS_ENABLED: "1", LOCAL_DEV: "1" } as Env;
  const containers = (report: HealthReport) => report.checks.find((check) => check.id === "containers")!;

  it("in local dev names the missing engine and the fix when the Sandbox has no container", async () => {
    await sandboxWithoutContainer(ENGINE_PROBE_SANDBOX);
    const line = containers(await workerHealth(localDev));
    expect(line.status).toBe("warn");
    expect(line.detail).toMatch(/^no container engine: CONTAINERS_ENABLED is "1", but this wrangler dev runs the Sandbox without a container/);
    expect(line.fix).toContain("npm start");
  });

  it("reads the warm pool where the Sandbox has a container, and in a deploy, which is never asked", async () => {
    await installContainer(sandboxStub(env, ENGINE_PROBE_SANDBOX), new FakeContainer());
    expect(containers(await workerHealth(localDev)).detail).toMatch(/warm of 1/);
    await sandboxWithoutContainer(ENGINE_PROBE_SANDBOX);
    expect(containers(await workerHealth({ ...localDev, LOCAL_DEV: "" } as Env)).detail).toMatch(/warm of 1/);
  });
});
