/**
 * What the command center says is what happened, after a fault: a real
 * ThinkAgent's lifecycle events go through its outbox and survive an
 * eviction before the command center acknowledged them; a run whose end
 * never reached the command center is reconciled by asking its agent before
 * the thread is called stale; a recovered turn is counted. Real Think turns
 * on the scripted model, real Durable Object storage in workerd, the real
 * command center `main`.
 */
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { ThinkAgent } from "../src/agent";
import { commandCenter, type CommandCenter, type CommandCenterAgent } from "../src/command-center";
import { sessionName } from "../src/shared/session-name";
import type { CommandCenterEvent } from "../src/shared/command-center-events";
import { agentFor, commandRunning, eventually, evict, gate, uniqueRepo, waitForStatus, waitForThread } from "./helpers";
import { containerFor } from "./support/containers";

type Seam = { commandCenter: () => Promise<CommandCenter>; pendingCenterEvents(): Promise<number> };

/** The agent reports through `filter`: what it returns stands in for the command center's answer to that event. */
async function reportThrough(session: string, filter: (event: CommandCenterEvent, real: CommandCenter) => Promise<unknown>) {
  const agent = await getAgentByName(env.ThinkAgent, session);
  await runInDurableObject(agent as unknown as DurableObjectStub<ThinkAgent>, (instance) => {
    (instance as unknown as Seam).commandCenter = async () => {
      const real = await commandCenter(env);
      return {
        ...real,
        record: (event: unknown) => filter(event as CommandCenterEvent, real),
        recordBatch: (events: unknown[]) => Promise.all(events.map((event) => filter(event as CommandCenterEvent, real)))
      } as unknown as CommandCenter;
    };
  });
  return agent as unknown as DurableObjectStub<ThinkAgent>;
}

async function dispatch(repo: string, instruction: string) {
  const { submissionId, session } = await exports.AgentThink.dispatch({ repo, issueNumber: 14, instruction, installationToken: "" });
  return { submissionId, session };
}

async function mainStub() {
  return (await getAgentByName(env.CommandCenterAgent, "main")) as unknown as DurableObjectStub<CommandCenterAgent>;
}

/**
 * Run `body` with `main`'s stale window at `ms`, then put it back. The
 * command center plans its next quiet check when an event arrives, by the
 * window it has then; the run's events may all have arrived before the
 * window changed (a busy machine), so the check the shorter window calls
 * for is planned here as the command center plans it: one window from now.
 */
async function withStaleWindow(ms: number, body: () => Promise<void>) {
  const main = await mainStub();
  const before = await runInDurableObject(main, async (instance: CommandCenterAgent) => {
    const window = instance.staleRunMs;
    instance.staleRunMs = ms;
    await instance.schedule(new Date(Date.now() + ms), "refreshState");
    return window;
  });
  try {
    await body();
  } finally {
    await runInDurableObject(main, (instance: CommandCenterAgent) => {
      instance.staleRunMs = before;
    });
  }
}

describe("crash consistency: the command center converges to what the agent knows", () => {
  it("resends the run's end after the agent is evicted before the command center acknowledged it", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 14);
    // The end is sent and never answered: in flight when the agent is killed.
    const agent = await reportThrough(session, (event, real) => (event.type === "turn-ended" ? new Promise(() => {}) : real.record(event)));
    const { submissionId } = await dispatch(repo, "TEST: run echo one\nTEST: reply done");
    expect((await waitForStatus(await agentFor(session), submissionId)).status).toBe("completed");

    expect((await waitForThread(session, (thread) => thread.toolCalls === 1)).status).toBe("running");
    expect(await (agent as unknown as Seam).pendingCenterEvents()).toBe(1);
    // A sweep was scheduled durably before the send: it outlives the kill.
    const schedules = await runInDurableObject(agent, (instance) => instance.getSchedules());
    expect(schedules.some((schedule) => schedule.callback === "deliverCenterEvents")).toBe(true);

    await evict(agent, "evicted before the acknowledgement");

    // What the sweep runs when it fires (waking the agent, which also resends on start).
    const fresh = (await agentFor(session)) as unknown as { deliverCenterEvents(): Promise<void> } & Seam;
    await fresh.deliverCenterEvents();
    const thread = await waitForThread(session);
    expect(thread).toMatchObject({ status: "done", submissionId, stale: false });
    expect(await fresh.pendingCenterEvents()).toBe(0);
  });

  it("asks the agent about a quiet run whose end it never heard, and ends it as it ended: never stale, never offered", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 14);
    // The end is acknowledged and lost: the outbox has nothing left to resend.
    await reportThrough(session, (event, real) => (event.type === "turn-ended" ? Promise.resolve({ applied: true }) : real.record(event)));
    const { submissionId } = await dispatch(repo, "TEST: run echo one\nTEST: reply done");
    expect((await waitForStatus(await agentFor(session), submissionId)).status).toBe("completed");
    expect((await waitForThread(session, (thread) => thread.toolCalls === 1)).status).toBe("running");

    await withStaleWindow(300, async () => {
      // The command center wakes when the thread goes quiet, asks, and broadcasts what it heard.
      const thread = await waitForThread(session, (candidate) => candidate.status !== "running");
      expect(thread).toMatchObject({ status: "done", stale: false, submissionId });
      expect(thread.durationMs).toBeGreaterThan(0);
      expect(await (await commandCenter(env)).claimForContinuation(session)).toMatchObject({ ok: false, reason: "not_claimable" });
    });
  });

  it("a run still going is called stale only after its agent said so", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 14);
    // The run's command goes on once the test has seen it called stale while it runs.
    const { container } = await containerFor(session);
    const seen = gate();
    container.during(/echo going/, () => seen.promise);
    const { submissionId } = await dispatch(repo, "TEST: container echo going\nTEST: reply done");
    await withStaleWindow(300, async () => {
      const stale = await waitForThread(session, (thread) => thread.stale);
      expect(stale.status).toBe("running");
      expect((await (await agentFor(session)).submissionStatus(submissionId))?.status).toBe("running");
    });
    seen.open();
    expect((await waitForStatus(await agentFor(session), submissionId)).status).toBe("completed");
    expect(await waitForThread(session)).toMatchObject({ status: "done", stale: false });
  });

  it("counts a turn Think recovered after an eviction: recovering, then running again, on the thread and in the metrics", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 14);
    const { submissionId } = await dispatch(repo, "TEST: run sleep 3 && echo slept\nTEST: reply recovered");
    const agent = await agentFor(session);
    await commandRunning(agent, submissionId, "sleep 3 && echo slept");
    await evict(agent, "evicted mid-tool");

    expect((await waitForStatus(await agentFor(session), submissionId)).status).toBe("completed");
    const thread = await waitForThread(session);
    expect(thread).toMatchObject({ status: "done", recoveries: 1 });
    // Both halves arrived: the takeover (recovering) and the resumed turn.
    const run = await runInDurableObject(await mainStub(), (_instance, state) =>
      state.storage.sql.exec<{ data: string }>("SELECT data FROM cc_runs WHERE session = ?", session).toArray()
    );
    expect(JSON.parse(run[0]!.data)).toMatchObject({ recovery: { count: 1, state: "resumed" } });
    await eventually(async () => expect((await (await commandCenter(env)).snapshot()).metrics.recoveries24h).toBeGreaterThanOrEqual(1));
  });
});
