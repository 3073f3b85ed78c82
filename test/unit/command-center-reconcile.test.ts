import { describe, expect, it } from "vitest";
import { recordEvent } from "../../src/command-center/registry";
import { isStale, toSummary } from "../../src/command-center/staleness";
import { claimThread } from "../../src/command-center/thread-claims";
import { MISSING_RUN_ERROR, needsQuietCheck, quietTruthOf, settleQuiet } from "../../src/command-center/reconcile";
import { computeMetrics } from "../../src/command-center/metrics";
import { threadSummarySchema } from "../../src/shared/command-center";
import { type CommandCenterEvent, type RecoveryEvent } from "../../src/shared/command-center-events";
import { MemoryRegistryStore } from "../command-center/memory-store";

const STALE = 600_000;
const T0 = 1_700_000_000_000;
const SESSION = "acme-widgets-7";

const dispatched = (submissionId = "s1", at = T0): CommandCenterEvent => ({
  type: "dispatched",
  session: SESSION,
  repo: "acme/widgets",
  issueNumber: 7,
  instruction: "reproduce this issue",
  submissionId,
  at
});
const recovery = (state: RecoveryEvent["state"], recoveries: number, at: number, submissionId = "s1"): CommandCenterEvent => ({
  type: "recovery",
  session: SESSION,
  submissionId,
  state,
  recoveries,
  at
});
const ended = (at: number, status: "done" | "error" | "cancelled" = "done", submissionId = "s1"): CommandCenterEvent => ({
  type: "turn-ended",
  session: SESSION,
  submissionId,
  status,
  at
});

function summary(store: MemoryRegistryStore, now = T0) {
  const record = store.getThread(SESSION)!;
  return threadSummarySchema.parse(toSummary(record, now, STALE));
}

describe("recovering", () => {
  it("is the thread's status from the takeover until the resumed turn starts, with the count", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    expect(recordEvent(store, recovery("recovering", 1, T0 + 100))).toEqual({ applied: true });
    expect(summary(store)).toMatchObject({ status: "recovering", recoveries: 1, lastActivityAt: T0 + 100 });
    expect(recordEvent(store, recovery("resumed", 1, T0 + 200))).toEqual({ applied: true });
    expect(summary(store)).toMatchObject({ status: "running", recoveries: 1 });
    recordEvent(store, recovery("recovering", 2, T0 + 300));
    expect(summary(store)).toMatchObject({ status: "recovering", recoveries: 2 });
    recordEvent(store, ended(T0 + 400));
    expect(summary(store)).toMatchObject({ status: "done", recoveries: 2 });
  });

  it("orders by the count: a late or repeated event never turns a resumed run back, nor reopens an ended one", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, recovery("resumed", 1, T0 + 200));
    expect(recordEvent(store, recovery("recovering", 1, T0 + 100))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, recovery("resumed", 1, T0 + 200))).toEqual({ applied: false, reason: "duplicate" });
    expect(summary(store).status).toBe("running");
    recordEvent(store, ended(T0 + 300, "error"));
    expect(recordEvent(store, recovery("recovering", 2, T0 + 250))).toEqual({ applied: false, reason: "duplicate" });
    expect(summary(store).status).toBe("error");
  });

  it("is taken over when it arrives before its dispatch, and a new run starts with none", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, recovery("recovering", 1, T0 + 50));
    recordEvent(store, dispatched());
    expect(summary(store)).toMatchObject({ status: "recovering", recoveries: 1 });
    recordEvent(store, ended(T0 + 100));
    recordEvent(store, dispatched("s2", T0 + 200));
    expect(summary(store).recoveries).toBeUndefined();
  });

  it("is counted by the metrics: recovering now, and recoveries in the window", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, recovery("recovering", 2, T0 + 100));
    recordEvent(store, dispatched("s2", T0 + 10));
    recordEvent(store, { ...recovery("resumed", 1, T0 + 20, "s2") });
    const metrics = computeMetrics(store.runsTouchedSince(0), { calls: 0, errors: 0 }, T0 + 1_000);
    expect(metrics).toMatchObject({ recovering: 1, recoveries24h: 3 });
  });

  it("a recovering thread goes quiet and stale as a running one does", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, recovery("recovering", 1, T0 + 100));
    const now = T0 + 101 + STALE;
    expect(needsQuietCheck(store.getThread(SESSION)!, now, STALE)).toBe(true);
    settleQuiet(store, SESSION, "s1", { kind: "active" }, now, STALE);
    expect(summary(store, now)).toMatchObject({ status: "recovering", stale: true });
  });
});

describe("reconciliation: a quiet thread is asked about before it is called stale", () => {
  const quietAt = T0 + STALE + 1;

  function quiet() {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    return store;
  }

  it("a run that ended there ends here as it ended, never stale, never claimable", () => {
    const store = quiet();
    expect(summary(store, quietAt).stale).toBe(false);
    expect(settleQuiet(store, SESSION, "s1", { kind: "ended", status: "done", at: T0 + 5_000 }, quietAt, STALE)).toBe(true);
    expect(summary(store, quietAt)).toMatchObject({ status: "done", stale: false, durationMs: 5_000 });
    expect(claimThread(store, SESSION, quietAt + 1, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
  });

  it("a failed run ends failed with its error, and can be continued", () => {
    const store = quiet();
    settleQuiet(store, SESSION, "s1", { kind: "ended", status: "error", error: "model said no", at: T0 + 9 }, quietAt, STALE);
    expect(summary(store, quietAt)).toMatchObject({ status: "error", lastError: "model said no" });
    expect(claimThread(store, SESSION, quietAt, STALE)).toMatchObject({ ok: true });
  });

  it("a run the agent has no record of ends failed, saying so", () => {
    const store = quiet();
    settleQuiet(store, SESSION, "s1", { kind: "missing" }, quietAt, STALE);
    expect(summary(store, quietAt)).toMatchObject({ status: "error", lastError: MISSING_RUN_ERROR });
  });

  it("still active, or no answer: stale from then on, until activity makes it fresh again", () => {
    for (const truth of [{ kind: "active" as const }, { kind: "unreachable" as const, error: "timed out" }]) {
      const store = quiet();
      expect(settleQuiet(store, SESSION, "s1", truth, quietAt, STALE)).toBe(true);
      expect(isStale(store.getThread(SESSION)!, quietAt, STALE)).toBe(true);
      expect(needsQuietCheck(store.getThread(SESSION)!, quietAt, STALE)).toBe(false);
      // The check is not part of what the dashboard gets.
      expect(summary(store, quietAt)).not.toHaveProperty("quietCheckedAt");
      recordEvent(store, { type: "tool", session: SESSION, submissionId: "s1", tool: "bash", ok: true, toolCallId: "t", at: quietAt + 5 });
      expect(summary(store, quietAt + 10).stale).toBe(false);
      // Quiet again later: asked again.
      expect(needsQuietCheck(store.getThread(SESSION)!, quietAt + 6 + STALE, STALE)).toBe(true);
    }
  });

  it("changes nothing for a thread that is not quiet, not that run, or claimed", () => {
    const store = quiet();
    expect(settleQuiet(store, SESSION, "s1", { kind: "missing" }, T0 + 10, STALE)).toBe(false);
    expect(settleQuiet(store, SESSION, "other", { kind: "missing" }, quietAt, STALE)).toBe(false);
    expect(settleQuiet(store, "nobody-1", "s1", { kind: "missing" }, quietAt, STALE)).toBe(false);
    expect(summary(store, T0 + 10)).toMatchObject({ status: "running" });
  });

  it("a claimed thread waits on its claim, stale on the clock alone", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 5, "error"));
    claimThread(store, SESSION, T0 + 10, STALE);
    const later = T0 + 11 + STALE;
    expect(needsQuietCheck(store.getThread(SESSION)!, later, STALE)).toBe(false);
    expect(isStale(store.getThread(SESSION)!, later, STALE)).toBe(true);
  });

  it("an end the run already had marks it asked rather than asking forever", () => {
    const store = quiet();
    const record = store.getThread(SESSION)!;
    // The run's record ended but the thread did not follow (as if written by an older version).
    store.putRun({ ...store.getRun(SESSION, "s1")!, endedAt: T0 + 1, status: "done" });
    store.putThread(record);
    expect(settleQuiet(store, SESSION, "s1", { kind: "ended", status: "done", at: T0 + 1 }, quietAt, STALE)).toBe(true);
    expect(needsQuietCheck(store.getThread(SESSION)!, quietAt, STALE)).toBe(false);
  });

  it("reads the agent's answer from its submission", () => {
    expect(quietTruthOf(null, T0)).toEqual({ kind: "missing" });
    expect(quietTruthOf({ status: "pending" }, T0)).toEqual({ kind: "active" });
    expect(quietTruthOf({ status: "running" }, T0)).toEqual({ kind: "active" });
    expect(quietTruthOf({ status: "completed", completedAt: T0 - 5 }, T0)).toEqual({ kind: "ended", status: "done", at: T0 - 5 });
    expect(quietTruthOf({ status: "error", error: "boom" }, T0)).toEqual({ kind: "ended", status: "error", error: "boom", at: T0 });
    expect(quietTruthOf({ status: "aborted", error: "stop" }, T0)).toEqual({ kind: "ended", status: "cancelled", at: T0 });
    expect(quietTruthOf({ status: "skipped" }, T0)).toMatchObject({ status: "cancelled" });
  });
});
