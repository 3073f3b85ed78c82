/**
 * The CommandCenterAgent in workerd with real SQLite: the registry over RPC,
 * metrics, atomic claims (double claim, stale reclaim), the bounded broadcast
 * with 2,000 threads, snapshot paging, and the live state on a read-only
 * socket. Each test has its own command center (fresh name).
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { BROADCAST_INTERVAL_MS, commandCenter, type CommandCenterAgent } from "../../src/command-center";
import { jsonBytes } from "../../src/command-center/broadcast";
import type { QuietTruth } from "../../src/command-center/reconcile";
import { commandCenterStateSchema, MAX_BROADCAST_BYTES, MAX_RECENT_THREADS, snapshotSchema, type CommandCenterState, type ThreadSummary } from "../../src/shared/command-center";
import { type CommandCenterEvent, type DispatchedEvent } from "../../src/shared/command-center-events";
import { eventually, freshCenterName, HANG_MS } from "../helpers";

async function fresh() {
  const name = freshCenterName();
  return { name, center: await commandCenter(env, name), stub: await rawStub(name) };
}

async function rawStub(name: string) {
  return (await getAgentByName(env.CommandCenterAgent, name)) as unknown as DurableObjectStub<CommandCenterAgent>;
}

/** The state as the agent last set it (what a socket was sent). */
async function storedState(stub: DurableObjectStub<CommandCenterAgent>): Promise<CommandCenterState> {
  return runInDurableObject(stub, (instance: CommandCenterAgent) => instance.state);
}

let issue = 0;
function dispatched(fields: Partial<DispatchedEvent> = {}): DispatchedEvent {
  issue++;
  return {
    type: "dispatched",
    session: `acme-widgets-${issue}`,
    repo: "acme/widgets",
    issueNumber: issue,
    issueTitle: `Issue ${issue}`,
    requestedBy: { login: "octocat" },
    instruction: "reproduce this issue",
    submissionId: crypto.randomUUID(),
    at: Date.now(),
    ...fields
  };
}

const ref = (event: DispatchedEvent) => ({ session: event.session, submissionId: event.submissionId });

/** What every run's agent answers when the command center asks about a quiet run (these runs have no real agent). */
async function agentSays(stub: DurableObjectStub<CommandCenterAgent>, truth: QuietTruth, asked: string[] = []) {
  await runInDurableObject(stub, (instance: CommandCenterAgent) => {
    instance.askAgent = async (session) => {
      asked.push(session);
      return truth;
    };
  });
  return asked;
}

describe("CommandCenterAgent registry", () => {
  it("records a run over RPC and lists it in the snapshot and the state", async () => {
    const { center, stub } = await fresh();
    const run = dispatched({ instruction: "open a PR fixing this\n\nwith details" });
    const t = run.at;
    expect(await center.record(run)).toEqual({ applied: true });
    expect(await center.record({ type: "turn-started", ...ref(run), at: t + 10 })).toEqual({ applied: true });
    await center.record({ type: "tool", ...ref(run), tool: "bash", ok: true, toolCallId: "c1", at: t + 200 });
    await center.record({ type: "tool", ...ref(run), tool: "bash", ok: false, toolCallId: "c2", at: t + 300 });
    expect(await center.record({ type: "tool", ...ref(run), tool: "bash", ok: false, toolCallId: "c2", at: t + 300 })).toEqual({
      applied: false,
      reason: "duplicate"
    });
    await center.record({ type: "turn-ended", ...ref(run), status: "done", tokens: { input: 120, output: 30 }, at: t + 1_000 });

    const snapshot = snapshotSchema.parse(await center.snapshot());
    expect(snapshot.total).toBe(1);
    expect(snapshot.threads[0]).toMatchObject({
      session: run.session,
      instructionSummary: "open a PR fixing this",
      status: "done",
      runCount: 1,
      toolCalls: 2,
      toolErrors: 1,
      firstToolMs: 200,
      durationMs: 1_000,
      turnStartedAt: t + 10,
      tokens: { input: 120, output: 30 }
    });
    const state = await center.refreshState();
    expect(state.recent[0]).toEqual(snapshot.threads[0]);
    expect(await storedState(stub)).toEqual(state);
  });

  it("shows the issue's reproduction page on the thread, and keeps it across the next run", async () => {
    const { center, stub } = await fresh();
    const run = dispatched();
    const url = "https://agent-think.example.dev/repro/private/0123456789abcdef0123456789abcdef/";
    await center.record(run);
    await center.record({ type: "tool", ...ref(run), tool: "publish_reproduction", ok: true, toolCallId: "p1", at: run.at + 100 });
    expect(await center.record({ type: "reproduction", ...ref(run), url, at: run.at + 150 })).toEqual({ applied: true });
    expect(await center.record({ type: "reproduction", ...ref(run), url, at: run.at + 150 })).toEqual({ applied: false, reason: "duplicate" });
    for (const bad of ["javascript:alert(1)", `https://x.test/${"a".repeat(300)}`]) {
      expect(await center.record({ type: "reproduction", ...ref(run), url: bad, at: run.at + 160 })).toEqual({ applied: false, reason: "invalid" });
    }
    await center.record({ type: "turn-ended", ...ref(run), status: "done", at: run.at + 1_000 });

    const snapshot = snapshotSchema.parse(await center.snapshot());
    expect(snapshot.threads[0]).toMatchObject({ session: run.session, status: "done", reproductionUrl: url });
    const state = commandCenterStateSchema.parse(await center.refreshState());
    expect(state.recent[0]).toEqual(snapshot.threads[0]);
    expect(await storedState(stub)).toEqual(state);

    // A new mention on the issue: the page stays published until replaced.
    const next = dispatched({ session: run.session, issueNumber: run.issueNumber, instruction: "open a PR fixing this", at: run.at + 5_000 });
    expect(await center.record(next)).toEqual({ applied: true });
    expect((await center.snapshot()).threads[0]).toMatchObject({ submissionId: next.submissionId, status: "running", runCount: 2, reproductionUrl: url });
    const replaced = "https://agent-think.example.dev/repro/private/fedcba9876543210fedcba9876543210/";
    expect(await center.record({ type: "reproduction", ...ref(next), url: replaced, at: next.at + 100 })).toEqual({ applied: true });
    expect((await center.snapshot()).threads[0]?.reproductionUrl).toBe(replaced);
  });

  it("keeps each run's largest egress tally in SQLite, and the current run's total on the thread and the state", async () => {
    const { center, stub } = await fresh();
    const run = dispatched();
    const tally = [
      { host: "api.github.com", method: "POST", count: 3 },
      { host: "evil.example", method: "GET", count: 1 }
    ];
    await center.record(run);
    expect(await center.record({ type: "egress", ...ref(run), blocked: [tally[1]!], at: run.at + 100 })).toEqual({ applied: true });
    expect(await center.record({ type: "egress", ...ref(run), blocked: tally, at: run.at + 200 })).toEqual({ applied: true });
    expect(await center.record({ type: "egress", ...ref(run), blocked: tally, at: run.at + 200 })).toEqual({ applied: false, reason: "duplicate" });
    expect(await center.record({ type: "egress", ...ref(run), blocked: [tally[1]!], at: run.at + 100 })).toEqual({ applied: false, reason: "duplicate" });
    for (const bad of [[{ host: "", method: "GET", count: 1 }], [{ host: "x.example", method: "GET", count: 0 }], Array.from({ length: 21 }, (_, i) => ({ host: `h${i}.example`, method: "GET", count: 1 }))]) {
      expect(await center.record({ type: "egress", ...ref(run), blocked: bad, at: run.at + 300 })).toEqual({ applied: false, reason: "invalid" });
    }
    await center.record({ type: "turn-ended", ...ref(run), status: "done", at: run.at + 1_000 });

    const detail = await center.threadDetail(run.session);
    expect(detail?.runs).toEqual([expect.objectContaining({ submissionId: run.submissionId, blocked: tally })]);
    const snapshot = snapshotSchema.parse(await center.snapshot());
    // Not activity: the thread's last activity is its end.
    expect(snapshot.threads[0]).toMatchObject({ session: run.session, blockedRequests: 4, lastActivityAt: run.at + 1_000 });
    const state = commandCenterStateSchema.parse(await center.refreshState());
    expect(state.recent[0]).toEqual(snapshot.threads[0]);
    expect(await storedState(stub)).toEqual(state);
  });

  it("refuses malformed events without throwing", async () => {
    const { center } = await fresh();
    for (const bad of [null, {}, { type: "tool" }, { ...dispatched(), issueNumber: -1 }, { ...dispatched(), type: "nope" }]) {
      expect(await center.record(bad)).toEqual({ applied: false, reason: "invalid" });
    }
    expect((await center.snapshot()).total).toBe(0);
  });

  it("takes events in any order and each once", async () => {
    const { center } = await fresh();
    const run = dispatched();
    const t = run.at;
    const events: CommandCenterEvent[] = [
      { type: "turn-ended", ...ref(run), status: "error", error: "boom", at: t + 900 },
      { type: "tool", ...ref(run), tool: "bash", ok: true, toolCallId: "a", at: t + 100 },
      run,
      { type: "turn-started", ...ref(run), at: t + 5 },
      { type: "tool", ...ref(run), tool: "bash", ok: true, toolCallId: "a", at: t + 100 },
      run
    ];
    for (const event of events) await center.record(event);
    expect((await center.snapshot()).threads[0]).toMatchObject({
      status: "error",
      lastError: "boom",
      toolCalls: 1,
      runCount: 1,
      firstToolMs: 100,
      durationMs: 900
    });
  });

  it("records a cancelled run as cancelled over RPC, in the snapshot and the state", async () => {
    const { center, stub } = await fresh();
    const run = dispatched();
    await center.record(run);
    expect(await center.record({ type: "turn-ended", ...ref(run), status: "cancelled", at: run.at + 700 })).toEqual({ applied: true });
    const snapshot = snapshotSchema.parse(await center.snapshot());
    expect(snapshot.threads[0]).toMatchObject({ session: run.session, status: "cancelled", stale: false, durationMs: 700 });
    expect(snapshot.threads[0]!.lastError).toBeUndefined();
    const state = commandCenterStateSchema.parse(await center.refreshState());
    expect(state.recent[0]).toEqual(snapshot.threads[0]);
    expect(await storedState(stub)).toEqual(state);
  });

  it("leaves cancelled runs out of the success rate", async () => {
    const { center } = await fresh();
    const now = Date.now();
    const runs = [0, 1, 2].map((i) => dispatched({ at: now - 60_000 + i }));
    await center.recordBatch(runs);
    const statuses = ["done", "error", "cancelled"] as const;
    await center.recordBatch(runs.map((run, i) => ({ type: "turn-ended", ...ref(run), status: statuses[i]!, at: run.at + 1_000 * (i + 1) })));
    expect((await center.refreshState()).metrics).toMatchObject({ runs24h: 3, successRate: 0.5, durationP50Ms: 2_000, durationP95Ms: 3_000 });
  });

  it("computes metrics across threads", async () => {
    const { center } = await fresh();
    const now = Date.now();
    const runs = [0, 1, 2, 3].map((i) => dispatched({ at: now - 60_000 + i }));
    await center.recordBatch(runs);
    const ends: CommandCenterEvent[] = runs.flatMap((run, i) => [
      { type: "tool", ...ref(run), tool: "bash", ok: i !== 3, toolCallId: "t", at: run.at + 1_000 * (i + 1) },
      {
        type: "turn-ended",
        ...ref(run),
        status: i === 3 ? "error" : "done",
        cost: { usd: 0.25 * (i + 1), complete: true },
        at: run.at + 10_000 * (i + 1)
      }
    ]);
    await center.recordBatch(ends);
    const { metrics } = await center.refreshState();
    // Spend through the SQLite store's own aggregation: today's runs are those that ended since midnight UTC.
    const midnight = new Date(now);
    midnight.setUTCHours(0, 0, 0, 0);
    const today = runs.reduce((sum, run, i) => sum + (run.at + 10_000 * (i + 1) >= midnight.getTime() ? 0.25 * (i + 1) : 0), 0);
    expect(metrics).toEqual({
      runs24h: 4,
      successRate: 0.75,
      durationP50Ms: 20_000,
      durationP95Ms: 40_000,
      firstToolP50Ms: 2_000,
      firstToolP95Ms: 4_000,
      toolErrorRate: 0.25,
      recovering: 0,
      recoveries24h: 0,
      spendToday: { usd: today, complete: true },
      spend7d: { usd: 2.5, complete: true },
      spendByRepo: [{ repo: "acme/widgets", runs: 4, cost: { usd: 2.5, complete: true } }],
      costliestRuns: [3, 2, 1, 0].map((i) => ({
        session: runs[i]!.session,
        repo: runs[i]!.repo,
        issueNumber: runs[i]!.issueNumber,
        submissionId: runs[i]!.submissionId,
        endedAt: runs[i]!.at + 10_000 * (i + 1),
        cost: { usd: 0.25 * (i + 1), complete: true }
      }))
    });
  });
});

describe("CommandCenterAgent claims", () => {
  async function failedThread() {
    const ctx = await fresh();
    const run = dispatched();
    await ctx.center.record(run);
    await ctx.center.record({ type: "turn-ended", ...ref(run), status: "error", error: "model failed", at: run.at + 50 });
    return { ...ctx, run };
  }

  it("claims a failed thread exactly once", async () => {
    const { center, run } = await failedThread();
    const first = await center.claimForContinuation(run.session, Date.now());
    expect(first).toMatchObject({ ok: true, thread: { session: run.session, status: "running", runCount: 2, repo: "acme/widgets", issueNumber: run.issueNumber } });
    expect(await center.claimForContinuation(run.session, Date.now())).toMatchObject({ ok: false, reason: "not_claimable" });
    expect((await center.snapshot()).threads[0]).toMatchObject({ status: "running", runCount: 2 });
  });

  it("lets exactly one of many concurrent claims win", async () => {
    const { center, run } = await failedThread();
    const results = await Promise.all(Array.from({ length: 20 }, () => center.claimForContinuation(run.session, Date.now())));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok)).toHaveLength(19);
  });

  it("says not_found for an unknown thread and not_claimable for a live or finished one", async () => {
    const { center } = await fresh();
    expect(await center.claimForContinuation("nobody-here-1", Date.now())).toEqual({ ok: false, reason: "not_found" });
    const run = dispatched();
    await center.record(run);
    expect(await center.claimForContinuation(run.session, Date.now())).toMatchObject({ ok: false, reason: "not_claimable" });
    await center.record({ type: "turn-ended", ...ref(run), status: "done", at: run.at + 1 });
    expect(await center.claimForContinuation(run.session, Date.now() + 86_400_000)).toMatchObject({ ok: false, reason: "not_claimable" });
  });

  it("never claims a cancelled thread", async () => {
    const { center } = await fresh();
    const run = dispatched();
    await center.record(run);
    await center.record({ type: "turn-ended", ...ref(run), status: "cancelled", at: run.at + 1 });
    expect(await center.claimForContinuation(run.session, Date.now() + 86_400_000)).toMatchObject({ ok: false, reason: "not_claimable" });
    expect((await center.snapshot()).threads[0]).toMatchObject({ status: "cancelled", runCount: 1 });
  });

  it("reclaims a stale run after the stale window (injected now), and the continuation takes over", async () => {
    const { center, stub } = await fresh();
    await agentSays(stub, { kind: "active" });
    const run = dispatched();
    await center.record(run);
    await center.record({ type: "tool", ...ref(run), tool: "bash", ok: true, toolCallId: "a", at: run.at + 1_000 });
    const window = 600_000; // STALE_RUN_MS in test/wrangler.jsonc
    expect(await center.claimForContinuation(run.session, run.at + 1_000 + window)).toMatchObject({ ok: false, reason: "not_claimable" });
    const claim = await center.claimForContinuation(run.session, run.at + 1_001 + window);
    expect(claim).toMatchObject({ ok: true, thread: { runCount: 2, status: "running" } });
    expect(await center.claimForContinuation(run.session, run.at + 1_002 + window)).toMatchObject({ ok: false, reason: "not_claimable" });

    const continuation = dispatched({ session: run.session, issueNumber: run.issueNumber, instruction: "continue", at: run.at + 1_100 + window });
    expect(await center.record(continuation)).toEqual({ applied: true });
    await center.record({ type: "turn-ended", ...ref(continuation), status: "done", at: continuation.at + 5_000 });
    expect((await center.snapshot()).threads[0]).toMatchObject({
      submissionId: continuation.submissionId,
      status: "done",
      runCount: 2,
      durationMs: 5_000
    });
  });

  it("uses a small stale window through the instance seam", async () => {
    const { center, stub } = await fresh();
    await agentSays(stub, { kind: "active" });
    await runInDurableObject(stub, (instance: CommandCenterAgent) => {
      instance.staleRunMs = 400;
    });
    const run = dispatched();
    await center.record(run);
    // Read inside the window it is not stale; a machine too slow to read it there has nothing to show.
    const first = (await center.snapshot()).threads[0];
    if (Date.now() - run.at < 400) expect(first?.stale).toBe(false);
    // The center's own refresh asks the agent once the window has passed; on a loaded machine its timer fires late, so wait for it.
    await expect.poll(async () => (await center.snapshot()).threads[0]?.stale, { timeout: HANG_MS, interval: 20 }).toBe(true);
    expect(await center.claimForContinuation(run.session)).toMatchObject({ ok: true, thread: { stale: false, runCount: 2 } });
  });

  it("a released claim shows the error and is claimable again", async () => {
    const { center, run } = await failedThread();
    expect(await center.claimForContinuation(run.session, Date.now())).toMatchObject({ ok: true });
    expect(await center.releaseClaim(run.session, "could not mint a token")).toEqual({ released: true });
    expect((await center.snapshot()).threads[0]).toMatchObject({ status: "error", lastError: "could not mint a token", runCount: 1 });
    expect(await center.releaseClaim(run.session)).toEqual({ released: false });
    expect(await center.claimForContinuation(run.session, Date.now())).toMatchObject({ ok: true, thread: { runCount: 2 } });
  });
});

describe("CommandCenterAgent bounded broadcast", () => {
  it("keeps the state within 64 KiB and 50 threads with 2,000 threads, and pages all of them", async () => {
    const { center, stub } = await fresh();
    const now = Date.now();
    const runs = Array.from({ length: 2_000 }, (_, i) =>
      dispatched({
        session: `bulk-repo-${i}`,
        issueNumber: i + 1,
        issueTitle: "A rather long issue title ".repeat(40).slice(0, 1_024),
        instruction: "reproduce this issue ".repeat(20),
        requestedBy: { login: "octocat", avatarUrl: `https://avatars.example/u/${i}?v=4` },
        at: now - 2_000 + i
      })
    );
    for (let i = 0; i < runs.length; i += 500) await center.recordBatch(runs.slice(i, i + 500));
    await center.recordBatch(
      runs.filter((_, i) => i % 3 === 0).map((run) => ({ type: "turn-ended", ...ref(run), status: "error", error: "x".repeat(5_000), at: run.at + 1 }))
    );

    const state = commandCenterStateSchema.parse(await center.refreshState());
    expect(state.total).toBe(2_000);
    expect(state.recent.length).toBeGreaterThan(0);
    expect(state.recent.length).toBeLessThanOrEqual(MAX_RECENT_THREADS);
    expect(jsonBytes(state)).toBeLessThanOrEqual(MAX_BROADCAST_BYTES);
    expect(jsonBytes(await storedState(stub))).toBeLessThanOrEqual(MAX_BROADCAST_BYTES);
    expect(state.recent[0]?.session).toBe("bulk-repo-1999");

    const seen: ThreadSummary[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await center.snapshot({ limit: 200, ...(cursor ? { cursor } : {}) });
      expect(page.total).toBe(2_000);
      seen.push(...page.threads);
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    expect(cursor).toBeUndefined();
    expect(seen).toHaveLength(2_000);
    expect(new Set(seen.map((thread) => thread.session)).size).toBe(2_000);
    const activity = seen.map((thread) => thread.lastActivityAt);
    expect(activity).toEqual([...activity].sort((a, b) => b - a));
  });

  it("refuses a bad snapshot limit or cursor", async () => {
    const { stub } = await fresh();
    // In the object: a refusal thrown across RPC is printed by workerd as uncaught, although it is caught (the HTTP route's 400: test/unit/api-routes.test.ts).
    await runInDurableObject(stub, async (instance: CommandCenterAgent) => {
      await expect(instance.snapshot({ limit: 201 })).rejects.toThrow(/limit/);
      await expect(instance.snapshot({ cursor: "not-ours" })).rejects.toThrow(/cursor/);
    });
  });
});

describe("CommandCenterAgent live state", () => {
  type Frame = { type?: string; state?: CommandCenterState };

  /** A dashboard's socket on this test's own command center (the Worker routes only `main`). */
  async function socket(stub: DurableObjectStub<CommandCenterAgent>) {
    const response = await stub.fetch(`https://agent-think.test/agents/command-center-agent/${crypto.randomUUID()}`, {
      headers: { Upgrade: "websocket" }
    });
    expect(response.status).toBe(101);
    const ws = response.webSocket!;
    const frames: Frame[] = [];
    ws.addEventListener("message", (event) => {
      if (typeof event.data === "string") frames.push(JSON.parse(event.data) as Frame);
    });
    ws.accept();
    const states = () => frames.filter((frame) => frame.type === "cf_agent_state").map((frame) => frame.state!);
    return { ws, frames, states };
  }

  it("pushes each change to a dashboard within a second, coalescing bursts", async () => {
    const { center, stub } = await fresh();
    const { ws, states } = await socket(stub);
    await eventually(() => expect(states().length).toBeGreaterThan(0));
    // Within a second: a change waits for the throttle's timer at most, never for another event. How soon that timer
    // fires on this machine is not this test's to judge, so the waits below are for the pushes themselves.
    expect(BROADCAST_INTERVAL_MS).toBeLessThanOrEqual(1_000);

    const run = dispatched();
    await center.record(run);
    await eventually(() => expect(states().at(-1)?.recent[0]?.session).toBe(run.session));

    const before = states().length;
    for (let i = 0; i < 40; i++) {
      await center.record({ type: "tool", ...ref(run), tool: "bash", ok: true, toolCallId: `c${i}`, at: run.at + i });
    }
    await eventually(() => expect(states().at(-1)?.recent[0]?.toolCalls).toBe(40));
    expect(states().length - before).toBeLessThan(40);
    ws.close();
  });

  it("tells dashboards when a running thread turns stale, with no event to say so", async () => {
    const { center, stub } = await fresh();
    await agentSays(stub, { kind: "active" });
    await runInDurableObject(stub, (instance: CommandCenterAgent) => {
      instance.staleRunMs = 300;
    });
    const { ws, states } = await socket(stub);
    // A throttle window after the socket's first state, the record is broadcast at once (no later push coalesces it with
    // the stale one, however slow the machine), so the dashboard sees the run before it goes stale.
    await eventually(() => expect(states().length).toBeGreaterThan(0));
    await new Promise((resolve) => setTimeout(resolve, BROADCAST_INTERVAL_MS));
    const run = dispatched();
    await center.record(run);
    await eventually(() => expect(states().some((state) => state.recent[0]?.session === run.session && state.recent[0].stale === false)).toBe(true));
    await eventually(() => expect(states().at(-1)?.recent[0]).toMatchObject({ session: run.session, stale: true }));
    ws.close();
  });

  it("is read-only for sockets", async () => {
    const { center, stub } = await fresh();
    await center.record(dispatched());
    const { ws, frames, states } = await socket(stub);
    await eventually(() => expect(states().length).toBeGreaterThan(0));
    const forged: CommandCenterState = { ...states()[0]!, recent: [], total: 999 };
    ws.send(JSON.stringify({ type: "cf_agent_state", state: forged }));
    await eventually(() => expect(frames.some((frame) => frame.type === "cf_agent_state_error")).toBe(true));
    expect((await center.refreshState()).total).toBe(1);
    ws.close();
  });
});
