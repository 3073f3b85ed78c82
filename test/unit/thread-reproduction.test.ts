/**
 * The thread's reproduction carries the tier of the run that recorded it:
 * RunClosing (src/steps/run-closing.ts) records it from the ended
 * submission's metadata through the real ThreadReproductions and RunLedger
 * on in-memory storage, and `mayRerun` decides which run re-runs it
 * (same or higher tier; a record without one is no one's to trust).
 */
import { describe, expect, it } from "vitest";
import { RunClosing } from "../../src/steps/run-closing";
import { RunLedger } from "../../src/run/run-ledger";
import { mayRerun, recordingTier, ThreadReproductions, THREAD_REPRODUCTION_KEY } from "../../src/run/thread-reproduction";
import { memoryClonedStorage, memoryLedgerStorage } from "./memory-storage";

const REPRODUCED = { outcome: "reproduced", summary: "sum(2, 2) is 5.", steps: ["npm run repro"], evidence: "README.md", check: "npm run repro" } as const;

async function close(metadata: Record<string, unknown> | undefined, result: unknown = REPRODUCED) {
  const storage = memoryClonedStorage();
  const reproductions = new ThreadReproductions(storage);
  const ledger = new RunLedger(memoryLedgerStorage());
  await ledger.recordResult("sub-1", result as never);
  const closing = new RunClosing({
    ledger,
    reports: { blocked: () => {}, privateSources: () => {}, turnEnded: async () => {} },
    reproductions,
    runRef: async () => null,
    transcript: async () => [],
    redact: (text) => text,
    interruptedMessage: () => "interrupted",
    maxSteps: () => 250,
    forgetPrepared: () => {}
  });
  await closing.close({ submissionId: "sub-1", status: "completed", completedAt: 1_000, ...(metadata ? { metadata } : {}) });
  return { reproductions, storage };
}

describe("a recorded check's tier", () => {
  it("is the ended run's: a reporter for `tier: \"reporter\"` in its metadata, else a maintainer", async () => {
    expect(await (await close({ tier: "reporter" })).reproductions.latest()).toEqual({ submissionId: "sub-1", at: 1_000, tier: "reporter", check: "npm run repro" });
    expect(await (await close({ requestedBy: "octocat" })).reproductions.latest()).toMatchObject({ tier: "maintainer" });
    expect(await (await close(undefined)).reproductions.latest()).toMatchObject({ tier: "maintainer" });
    // Anything else in the field is not a reporter's word for it, and not a tier of its own.
    expect(await (await close({ tier: "admin" })).reproductions.latest()).toMatchObject({ tier: "maintainer" });
  });

  it("is recorded only with a reproduction", async () => {
    const { storage } = await close({ tier: "reporter" }, { outcome: "not-reproduced", summary: "no", steps: ["looked"], evidence: "none" });
    expect(await storage.get(THREAD_REPRODUCTION_KEY)).toBeUndefined();
  });

  it("decides who re-runs the check: a run of the same or a lower tier; a record without a tier, no one", () => {
    expect(mayRerun("maintainer", "maintainer")).toBe(true);
    expect(mayRerun("maintainer", "reporter")).toBe(true);
    expect(mayRerun("reporter", "reporter")).toBe(true);
    expect(mayRerun("reporter", "maintainer")).toBe(false);
    expect(mayRerun(undefined, "maintainer")).toBe(false);
    expect(mayRerun(undefined, "reporter")).toBe(false);
    expect([recordingTier(undefined), recordingTier("reporter")]).toEqual(["maintainer", "reporter"]);
  });
});
