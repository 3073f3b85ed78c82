/**
 * Container ownership follows the turn, through real turns: the first
 * container command of a turn claims one warm container from a real WarmPool,
 * the turn keeps it across steps and across an eviction, and every way a turn
 * ends gives it back, leaving the pool at one warm and none assigned. Git's
 * identity is set up before the turn's first container command and again
 * on a container that replaced it, and the run's token never reaches the
 * container at all (its network goes through the egress gateway).
 *
 * No container engine runs here, so two fakes stand behind the real
 * interfaces: the pool's ContainerFleet (recording warm/stop) and the
 * WorkspaceAgent's container CommandRunner (recording each script and its
 * stdin, and answering with a report like the real wrapper's).
 */
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { sessionName } from "../src/shared/session-name";
import { gitIdentityScript, identityMarker } from "../src/run/git-identity";
import { DEFAULT_BOT_LOGIN } from "../src/run/bot-identity";
import { agentFor, captureConsole, commandRunning, eventually, evict, toolParts, uniqueRepo, until, waitForStatus, waitForThread } from "./helpers";
import { containerFor } from "./support/containers";
import type { poolWithFleet } from "./pool/seams";
import type { WorkspaceAgent } from "../src/workspace-agent";

async function setup() {
  const repo = uniqueRepo();
  const session = sessionName(repo, 77);
  const { fleet, pool, container, workspace } = await containerFor(session);
  return { fleet, pool, repo, session, container, workspace, agent: await agentFor(session) };
}

async function dispatch(repo: string, instruction: string, token: string, commentId?: number) {
  return exports.AgentThink.dispatch({ repo, issueNumber: 77, instruction, installationToken: token, commentId });
}

/** The pool's stats once it is back at one warm and none assigned (the release and the rewarm run after the turn's end). */
const settledPool = (pool: Awaited<ReturnType<typeof poolWithFleet>>) =>
  eventually(async () => {
    const stats = await pool.stats();
    expect(stats).toMatchObject({ warm: 1, assigned: 0 });
    return stats;
  });

/** Until the turn's first container command has claimed a container. */
const holdingContainer = (workspace: { holding(): Promise<{ sandboxId?: string }> }) =>
  until(async () => (await workspace.holding()).sandboxId, "the turn to hold a container");

describe("container ownership follows the turn", () => {
  it("claims once on the first container command, keeps it across steps, releases it when done", async () => {
    const { fleet, pool, repo, session, container, workspace, agent } = await setup();
    const [warm] = fleet.warmed();
    const { submissionId } = await dispatch(repo, "TEST: container echo one\nTEST: run echo on-the-shell\nTEST: container echo two", "ghs_tokenONE_0000000000");
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");

    expect(container.commands()).toEqual(["prepare: clone", "one", "two"]);
    expect(container.identities()).toHaveLength(1);
    // The fresh container had no identity: its guard stopped the first command (the clone before the model), which ran again after the identity script.
    expect(container.guardStops).toEqual(["prepare: clone"]);
    // No bot in the dispatch: local dev's (test/wrangler.jsonc), login only. A named bot: test/bot-identity.test.ts.
    expect(container.runs[1]!.script).toBe(gitIdentityScript({ login: DEFAULT_BOT_LOGIN }, await identityMarker({ login: DEFAULT_BOT_LOGIN })));
    expect(container.stdins()).toEqual([]);
    const bash = toolParts(await agent.transcript()).filter((part) => part.type === "tool-bash");
    expect(bash.map((part) => part.output)).toMatchObject([
      { backend: "container", exitCode: 0, stdout: { text: "one\n" } },
      { backend: "shell", exitCode: 0, stdout: { text: "on-the-shell\n" } },
      { backend: "container", exitCode: 0, stdout: { text: "two\n" } }
    ]);
    // The warm one was handed out, its replacement warmed, and it was stopped at the end.
    expect(fleet.stopped()).toEqual([warm]);
    expect(fleet.warmed()).toHaveLength(2);
    expect(await settledPool(pool)).toEqual({ warm: 1, assigned: 0, total: 1, target: 1, retiring: 0 });
    expect(await workspace.holding()).toEqual({ submissionId: undefined, sandboxId: undefined });
    expect(session).toMatch(/-77$/);
  });

  it("releases after a turn that ends in an error", async () => {
    const { fleet, pool, repo, agent } = await setup();
    const { submissionId } = await dispatch(repo, "TEST: container echo before\nTEST: fail the model broke", "ghs_tokenERR_0000000000");
    expect((await waitForStatus(agent, submissionId)).status).toBe("error");
    expect(fleet.stopped()).toHaveLength(1);
    expect(await settledPool(pool)).toMatchObject({ warm: 1, assigned: 0 });
  });

  it("releases after a cancelled turn", async () => {
    const { fleet, pool, repo, session, agent, workspace } = await setup();
    const { submissionId } = await dispatch(repo, "TEST: container echo started\nTEST: sleep 5000\nTEST: reply late", "ghs_tokenCAN_0000000000");
    await holdingContainer(workspace);
    expect((await pool.stats()).assigned).toBe(1);
    await exports.AgentThink.resetSession({ session });
    expect((await waitForStatus(agent, submissionId)).status).toBe("aborted");
    expect(fleet.stopped()).toHaveLength(1);
    expect(await settledPool(pool)).toMatchObject({ warm: 1, assigned: 0 });
  });

  it("keeps the same container when the turn's agent is evicted mid-turn", async () => {
    const { fleet, pool, repo, session, container, workspace, agent } = await setup();
    const { submissionId } = await dispatch(
      repo,
      "TEST: container echo first\nTEST: run sleep 1 && echo slept\nTEST: container echo after-eviction",
      "ghs_tokenEVI_0000000000"
    );
    const held = await holdingContainer(workspace);
    // Past the first container command, in the shell's second: the eviction lands mid-turn, holding the container.
    await commandRunning(agent, submissionId, "sleep 1 && echo slept");
    await evict(agent);

    const fresh = await agentFor(session);
    expect((await waitForStatus(fresh, submissionId)).status).toBe("completed");
    expect(container.commands()).toEqual(["prepare: clone", "first", "after-eviction"]);
    expect(fleet.stopped()).toEqual([held]);
    expect(await settledPool(pool)).toMatchObject({ warm: 1, assigned: 0 });
  });

  it("tells the container nothing when a new dispatch brings a new token mid-turn: it holds none", async () => {
    const { repo, container, agent } = await setup();
    // The new dispatch comes while `a` runs: mid-turn, before `b`.
    container.during(/\becho a\b/, async () => void (await dispatch(repo, "TEST: reply queued", "ghs_tokenNEW_0000000000", 2)));
    const first = await dispatch(repo, "TEST: container echo a\nTEST: container echo b", "ghs_tokenOLD_0000000000", 1);
    expect((await waitForStatus(agent, first.submissionId)).status).toBe("completed");
    expect(container.identities()).toHaveLength(1);
    expect(container.guardStops).toEqual(["prepare: clone"]);
    expect(container.commands()).toEqual(["prepare: clone", "a", "b"]);
    for (const run of container.runs) expect(run.script).not.toMatch(/ghs_token(OLD|NEW)/);
    expect(container.stdins()).toEqual([]);
  });

  it("sets the identity up on a container that replaced the turn's one before its next command", async () => {
    const { repo, container, agent } = await setup();
    // A crash relaunch, a restart or a reconcile once `before` has run: same Sandbox, a new container with no identity.
    container.during(/echo before/, async () => container.replace());
    const { submissionId } = await dispatch(repo, "TEST: container echo before\nTEST: container echo after", "ghs_tokenREP_0000000000");
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    expect(container.commands()).toEqual(["prepare: clone", "before", "after"]);
    expect(container.guardStops).toEqual(["prepare: clone", "after"]);
    expect(container.identities()).toHaveLength(2);
    const bash = toolParts(await agent.transcript()).filter((part) => part.type === "tool-bash");
    expect(bash.map((part) => part.output)).toMatchObject([{ exitCode: 0 }, { exitCode: 0, stdout: { text: "after\n" } }]);
  });
});

describe("a turn whose end never reached its workspace", () => {
  it("gives its container back when the workspace is asked what it holds (as the pool asks): the ThinkAgent says the turn ended", async () => {
    const { fleet, pool, repo, session, workspace, agent } = await setup();
    const { submissionId } = await dispatch(repo, "TEST: container echo done", "ghs_tokenLOST_000000000");
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    await settledPool(pool);
    // As if endTurn had been lost: the workspace still thinks the finished turn runs, holding a container.
    const stub = workspace as unknown as DurableObjectStub<WorkspaceAgent>;
    const turn = { session, submissionId };
    await stub.beginTurn(turn);
    expect(await stub.exec({ command: "echo stale", backend: "container", timeoutMs: 10_000, turn })).toMatchObject({ exitCode: 0 });
    const stale = (await stub.holding()).sandboxId;
    expect(stale).toBeUndefined();
    expect(await settledPool(pool)).toMatchObject({ warm: 1, assigned: 0 });
    expect(fleet.stopped()).toHaveLength(2);
  });
});

describe("the installation token", () => {
  it("never appears in a process argument, a prompt, a tool result, a log line, the transcript or storage outside the run context", async () => {
    const canary = "ghs_CANARYcontainerTOKEN0123456789ab";
    const { repo, session, container, agent } = await setup();
    const { result, lines } = await captureConsole(async () => {
      const { submissionId } = await dispatch(
        repo,
        "TEST: container echo token-free\nTEST: run echo shell-too\nTEST: reply done",
        canary,
        4242
      );
      return waitForStatus(agent, submissionId);
    });
    expect(result.status).toBe("completed");

    // The container never got it: not on stdin, not in a script (its argv).
    expect(container.stdins()).toEqual([]);
    for (const run of container.runs) expect(run.script).not.toContain(canary);
    // No log line, tool result or transcript message carries it.
    expect(lines.join("\n")).not.toContain(canary);
    const transcript = JSON.stringify(await agent.transcript());
    expect(transcript).toContain("token-free");
    expect(transcript).not.toContain(canary);

    // Storage: only ThinkAgent's run context holds it, in the KV API.
    const scan = async (stub: DurableObjectStub) =>
      runInDurableObject(stub, async (_instance, state) => {
        const found: string[] = [];
        const text = (value: unknown) =>
          JSON.stringify(value, (_key, inner) => (inner instanceof ArrayBuffer ? new TextDecoder().decode(inner) : inner));
        const tables = state.storage.sql
          .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'")
          .toArray();
        for (const { name } of tables) {
          for (const row of state.storage.sql.exec(`SELECT * FROM "${name}"`)) if (text(row).includes(canary)) found.push(`sql:${name}`);
        }
        for (const [key, value] of await state.storage.list()) if (text(value).includes(canary)) found.push(`kv:${key}`);
        return found;
      });
    expect(await scan(agent)).toEqual(["kv:agent-think:run-context"]);
    expect(await scan((await getAgentByName(env.WorkspaceAgent, session)) as unknown as DurableObjectStub)).toEqual([]);
  });
});

describe("stopping", () => {
  it("cancel({ session }) stops the running turn, releases its container and starts nothing", async () => {
    const { fleet, pool, repo, session, agent, workspace } = await setup();
    const { submissionId } = await dispatch(repo, "TEST: container echo working\nTEST: sleep 5000\nTEST: reply late", "ghs_tokenSTOP_000000000");
    await holdingContainer(workspace);
    expect(await exports.AgentThink.cancel({ session })).toEqual({ session, cancelled: 1 });
    expect((await waitForStatus(agent, submissionId)).status).toBe("aborted");
    expect(await waitForThread(session)).toMatchObject({ status: "cancelled", submissionId });
    expect(fleet.stopped()).toHaveLength(1);
    expect(await settledPool(pool)).toMatchObject({ warm: 1, assigned: 0 });
    expect(await exports.AgentThink.cancel({ session })).toEqual({ session, cancelled: 0 });
  });

  it("a stop (the grammar: `please stop.` with a reason on the next line) cancels instead of starting a run", async () => {
    const { repo, session, agent } = await setup();
    const running = await dispatch(repo, "TEST: sleep 5000\nTEST: reply late", "ghs_tokenSTOP_000000000", 61);
    const queued = await dispatch(repo, "TEST: reply queued", "ghs_tokenSTOP_000000000", 62);
    await waitForStatus(agent, running.submissionId, ["running"]);
    const stop = await dispatch(repo, "  Please STOP.\nthe tests are flaky, I will look myself", "ghs_tokenSTOP_000000000", 63);
    expect(stop).toMatchObject({ session, submissionId: expect.any(String) });
    expect([running.submissionId, queued.submissionId]).toContain(stop.submissionId);
    expect((await waitForStatus(agent, running.submissionId)).status).toBe("aborted");
    expect((await waitForStatus(agent, queued.submissionId)).status).toBe("aborted");
    expect(await agent.listSubmissions()).toHaveLength(2);
    const nothing = await dispatch(repo, "stop", "ghs_tokenSTOP_000000000", 64);
    expect(nothing.submissionId).toBe("");
  });
});
