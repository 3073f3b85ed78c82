/**
 * The ThinkAgent's running turn (src/steps/active-turn.ts) over in-memory
 * storage and a scripted workspace: it survives a new isolate through
 * storage, tells the workspace when a turn begins and ends, forgets only the
 * turn that ended, and never throws when the workspace cannot be told.
 */
import { describe, expect, it } from "vitest";
import { ACTIVE_TURN_KEY, ActiveTurn, type TurnWorkspace } from "../../src/steps/active-turn";

function memoryStorage() {
  const map = new Map<string, unknown>();
  return {
    map,
    get: async <T>(key: string) => map.get(key) as T | undefined,
    put: async <T>(key: string, value: T) => {
      map.set(key, value);
    },
    delete: async (key: string) => map.delete(key)
  };
}

function setup(workspace: Partial<TurnWorkspace> = {}, storage = memoryStorage()) {
  const told: string[] = [];
  const lines: Array<{ event: string; fields: Record<string, unknown> }> = [];
  const turns = new ActiveTurn({
    storage,
    workspace: async () => ({
      beginTurn: async (turn) => {
        told.push(`begin ${turn.submissionId}`);
        await workspace.beginTurn?.(turn);
      },
      endTurn: async (turn, outcome) => {
        told.push(`end ${turn.submissionId} ${outcome}`);
        return (await workspace.endTurn?.(turn, outcome)) ?? { released: true };
      }
    }),
    log: (event, fields) => lines.push({ event, fields })
  });
  return { turns, told, lines, storage };
}

const A = { session: "acme-widgets-1", submissionId: "sub-a" };
const B = { session: "acme-widgets-1", submissionId: "sub-b" };

describe("ActiveTurn", () => {
  it("keeps the running turn durably: a new isolate over the same storage reads it back", async () => {
    const { turns, told, storage } = setup();
    expect(await turns.current()).toBeNull();
    await turns.begin(A);
    expect(told).toEqual(["begin sub-a"]);
    expect(storage.map.get(ACTIVE_TURN_KEY)).toEqual(A);
    expect(await setup({}, storage).turns.current()).toEqual(A);
  });

  it("ends a turn: gives its container back, then forgets it", async () => {
    const { turns, told, lines, storage } = setup();
    await turns.begin(A);
    await turns.end(A, "completed");
    expect(told).toEqual(["begin sub-a", "end sub-a completed"]);
    expect(await turns.current()).toBeNull();
    expect(storage.map.has(ACTIVE_TURN_KEY)).toBe(false);
    expect(lines).toContainEqual({ event: "turn:released", fields: { submissionId: "sub-a", outcome: "completed", container: true } });
  });

  it("forgets only the turn that ended: a later turn that began meanwhile stays current", async () => {
    const { turns, storage } = setup();
    await turns.begin(A);
    await turns.begin(B);
    await turns.end(A, "aborted");
    expect(await turns.current()).toEqual(B);
    expect(storage.map.get(ACTIVE_TURN_KEY)).toEqual(B);
  });

  it("never throws when the workspace cannot be told: it logs, and still forgets the ended turn", async () => {
    const failing = { beginTurn: async () => Promise.reject(new Error("workspace evicted")), endTurn: async () => Promise.reject(new Error("rpc failed")) };
    const { turns, lines } = setup(failing);
    await expect(turns.begin(A)).resolves.toBeUndefined();
    expect(await turns.current()).toEqual(A);
    await expect(turns.end(A, "error")).resolves.toBeUndefined();
    expect(await turns.current()).toBeNull();
    expect(lines.map((line) => line.event)).toEqual(["turn:begin-failed", "turn:release-failed"]);
    expect(lines[1]!.fields).toMatchObject({ submissionId: "sub-a", error: "rpc failed" });
  });
});
