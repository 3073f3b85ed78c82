/**
 * QuietRuns, reconciliation as the command center drives it: which threads
 * a pass asks about and how many, the answers applied in one transaction, an
 * ended run's reservation given back, an agent that does not answer in time
 * counted unreachable, and a claim asking first only about a quiet thread.
 */
import { describe, expect, it } from "vitest";
import { QuietRuns, RECONCILE_BATCH, type QuietRunsDeps } from "../../src/command-center/quiet-runs";
import type { QuietTruth } from "../../src/command-center/reconcile";
import { recordEvent } from "../../src/command-center/registry";
import { MemoryRegistryStore } from "../command-center/memory-store";
import { dispatched, STALE, started, T0 } from "../command-center/registry-events";

/** A running thread per session, last active at T0. */
function storeWith(sessions: string[]): MemoryRegistryStore {
  const store = new MemoryRegistryStore();
  for (const session of sessions) {
    recordEvent(store, dispatched({ session }));
    recordEvent(store, { ...started(T0), session } as Parameters<typeof recordEvent>[1]);
  }
  return store;
}

function quietRuns(store: MemoryRegistryStore, answer: (session: string) => Promise<QuietTruth>, extra: Partial<QuietRunsDeps> = {}) {
  const asked: string[] = [];
  const released: string[] = [];
  const noted: string[] = [];
  const logged: Array<Record<string, unknown> | undefined> = [];
  let changed = 0;
  let transactions = 0;
  const quiet = new QuietRuns({
    store: () => store,
    ask: (session, submissionId) => {
      asked.push(`${session}/${submissionId}`);
      return answer(session);
    },
    transaction: (apply) => {
      transactions++;
      return apply();
    },
    release: (session) => void released.push(session),
    noteEnd: (session, submissionId) => void noted.push(`${session}/${submissionId}`),
    staleRunMs: () => STALE,
    changed: () => void changed++,
    log: (_event, fields) => void logged.push(fields),
    ...extra
  });
  return { quiet, asked, released, noted, logged, counts: () => ({ changed, transactions }) };
}

const QUIET_AT = T0 + STALE + 1;

describe("QuietRuns", () => {
  it("asks about the quiet threads, applies the answers in one transaction, and gives an ended run's reservation back", async () => {
    const store = storeWith(["a", "b", "c"]);
    const answers: Record<string, QuietTruth> = {
      a: { kind: "ended", status: "error", error: "the turn failed", at: T0 + 10 },
      b: { kind: "unreachable", error: "no answer" },
      c: { kind: "missing" }
    };
    const { quiet, asked, released, noted, logged, counts } = quietRuns(store, async (session) => answers[session]!);
    expect(await quiet.pass(QUIET_AT)).toBe(false);
    expect(asked.sort()).toEqual(["a/s1", "b/s1", "c/s1"]);
    expect(store.getThread("a")?.status).toBe("error");
    expect(store.getThread("b")?.quietCheckedAt).toBe(QUIET_AT);
    expect(store.getThread("c")?.lastError).toMatch(/no record/);
    expect(released.sort()).toEqual(["a", "c"]);
    // The ended runs follow in their repositories' records.
    expect(noted.sort()).toEqual(["a/s1", "c/s1"]);
    expect(counts()).toEqual({ changed: 1, transactions: 1 });
    expect(logged.map((fields) => [fields?.session, fields?.truth, fields?.error]).sort()).toEqual([
      ["a", "ended", undefined],
      ["b", "unreachable", "no answer"],
      ["c", "missing", undefined]
    ]);
  });

  it("asks nothing of threads that are not quiet, or were asked already", async () => {
    const store = storeWith(["a"]);
    const { quiet, asked, counts } = quietRuns(store, async () => ({ kind: "active" }));
    expect(await quiet.pass(T0 + STALE)).toBe(false);
    expect(asked).toEqual([]);
    await quiet.pass(QUIET_AT);
    await quiet.pass(QUIET_AT + 1);
    expect(asked).toEqual(["a/s1"]);
    expect(counts()).toEqual({ changed: 1, transactions: 1 });
  });

  it("asks about a batch a pass and says more are waiting", async () => {
    const sessions = Array.from({ length: RECONCILE_BATCH + 3 }, (_, i) => `s-${i}`);
    const store = storeWith(sessions);
    const { quiet, asked } = quietRuns(store, async () => ({ kind: "active" }));
    expect(await quiet.pass(QUIET_AT)).toBe(true);
    expect(asked).toHaveLength(RECONCILE_BATCH);
    expect(await quiet.pass(QUIET_AT)).toBe(false);
    expect(asked).toHaveLength(RECONCILE_BATCH + 3);
  });

  it("counts an agent that does not answer in time as unreachable", async () => {
    const store = storeWith(["a"]);
    const { quiet, logged } = quietRuns(store, () => new Promise<QuietTruth>(() => {}), { timeoutMs: 5 });
    await quiet.pass(QUIET_AT);
    expect(logged).toEqual([{ session: "a", submissionId: "s1", truth: "unreachable", error: "no answer in 5 ms" }]);
    expect(store.getThread("a")?.quietCheckedAt).toBe(QUIET_AT);
  });

  it("asks before a claim only about a quiet thread it has not asked about", async () => {
    const store = storeWith(["a"]);
    const { quiet, asked } = quietRuns(store, async () => ({ kind: "active" }));
    await quiet.beforeClaim("a", T0 + 1);
    await quiet.beforeClaim("unknown", QUIET_AT);
    expect(asked).toEqual([]);
    await quiet.beforeClaim("a", QUIET_AT);
    await quiet.beforeClaim("a", QUIET_AT);
    expect(asked).toEqual(["a/s1"]);
  });
});
