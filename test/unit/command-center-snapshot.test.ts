import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../src/command-center/cursor";
import { recordEvent } from "../../src/command-center/registry";
import { snapshotPage, SnapshotOptionsError } from "../../src/command-center/snapshot";
import { snapshotSchema } from "../../src/shared/command-center";
import { MemoryRegistryStore } from "../command-center/memory-store";

const NOW = 1_700_000_000_000;

function seeded(count: number, sameTime = false) {
  const store = new MemoryRegistryStore();
  for (let i = 0; i < count; i++) {
    recordEvent(store, {
      type: "dispatched",
      session: `acme-repo-${i}`,
      repo: "acme/repo",
      issueNumber: i + 1,
      instruction: "reproduce this issue",
      submissionId: `sub-${i}`,
      at: sameTime ? NOW : NOW - count + i
    });
  }
  return store;
}

function pageAll(store: MemoryRegistryStore, limit: number) {
  const sessions: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1_000; pages++) {
    const page = snapshotPage(store, { limit, ...(cursor ? { cursor } : {}) }, NOW, 600_000);
    snapshotSchema.parse(page);
    sessions.push(...page.threads.map((thread) => thread.session));
    cursor = page.nextCursor;
    if (!cursor) return sessions;
  }
  throw new Error("paging did not end");
}

describe("cursor", () => {
  it("round-trips and refuses anything it did not write", () => {
    for (const cursor of [{ lastActivityAt: NOW, session: "a-b-1" }, { lastActivityAt: 0, session: "ü:x" }, { lastActivityAt: 1.5, session: "s" }]) {
      expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    }
    for (const bad of ["", "!!", "bm9wZQ", "a".repeat(2_000), btoa(":a-b-1"), btoa("-1:a"), btoa("12:")]) {
      expect(decodeCursor(bad)).toBeNull();
    }
  });
});

describe("snapshotPage", () => {
  it("lists threads newest activity first with the total and metrics", () => {
    const page = snapshotPage(seeded(5), { limit: 3 }, NOW, 600_000);
    expect(page.threads.map((t) => t.session)).toEqual(["acme-repo-4", "acme-repo-3", "acme-repo-2"]);
    expect(page.total).toBe(5);
    expect(page.metrics.runs24h).toBe(5);
    expect(page.generatedAt).toBe(NOW);
    expect(page.nextCursor).toBeTypeOf("string");
  });

  it("lists a cancelled thread as cancelled, not stale and without an error, and parses", () => {
    const store = seeded(3);
    recordEvent(store, { type: "turn-ended", session: "acme-repo-0", submissionId: "sub-0", status: "cancelled", at: NOW + 5 });
    recordEvent(store, { type: "turn-ended", session: "acme-repo-1", submissionId: "sub-1", status: "error", error: "boom", at: NOW + 2 });
    recordEvent(store, { type: "turn-ended", session: "acme-repo-2", submissionId: "sub-2", status: "done", at: NOW + 1 });
    const page = snapshotSchema.parse(snapshotPage(store, {}, NOW + 10 * 600_000, 600_000));
    expect(page.threads.map((t) => [t.session, t.status, t.stale, t.lastError])).toEqual([
      ["acme-repo-0", "cancelled", false, undefined],
      ["acme-repo-1", "error", false, "boom"],
      ["acme-repo-2", "done", false, undefined]
    ]);
    // One done of one done and one failed: the cancelled run is not judged.
    expect(page.metrics.successRate).toBe(0.5);
  });

  it("pages through every thread exactly once, ties on activity included", () => {
    for (const sameTime of [false, true]) {
      const store = seeded(437, sameTime);
      for (const limit of [3, 7, 50, 200]) {
        const sessions = pageAll(store, limit);
        expect(sessions).toHaveLength(437);
        expect(new Set(sessions).size).toBe(437);
      }
    }
  });

  it("has no next cursor on the last page, even a full one", () => {
    const page = snapshotPage(seeded(4), { limit: 4 }, NOW, 600_000);
    expect(page.threads).toHaveLength(4);
    expect(page.nextCursor).toBeUndefined();
    expect(snapshotPage(new MemoryRegistryStore(), {}, NOW, 600_000)).toMatchObject({ threads: [], total: 0 });
  });

  it("refuses a bad limit or cursor", () => {
    const store = seeded(1);
    for (const limit of [0, 201, 1.5, Number.NaN]) {
      expect(() => snapshotPage(store, { limit }, NOW, 600_000)).toThrow(SnapshotOptionsError);
    }
    expect(() => snapshotPage(store, { cursor: "nope!" }, NOW, 600_000)).toThrow(SnapshotOptionsError);
  });
});
