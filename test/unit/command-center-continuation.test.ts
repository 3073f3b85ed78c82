import { describe, expect, it } from "vitest";
import { continueThread, SUBMIT_FAILED_ERROR, TOKEN_FAILED_ERROR, type ContinuationDeps } from "../../src/command-center/continuation";
import { recordEvent } from "../../src/command-center/registry";
import { toSummary } from "../../src/command-center/staleness";
import { claimThread, releaseClaim } from "../../src/command-center/thread-claims";
import { MemoryRegistryStore } from "../command-center/memory-store";

const NOW = 1_700_000_000_000;

function setup(fail: { mint?: boolean; submit?: boolean; release?: boolean } = {}) {
  const store = new MemoryRegistryStore();
  recordEvent(store, { type: "dispatched", session: "acme-w-1", repo: "acme/w", issueNumber: 1, instruction: "x", submissionId: "s1", at: NOW });
  recordEvent(store, { type: "turn-ended", session: "acme-w-1", submissionId: "s1", status: "error", error: "boom", at: NOW + 1 });
  const calls: string[] = [];
  const deps: ContinuationDeps = {
    claim: async (session) => claimThread(store, session, NOW + 10, 600_000),
    release: async (session, error) => {
      calls.push(`release ${error}`);
      if (fail.release) throw new Error("release down");
      return releaseClaim(store, session, NOW + 20, error);
    },
    mintToken: async (repo) => {
      calls.push(`mint ${repo}`);
      if (fail.mint) throw new Error("broker down");
      return "ghs_fresh";
    },
    submit: async (thread, token) => {
      calls.push(`submit ${thread.session} ${token}`);
      if (fail.submit) throw new Error("submit failed");
      return { session: thread.session, submissionId: "s2" };
    }
  };
  const thread = () => toSummary(store.getThread("acme-w-1")!, NOW + 30, 600_000);
  return { deps, calls, thread };
}

describe("continueThread", () => {
  it("claims, mints a token for the thread's repo and submits", async () => {
    const { deps, calls, thread } = setup();
    expect(await continueThread("acme-w-1", deps)).toEqual({ ok: true, result: { session: "acme-w-1", submissionId: "s2" } });
    expect(calls).toEqual(["mint acme/w", "submit acme-w-1 ghs_fresh"]);
    expect(thread()).toMatchObject({ status: "running", runCount: 2 });
  });

  it("returns the claim's refusal and does nothing else", async () => {
    const { deps, calls } = setup();
    expect(await continueThread("nobody-1", deps)).toEqual({ ok: false, reason: "not_found" });
    await continueThread("acme-w-1", deps);
    calls.length = 0;
    expect(await continueThread("acme-w-1", deps)).toMatchObject({ ok: false, reason: "not_claimable" });
    expect(calls).toEqual([]);
  });

  it("gives the claim back when no token can be minted, and rethrows", async () => {
    const { deps, calls, thread } = setup({ mint: true });
    await expect(continueThread("acme-w-1", deps)).rejects.toThrow("broker down");
    expect(calls).toEqual(["mint acme/w", `release ${TOKEN_FAILED_ERROR}`]);
    expect(thread()).toMatchObject({ status: "error", runCount: 1, lastError: TOKEN_FAILED_ERROR });
  });

  it("gives the claim back when the submit fails, even if the release fails too", async () => {
    const { deps, thread } = setup({ submit: true });
    await expect(continueThread("acme-w-1", deps)).rejects.toThrow("submit failed");
    expect(thread()).toMatchObject({ status: "error", lastError: SUBMIT_FAILED_ERROR });
    const broken = setup({ submit: true, release: true });
    await expect(continueThread("acme-w-1", broken.deps)).rejects.toThrow("submit failed");
  });
});
