/**
 * Continuation claims on a thread (thread-claims.ts) and when a thread is
 * stale or claimable (staleness.ts): what the Continue button and a
 * maintainer's `continue` may take, and `STALE_RUN_MS`. Plain, over the
 * in-memory store.
 */
import { describe, expect, it } from "vitest";
import { recordEvent } from "../../src/command-center/registry";
import { isClaimable, isStale, parseStaleRunMs } from "../../src/command-center/staleness";
import { claimThread, releaseClaim } from "../../src/command-center/thread-claims";
import { threadDetailSchema } from "../../src/shared/command-center";
import { threadDetail } from "../../src/command-center/snapshot";
import { MemoryRegistryStore } from "../command-center/memory-store";
import { askedActive, COMMENT_URL, dispatched, ended, STALE, T0, thread, tool } from "../command-center/registry-events";

describe("thread registry: continuation claims", () => {
  function failed() {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 10, "error", { error: "boom" }));
    return store;
  }

  it("claims a failed thread once: running again, one more run", () => {
    const store = failed();
    const claim = claimThread(store, "acme-widgets-7", T0 + 1_000, STALE);
    expect(claim).toMatchObject({ ok: true, thread: { status: "running", runCount: 2, stale: false, lastActivityAt: T0 + 1_000 } });
    expect(claimThread(store, "acme-widgets-7", T0 + 1_001, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
  });

  it("reports unknown threads and threads that are done or still active", () => {
    const store = new MemoryRegistryStore();
    expect(claimThread(store, "nope-1", T0, STALE)).toEqual({ ok: false, reason: "not_found" });
    recordEvent(store, dispatched());
    expect(claimThread(store, "acme-widgets-7", T0 + STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
    recordEvent(store, ended(T0 + 10, "done"));
    expect(claimThread(store, "acme-widgets-7", T0 + 10 * STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
  });

  it("never claims a cancelled thread, however long ago it ended", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 10, "cancelled"));
    expect(isClaimable(store.getThread("acme-widgets-7")!, T0 + 10 * STALE, STALE)).toBe(false);
    expect(claimThread(store, "acme-widgets-7", T0 + 10 * STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
    expect(thread(store)).toMatchObject({ status: "cancelled", runCount: 1 });
  });

  it("a claimed continuation that is cancelled ends cancelled, and is not claimable again", () => {
    const store = failed();
    claimThread(store, "acme-widgets-7", T0 + 1_000, STALE);
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 1_100, instruction: "continue" }));
    recordEvent(store, ended(T0 + 1_500, "cancelled", {}, "s2"));
    expect(thread(store)).toMatchObject({ status: "cancelled", runCount: 2, durationMs: 400 });
    expect(claimThread(store, "acme-widgets-7", T0 + 10 * STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
  });

  it("claims a stale running thread and gives up its run for the metrics", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 100, true, "a"));
    expect(isStale(store.getThread("acme-widgets-7")!, T0 + 100 + STALE, STALE)).toBe(false);
    // Quiet, but its agent has not been asked yet: not stale, not claimable.
    expect(isStale(store.getThread("acme-widgets-7")!, T0 + 101 + STALE, STALE)).toBe(false);
    expect(claimThread(store, "acme-widgets-7", T0 + 101 + STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
    askedActive(store, T0 + 101 + STALE);
    expect(isStale(store.getThread("acme-widgets-7")!, T0 + 101 + STALE, STALE)).toBe(true);
    expect(thread(store, T0 + 101 + STALE)?.stale).toBe(true);
    expect(claimThread(store, "acme-widgets-7", T0 + 100 + STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });

    const claim = claimThread(store, "acme-widgets-7", T0 + 101 + STALE, STALE);
    expect(claim).toMatchObject({ ok: true, thread: { status: "running", runCount: 2, stale: false } });
    expect(store.getRun("acme-widgets-7", "s1")).toMatchObject({ status: "error", endedAt: T0 + 101 + STALE });
    expect(store.getRun("acme-widgets-7", "s1")?.error).toMatch(/^abandoned: no activity for 600 s$/);
  });

  it("the continuation's dispatch takes the claim without counting the run twice", () => {
    const store = failed();
    claimThread(store, "acme-widgets-7", T0 + 1_000, STALE);
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 1_100, instruction: "continue" }));
    expect(thread(store)).toMatchObject({ submissionId: "s2", runCount: 2, status: "running" });
    expect(store.getThread("acme-widgets-7")?.claim).toBeUndefined();
    recordEvent(store, ended(T0 + 2_000, "done", {}, "s2"));
    expect(thread(store)).toMatchObject({ status: "done", runCount: 2 });
  });

  it("the old run's late events do not reach a claimed thread", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    askedActive(store, T0 + STALE + 1);
    claimThread(store, "acme-widgets-7", T0 + STALE + 1, STALE);
    expect(recordEvent(store, ended(T0 + STALE + 2, "done"))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, tool(T0 + STALE + 3, true, "late"))).toEqual({ applied: false, reason: "not_current" });
    expect(thread(store)).toMatchObject({ status: "running", toolCalls: 0, runCount: 2 });
  });

  it("a released claim shows the error and can be claimed again", () => {
    const store = failed();
    claimThread(store, "acme-widgets-7", T0 + 1_000, STALE);
    expect(releaseClaim(store, "acme-widgets-7", T0 + 1_200, "could not mint a token")).toBe(true);
    expect(thread(store)).toMatchObject({ status: "error", runCount: 1, lastError: "could not mint a token", lastActivityAt: T0 + 1_200 });
    expect(releaseClaim(store, "acme-widgets-7", T0 + 1_300)).toBe(false);
    expect(claimThread(store, "acme-widgets-7", T0 + 1_400, STALE)).toMatchObject({ ok: true, thread: { runCount: 2 } });
    expect(releaseClaim(store, "acme-widgets-7", T0 + 1_500)).toBe(true);
    expect(thread(store)?.lastError).toBe("could not mint a token");
    expect(releaseClaim(store, "unknown-1", T0)).toBe(false);
  });

  it("a claim never followed by its dispatch goes stale and can be claimed again", () => {
    const store = failed();
    claimThread(store, "acme-widgets-7", T0 + 1_000, STALE);
    expect(claimThread(store, "acme-widgets-7", T0 + 1_000 + STALE, STALE)).toMatchObject({ ok: false, reason: "not_claimable" });
    expect(claimThread(store, "acme-widgets-7", T0 + 1_001 + STALE, STALE)).toMatchObject({ ok: true, thread: { runCount: 2 } });
  });

  it("says why a thread is not claimable: its status (still going, or ended done or cancelled)", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    expect(claimThread(store, "acme-widgets-7", T0 + 1, STALE)).toEqual({ ok: false, reason: "not_claimable", status: "running" });
    recordEvent(store, ended(T0 + 10, "done"));
    expect(claimThread(store, "acme-widgets-7", T0 + 11, STALE)).toEqual({ ok: false, reason: "not_claimable", status: "done" });
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 20 }));
    recordEvent(store, ended(T0 + 30, "cancelled", {}, "s2"));
    expect(claimThread(store, "acme-widgets-7", T0 + 31, STALE)).toEqual({ ok: false, reason: "not_claimable", status: "cancelled" });
  });

  it("records a continuation from GitHub on its run and the thread, from the claim its `continue` took", () => {
    const store = failed();
    const fromGitHub = { login: "alice", commentUrl: COMMENT_URL };
    expect(claimThread(store, "acme-widgets-7", T0 + 1_000, STALE, fromGitHub).ok).toBe(true);
    // The claim is the command center's own: the thread lists no continuation until its dispatch arrives.
    expect(thread(store)?.continuedFromGitHub).toBeUndefined();
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 1_100 }));
    expect(thread(store)).toMatchObject({ status: "running", runCount: 2, continuedFromGitHub: fromGitHub });
    expect(thread(store)?.continuedBy).toBeUndefined();
    expect(store.getRun("acme-widgets-7", "s2")?.continuedFromGitHub).toEqual(fromGitHub);
    const detail = threadDetail(store, "acme-widgets-7", T0 + 1_200, STALE);
    expect(detail?.runs.map((run) => [run.submissionId, run.continuedFromGitHub])).toEqual([
      ["s2", fromGitHub],
      ["s1", undefined]
    ]);
    expect(threadDetailSchema.parse(detail)).toEqual(detail);

    // The next run a mention starts is nobody's continuation.
    recordEvent(store, ended(T0 + 1_500, "done", {}, "s2"));
    recordEvent(store, dispatched({ submissionId: "s3", at: T0 + 2_000 }));
    expect(thread(store)?.continuedFromGitHub).toBeUndefined();
  });

  it("a dashboard continuation names its operator, whatever claim came before it", () => {
    const store = failed();
    claimThread(store, "acme-widgets-7", T0 + 1_000, STALE, { login: "alice" });
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 1_100, continuedBy: "ops@example.com" }));
    expect(thread(store)).toMatchObject({ continuedBy: "ops@example.com" });
    expect(thread(store)?.continuedFromGitHub).toBeUndefined();
  });
});

describe("STALE_RUN_MS", () => {
  it("parses a positive integer and falls back to ten minutes", () => {
    expect(parseStaleRunMs("1500")).toBe(1500);
    for (const bad of [undefined, "", " ", "0", "-5", "1.5", "ten"]) expect(parseStaleRunMs(bad)).toBe(600_000);
  });
});
