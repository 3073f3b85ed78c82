/**
 * One pending job per scheduled callback (issue 40), through the real agents
 * and the agents SDK's schedule: each of the four one-shot callbacks
 * (refreshState, retryReleases, deliverNotices, deliverCenterEvents), asked
 * for again and again by its own path, keeps one job, due at the earliest
 * time asked for. The old code added a row per call, and a start a few runs
 * later fired them all in one alarm ("Processing 18 due jobs ...").
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { ThinkAgent } from "../src/agent";
import { commandCenter, type CommandCenterAgent } from "../src/command-center";
import { CENTER_OUTBOX_PREFIX, CENTER_SWEEP_KEY, SWEEP_DELAYS_MS, type PendingEvent } from "../src/command-center/report";
import type { OutboxEntry } from "../src/report/outbox";
import { RELEASES_KEY, type PendingRelease } from "../src/pool/turn-container";
import type { WorkspaceAgent } from "../src/workspace-agent";
import { captureConsole, freshCenterName, until } from "./helpers";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

type Scheduling = { listSchedules(): Promise<{ id: string; callback: string; time: number; type: string }[]> };

/** The agent's pending one-shot jobs for `callback`, as the SDK keeps them (time in whole seconds). */
async function jobs(stub: DurableObjectStub<never> | object, callback: string): Promise<{ id: string; time: number }[]> {
  const all = await runInDurableObject(stub as DurableObjectStub<never>, (instance) => (instance as unknown as Scheduling).listSchedules());
  return all.filter((job) => job.callback === callback && (job.type === "scheduled" || job.type === "delayed")).map(({ id, time }) => ({ id, time }));
}

const seconds = (ms: number) => Math.ceil(ms / 1000);

describe("one pending job per scheduled callback", () => {
  it("refreshState: twenty refreshes, each wanting the quiet check a minute earlier, leave one job at the last time", async () => {
    const name = freshCenterName();
    const center = await commandCenter(env, name);
    const stub = (await getAgentByName(env.CommandCenterAgent, name)) as unknown as DurableObjectStub<CommandCenterAgent>;
    const window = (ms: number) =>
      runInDurableObject(stub, (instance: CommandCenterAgent) => {
        instance.staleRunMs = ms;
      });
    let staleRunMs = 10 * HOUR;
    await window(staleRunMs);
    const session = `one-shot-${crypto.randomUUID().slice(0, 8)}`;
    const submissionId = crypto.randomUUID();
    const at = Date.now();
    const dispatched = { type: "dispatched", session, repo: "acme/widgets", issueNumber: 1, issueTitle: "Issue", requestedBy: { login: "octocat" } };
    await center.record({ ...dispatched, instruction: "reproduce this issue", submissionId, at });
    await center.record({ type: "turn-started", session, submissionId, at: at + 10 });
    const quietSince = (await center.snapshot()).threads[0]!.lastActivityAt;

    for (let i = 0; i < 20; i++) {
      staleRunMs -= MINUTE;
      await window(staleRunMs);
      await center.refreshState();
    }
    // Each refresh asks for an earlier time, so each replaces the job; requests go in order, so once the last
    // one's job is there every earlier request is done (the old code held all twenty-one by then).
    const last = seconds(quietSince + staleRunMs + 1);
    await until(async () => (await jobs(stub, "refreshState")).some((job) => job.time === last), "the last refresh's job");
    expect((await jobs(stub, "refreshState")).map((job) => job.time)).toEqual([last]);
  });

  it("retryReleases: a release retried twenty times keeps one job, moved earlier and never later", async () => {
    const stub = (await getAgentByName(env.WorkspaceAgent, `one-shot-${crypto.randomUUID().slice(0, 8)}`)) as unknown as DurableObjectStub<WorkspaceAgent>;
    const releaseDueAt = (nextAttemptAt: number) =>
      runInDurableObject(stub, async (_instance, state) => {
        const entry: PendingRelease = { sandboxId: "sandbox-1", outcome: "completed", attempts: 1, nextAttemptAt, lastError: "pool unreachable (test)" };
        await state.storage.put(RELEASES_KEY, { "one-shot:owner": entry });
      });
    const base = Date.now() + HOUR;
    let earliest: { id: string; time: number } | undefined;
    for (let i = 0; i < 10; i++) {
      await releaseDueAt(base - i * MINUTE);
      expect(await stub.retryReleases()).toEqual({ pending: 1 });
      const [job, ...more] = await jobs(stub, "retryReleases");
      expect(more).toEqual([]);
      // The SDK keeps whole seconds; the clock may have moved on a little between the release's backoff and the request.
      expect(job!.time * 1000 - (base - i * MINUTE)).toBeGreaterThanOrEqual(0);
      expect(job!.time * 1000 - (base - i * MINUTE)).toBeLessThan(2_000);
      expect(job!.id).not.toBe(earliest?.id);
      earliest = job;
    }
    for (let i = 1; i <= 10; i++) {
      await releaseDueAt(base + i * MINUTE);
      expect(await stub.retryReleases()).toEqual({ pending: 1 });
      expect(await jobs(stub, "retryReleases")).toEqual([earliest]);
    }
  });

  it("deliverNotices: twenty delivery passes over a notice GitHub asked to wait keep one job, moved earlier and never later", async () => {
    const agent = (await getAgentByName(env.ReportingThinkAgent as unknown as DurableObjectNamespace<ThinkAgent>, `one-shot-${crypto.randomUUID().slice(0, 8)}`)) as unknown as DurableObjectStub<ThinkAgent> & {
      deliverNotices(): Promise<void>;
    };
    // A closing comment GitHub asked to wait for (Retry-After): each pass finds it waiting and asks to be called then.
    const waitingUntil = (notBefore: number) =>
      runInDurableObject(agent, async (_instance, state) => {
        const entry: OutboxEntry = {
          id: "sub-one-shot:closing",
          kind: "closing",
          submissionId: "sub-one-shot",
          repo: "acme/widgets",
          issueNumber: 7,
          body: "Done.",
          state: "pending",
          attempts: 1,
          createdAt: Date.now(),
          notBefore
        };
        await state.storage.put(`agent-think:outbox:${entry.id}`, entry);
      });
    const base = Date.now() + HOUR;
    let earliest: { id: string; time: number } | undefined;
    for (let i = 0; i < 10; i++) {
      await waitingUntil(base - i * MINUTE);
      await agent.deliverNotices();
      const [job, ...more] = await jobs(agent, "deliverNotices");
      expect(more).toEqual([]);
      expect(job!.time * 1000 - (base - i * MINUTE)).toBeGreaterThanOrEqual(0);
      expect(job!.time * 1000 - (base - i * MINUTE)).toBeLessThan(2_000);
      expect(job!.id).not.toBe(earliest?.id);
      earliest = job;
    }
    for (let i = 1; i <= 10; i++) {
      await waitingUntil(base + i * MINUTE);
      await agent.deliverNotices();
      expect(await jobs(agent, "deliverNotices")).toEqual([earliest]);
    }
  });

  it("deliverCenterEvents: twenty failed sweeps keep one job; an earlier sweep asked for last replaces it", async () => {
    const session = `one-shot-${crypto.randomUUID().slice(0, 8)}`;
    const agent = (await getAgentByName(env.ThinkAgent as unknown as DurableObjectNamespace<ThinkAgent>, session)) as unknown as DurableObjectStub<ThinkAgent> & {
      deliverCenterEvents(): Promise<void>;
    };
    // One event the command center never takes: every sweep fails and asks for the next one.
    await runInDurableObject(agent, (instance: ThinkAgent, state) => {
      (instance as unknown as { commandCenter: () => Promise<never> }).commandCenter = async () => {
        throw new Error("command center down (test)");
      };
      const owed: PendingEvent = { id: "turn-started:sub-one-shot", event: { type: "turn-started", session, submissionId: "sub-one-shot", at: Date.now() }, createdAt: Date.now(), attempts: 0 };
      state.storage.kv.put(CENTER_OUTBOX_PREFIX + owed.id, owed);
    });
    /** A sweep after `round` sweeps that left the event owed: it asks for the next one SWEEP_DELAYS_MS[round + 1] out. */
    const sweepAfter = async (round: number) => {
      await runInDurableObject(agent, (_instance, state) => {
        state.storage.kv.put(CENTER_SWEEP_KEY, { at: 0, round });
      });
      await agent.deliverCenterEvents();
    };
    const { lines } = await captureConsole(async () => {
      for (let i = 0; i < 20; i++) await sweepAfter(SWEEP_DELAYS_MS.length);
    });
    // Each sweep did fail, and asked for the next one (the last delay, a quarter of an hour out).
    expect(lines.filter((line) => line.includes("command-center:resend-failed"))).toHaveLength(20);
    // The last asks for the second delay, earlier than every one before it; requests go in order, so once its job
    // is there every earlier one is done.
    const before = Date.now();
    await captureConsole(() => sweepAfter(0));
    const soon = (job: { time: number }) => job.time * 1000 <= before + SWEEP_DELAYS_MS[1] + 60_000;
    await until(async () => (await jobs(agent, "deliverCenterEvents")).some(soon), "the earlier sweep's job");
    const [job, ...more] = await jobs(agent, "deliverCenterEvents");
    expect(more).toEqual([]);
    expect(soon(job!)).toBe(true);
  });
});
