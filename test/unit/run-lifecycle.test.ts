/**
 * A session's runs from dispatch to their end (src/steps/run-lifecycle.ts),
 * over in-memory storage and recording fakes of Think's submissions and the
 * other collaborators: what is checked before anything is written, what a
 * start, a continuation, a cancel and a reset write and in which order, how
 * a turn's start and a submission's end are followed, and the runs a
 * restart cut off finished at start.
 */
import { describe, expect, it } from "vitest";
import { BotIdentityError } from "../../src/run/bot-identity";
import { DispatchOnce } from "../../src/run/dispatch-once";
import { parseEnvelope } from "../../src/run/envelope";
import { OpenRuns } from "../../src/run/open-runs";
import { RunContextStore, type RunContext } from "../../src/run/run-context";
import { TierMismatchError } from "../../src/run/session-trust";
import type { RunTier } from "../../src/shared/dispatch";
import type { Submission } from "../../src/steps/run-host";
import { RunLifecycle, type StartRunInput } from "../../src/steps/run-lifecycle";

const NOW = 1_700_000_000_000;
const BOT = { login: "agent-think[bot]", id: 9001 };
const SESSION = "acme-widgets-7";

function asyncStorage() {
  const map = new Map<string, unknown>();
  return {
    map,
    get: async <T>(key: string) => structuredClone(map.get(key)) as T | undefined,
    put: async <T>(key: string, value: T) => void map.set(key, structuredClone(value)),
    delete: async (key: string) => map.delete(key)
  };
}

function syncStorage() {
  const map = new Map<string, unknown>();
  return {
    put: <T>(key: string, value: T) => void map.set(key, value),
    delete: (key: string) => map.delete(key),
    list: <T>({ prefix }: { prefix: string }) => [...map].filter(([key]) => key.startsWith(prefix)) as Array<[string, T]>
  };
}

function setup(options: { env?: { LOCAL_DEV?: string; BOT_LOGIN?: string }; submissions?: Submission[]; cancelOutcome?: "cancelled" | "already_terminal" } = {}) {
  const events: string[] = [];
  const lines: Array<{ event: string; fields?: Record<string, unknown> }> = [];
  const submitted: Array<{ text: string; options: unknown }> = [];
  const records = new Map<string, Submission>((options.submissions ?? []).map((submission) => [submission.submissionId, submission]));
  const storage = asyncStorage();
  const runs = new RunContextStore(storage);
  const openRuns = new OpenRuns(syncStorage());
  let next = 0;
  const lifecycle = new RunLifecycle({
    session: () => SESSION,
    env: options.env ?? { LOCAL_DEV: "1" },
    githubApiUrl: () => "",
    submissions: {
      submit: async (messages, submitOptions) => {
        const part = messages[0]?.parts[0];
        submitted.push({ text: part?.type === "text" ? part.text : "", options: submitOptions });
        const key = submitOptions?.idempotencyKey;
        const known = key ? [...records.values()].find((record) => record.idempotencyKey === key) : undefined;
        if (known) return { ...known, accepted: false };
        const record: Submission = { submissionId: `sub-${++next}`, status: "pending", createdAt: NOW + next, ...(key ? { idempotencyKey: key } : {}), metadata: submitOptions?.metadata };
        records.set(record.submissionId, record);
        return { ...record, accepted: true };
      },
      list: async (filter) => {
        const statuses = filter?.status === undefined ? null : [filter.status].flat();
        return [...records.values()].filter((record) => !statuses || statuses.includes(record.status));
      },
      inspect: async (submissionId) => {
        if (submissionId === "sub-broken") throw new Error("storage hiccup");
        return records.get(submissionId) ?? null;
      },
      cancel: async (submissionId, reason) => {
        events.push(`cancel ${submissionId} ${reason}`);
        const record = records.get(submissionId)!;
        return options.cancelOutcome === "already_terminal"
          ? { outcome: "already_terminal", submissionId, submission: record }
          : ({ outcome: "cancelled", submissionId, submission: record } as never);
      },
      clearTranscript: async () => void events.push("transcript cleared")
    },
    runs,
    credentials: {
      token: {
        adopt: (token: string) => void events.push(`adopt ${token}`),
        replace: async (token: string, expiresAt?: string, bot?: typeof BOT) => {
          events.push(`replace ${token}`);
          return runs.setToken(token, NOW, expiresAt, bot);
        },
        redact: (text: string) => text.replaceAll("ghs_secret", "[REDACTED]")
      },
      clear: () => void events.push("credentials cleared"),
      turnEnded: () => void events.push("read token dropped")
    },
    trust: {
      assertFits: (tier: RunTier | undefined) => {
        if (tier === "reporter") throw new TierMismatchError("a reporter-tier run belongs in the issue's reporter session");
      },
      envelope: (run: RunContext) => run,
      ended: async (submissionId: string) => void events.push(`trust ended ${submissionId}`)
    },
    dispatches: new DispatchOnce(storage),
    reports: {
      dispatched: (_run, submissionId, _at, continuedBy) => void events.push(`dispatched ${submissionId}${continuedBy ? ` by ${continuedBy}` : ""}`),
      deliverNotices: async () => void events.push("notices delivered"),
      turnStarted: async (submissionId, _at, rocket) => {
        const on = rocket && "commentId" in rocket ? ` rocket comment ${rocket.commentId}` : rocket && "reviewCommentId" in rocket ? ` rocket review comment ${rocket.reviewCommentId}` : "";
        events.push(`started ${submissionId}${on}`);
      },
      flushEvents: async () => {
        events.push("events flushed");
        return { sent: 0, pending: 0 } as never;
      }
    },
    ledger: {
      recordCancel: async (submissionId, reason) => void events.push(`ledger cancel ${submissionId} ${reason}`),
      touch: async (submissionId) => void events.push(`touch ${submissionId}`)
    },
    openRuns,
    activeTurn: {
      begin: async (turn) => void events.push(`begin ${turn.session} ${turn.submissionId}`),
      end: async (turn, outcome) => void events.push(`end ${turn.session} ${turn.submissionId} ${outcome}`)
    },
    watchdog: { stop: () => void events.push("watchdog stopped") },
    closing: {
      close: async (submission) => {
        events.push(`close ${submission.submissionId}`);
        return { kind: "finished" } as never;
      }
    },
    view: {
      runRef: async (submissionId) => ((await runs.get()) ? ({ repo: "acme/widgets", issueNumber: 7, submissionId, threadUrl: "https://agent-think.test/thread/x" } as never) : null),
      botLogin: () => BOT.login
    },
    log: (event, fields) => void lines.push({ event, fields }),
    now: () => NOW
  });
  return { lifecycle, events, lines, submitted, records, runs, openRuns, storage };
}

const input: StartRunInput = {
  session: SESSION,
  repo: "acme/widgets",
  issueNumber: 7,
  instruction: "reproduce this",
  installationToken: "ghs_secret",
  commentId: 501,
  requestedBy: { login: "maria" },
  bot: BOT
};

describe("RunLifecycle: start", () => {
  it("stores the run context, adopts its token and submits the envelope once per comment, with who asked", async () => {
    const { lifecycle, events, submitted, runs } = setup();
    expect(await lifecycle.start(input)).toEqual({ submissionId: "sub-1", accepted: true });
    expect(await runs.get()).toMatchObject({ repo: "acme/widgets", issueNumber: 7, installationToken: "ghs_secret", bot: BOT, updatedAt: NOW });
    expect(submitted).toHaveLength(1);
    expect(submitted[0]!.options).toEqual({ idempotencyKey: "comment:501", metadata: { commentId: 501, requestedBy: "maria" } });
    expect(parseEnvelope(submitted[0]!.text)).toMatchObject({ repository: "acme/widgets", session: SESSION, instruction: "reproduce this" });
    expect(events).toEqual(["adopt ghs_secret", "dispatched sub-1"]);
  });

  it("answers a duplicate comment with its first submission, submitting and reporting nothing", async () => {
    const { lifecycle, events, submitted } = setup();
    const [first, again] = await Promise.all([lifecycle.start(input), lifecycle.start(input)]);
    const later = await lifecycle.start(input);
    expect(first).toEqual({ submissionId: "sub-1", accepted: true });
    expect(again).toEqual({ submissionId: "sub-1", accepted: false });
    expect(later).toEqual({ submissionId: "sub-1", accepted: false });
    expect(submitted).toHaveLength(1);
    expect(events.filter((event) => event.startsWith("dispatched"))).toEqual(["dispatched sub-1"]);
  });

  it("refuses a token with no bot to act as, or a dispatch of the other tier, before anything is written", async () => {
    const production = setup({ env: {} });
    await expect(production.lifecycle.start({ ...input, bot: undefined })).rejects.toThrow(BotIdentityError);
    const reporter = setup();
    await expect(reporter.lifecycle.start({ ...input, tier: "reporter" })).rejects.toThrow(TierMismatchError);
    for (const { runs, submitted, events, storage } of [production, reporter]) {
      expect(await runs.get()).toBeUndefined();
      expect(submitted).toEqual([]);
      expect(events).toEqual([]);
      expect(storage.map.size).toBe(0);
    }
  });
});

describe("RunLifecycle: continue", () => {
  it("submits a continuation of the latest submission with the fresh token, naming who continued it", async () => {
    const { lifecycle, events, submitted, runs } = setup();
    await lifecycle.start(input);
    const operator = `  ${"o".repeat(400)}  `;
    expect(await lifecycle.continue({ installationToken: "ghs_fresh", operator })).toEqual({ submissionId: "sub-2" });
    expect((await runs.get())?.installationToken).toBe("ghs_fresh");
    expect(parseEnvelope(submitted[1]!.text)).toMatchObject({ continuationOf: "sub-1", instruction: "reproduce this" });
    expect(submitted[1]!.options).toEqual({ metadata: { continuation: true, requestedBy: "maria", operator: "o".repeat(320) } });
    expect(events.slice(-2)).toEqual(["replace ghs_fresh", `dispatched sub-2 by ${"o".repeat(320)}`]);
  });

  it("refuses a session with no run, and a token with no bot anywhere, writing nothing", async () => {
    const empty = setup();
    await expect(empty.lifecycle.continue({ installationToken: "" })).rejects.toThrow("this session has no run to continue");
    expect(empty.submitted).toEqual([]);
    const production = setup({ env: {} });
    await expect(production.lifecycle.continue({ installationToken: "ghs_fresh" })).rejects.toThrow(BotIdentityError);
    expect(production.events).toEqual([]);
  });
});

describe("RunLifecycle: status, cancel and reset", () => {
  it("shows a submission's status without its metadata, the error redacted; null for an unknown id", async () => {
    const failed: Submission = { submissionId: "sub-9", status: "error", error: "boom ghs_secret", createdAt: 1, metadata: { commentId: 4 }, idempotencyKey: "comment:4" };
    const { lifecycle } = setup({ submissions: [failed] });
    expect(await lifecycle.status("sub-9")).toEqual({ status: "error", error: "boom [REDACTED]", createdAt: 1 });
    expect(await lifecycle.status("nope")).toBeNull();
  });

  it("cancels what is queued or running, recording the reason first, with a stop comment's token", async () => {
    const submissions: Submission[] = [
      { submissionId: "sub-a", status: "running", createdAt: 1 },
      { submissionId: "sub-b", status: "pending", createdAt: 2 },
      { submissionId: "sub-c", status: "completed", createdAt: 0 }
    ];
    const { lifecycle, events, lines } = setup({ submissions });
    expect(await lifecycle.cancel("stop", "ghs_stop", undefined, BOT)).toEqual({ cancelled: 2, submissionIds: ["sub-a", "sub-b"] });
    expect(events).toEqual(["replace ghs_stop", "ledger cancel sub-a stop", "cancel sub-a stop", "ledger cancel sub-b stop", "cancel sub-b stop"]);
    expect(lines.at(-1)).toEqual({ event: "cancelled", fields: { cancelled: 2, submissionIds: ["sub-a", "sub-b"] } });
    // Only what Think actually cancelled counts.
    const late = setup({ submissions, cancelOutcome: "already_terminal" });
    expect(await late.lifecycle.cancel("stop")).toEqual({ cancelled: 0, submissionIds: [] });
  });

  it("resets: cancels, delivers the notices while the token is known, then clears the transcript, the run and its tokens", async () => {
    const { lifecycle, events, runs } = setup({ submissions: [{ submissionId: "sub-a", status: "pending", createdAt: 1 }] });
    await lifecycle.start({ ...input, commentId: 502 });
    events.length = 0;
    expect(await lifecycle.reset()).toEqual({ cancelled: 2 });
    expect(events).toEqual([
      "ledger cancel sub-a session reset",
      "cancel sub-a session reset",
      "ledger cancel sub-1 session reset",
      "cancel sub-1 session reset",
      "notices delivered",
      "transcript cleared",
      "credentials cleared"
    ]);
    expect(await runs.get()).toBeUndefined();
  });

  it("reconciles: everything owed to the command center first, then how the submission stands", async () => {
    const ended: Submission = { submissionId: "sub-e", status: "aborted", createdAt: 1, completedAt: 5 };
    const { lifecycle, events } = setup({ submissions: [ended] });
    expect(await lifecycle.reconcile("sub-e")).toMatchObject({ kind: "ended", at: 5 });
    expect(await lifecycle.reconcile("nope")).toEqual({ kind: "missing" });
    expect(events).toEqual(["events flushed", "events flushed"]);
  });
});

describe("RunLifecycle: a submission's statuses", () => {
  it("a turn begins: the run is opened, the workspace told, and the 🚀 goes on the comment, else the review comment", async () => {
    const { lifecycle, events, openRuns, runs } = setup();
    await runs.put({ repo: "acme/widgets", issueNumber: 7, instruction: "x", installationToken: "", updatedAt: NOW });
    await lifecycle.changed({ submissionId: "sub-1", status: "running", createdAt: 1, startedAt: 2, metadata: { commentId: 501 } });
    await lifecycle.changed({ submissionId: "sub-2", status: "running", createdAt: 1, metadata: { reviewCommentId: 77 } });
    expect(openRuns.list()).toEqual(["sub-1", "sub-2"]);
    expect(events).toEqual([
      `begin ${SESSION} sub-1`,
      "touch sub-1",
      "started sub-1 rocket comment 501",
      `begin ${SESSION} sub-2`,
      "touch sub-2",
      "started sub-2 rocket review comment 77"
    ]);
  });

  it("a submission ends: its turn released, then closed, its trust facts kept, and the run no longer open", async () => {
    const { lifecycle, events, openRuns, lines } = setup();
    openRuns.opened("sub-1", 1);
    await lifecycle.changed({ submissionId: "sub-1", status: "completed", createdAt: 1, startedAt: 10, completedAt: 25 });
    expect(events).toEqual(["watchdog stopped", `end ${SESSION} sub-1 completed`, "read token dropped", "close sub-1", "trust ended sub-1"]);
    expect(openRuns.list()).toEqual([]);
    expect(lines.at(-1)).toEqual({ event: "turn:done", fields: { submissionId: "sub-1", ending: "finished", durationMs: 15 } });
    // Pending changes nothing.
    events.length = 0;
    await lifecycle.changed({ submissionId: "sub-2", status: "pending", createdAt: 1 });
    expect(events).toEqual([]);
  });

  it("finishes at start the runs a restart cut off, forgets unknown ones, leaves running ones, and goes on past a failure", async () => {
    const submissions: Submission[] = [
      { submissionId: "sub-ended", status: "error", error: "boom", createdAt: 1 },
      { submissionId: "sub-running", status: "running", createdAt: 2 }
    ];
    const { lifecycle, events, openRuns, lines } = setup({ submissions });
    for (const [at, id] of ["sub-broken", "sub-gone", "sub-ended", "sub-running"].entries()) openRuns.opened(id, at);
    await lifecycle.finishCutOff();
    expect(events).toEqual(["watchdog stopped", `end ${SESSION} sub-ended error`, "read token dropped", "close sub-ended", "trust ended sub-ended"]);
    expect(openRuns.list()).toEqual(["sub-broken", "sub-running"]);
    expect(lines.map((line) => line.event)).toEqual(["turn:ending-resume-failed", "turn:ending-resumed", "turn:error"]);
  });
});
