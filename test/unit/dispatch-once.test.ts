/**
 * The duplicate-dispatch guard (src/run/dispatch-once.ts) on in-memory
 * storage: the first dispatch of a comment runs and is recorded, a later one
 * gets the same submission without running, concurrent duplicates share the
 * first one's outcome, a failed first dispatch records nothing, and a
 * dispatch with no comment id always runs. In the Workers runtime:
 * test/dispatch-storm.test.ts.
 */
import { describe, expect, it } from "vitest";
import { DispatchOnce, dispatchKey, type DispatchOnceStorage } from "../../src/run/dispatch-once";

function memoryStorage(): DispatchOnceStorage & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    async get<T>(key: string) {
      return data.get(key) as T | undefined;
    },
    async put<T>(key: string, value: T) {
      data.set(key, value);
    }
  };
}

function counter() {
  let n = 0;
  const start = async () => {
    n += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { submissionId: `sub-${n}`, accepted: true };
  };
  return { start, runs: () => n };
}

describe("DispatchOnce", () => {
  it("runs the first dispatch of a comment, records it, and answers a later one without running", async () => {
    const storage = memoryStorage();
    const once = new DispatchOnce(storage);
    const { start, runs } = counter();
    expect(await once.run(7, start)).toEqual({ submissionId: "sub-1", accepted: true });
    expect(storage.data.get(dispatchKey(7))).toBe("sub-1");
    expect(await once.run(7, start)).toEqual({ submissionId: "sub-1", accepted: false });
    // A fresh object over the same storage (after eviction) still knows it.
    expect(await new DispatchOnce(storage).run(7, start)).toEqual({ submissionId: "sub-1", accepted: false });
    expect(runs()).toBe(1);
  });

  it("gives concurrent duplicates the first one's submission, running once", async () => {
    const once = new DispatchOnce(memoryStorage());
    const { start, runs } = counter();
    const results = await Promise.all(Array.from({ length: 50 }, () => once.run(9, start)));
    expect(new Set(results.map((r) => r.submissionId))).toEqual(new Set(["sub-1"]));
    expect(results.filter((r) => r.accepted)).toHaveLength(1);
    expect(runs()).toBe(1);
  });

  it("records nothing when the first dispatch fails, so a retry runs", async () => {
    const storage = memoryStorage();
    const once = new DispatchOnce(storage);
    await expect(once.run(3, async () => Promise.reject(new Error("no model")))).rejects.toThrow("no model");
    expect(storage.data.size).toBe(0);
    const { start, runs } = counter();
    expect(await once.run(3, start)).toEqual({ submissionId: "sub-1", accepted: true });
    expect(runs()).toBe(1);
  });

  it("always runs a dispatch with no comment id, recording nothing", async () => {
    const storage = memoryStorage();
    const once = new DispatchOnce(storage);
    const { start, runs } = counter();
    await once.run(undefined, start);
    await once.run(undefined, start);
    expect(runs()).toBe(2);
    expect(storage.data.size).toBe(0);
  });

});
