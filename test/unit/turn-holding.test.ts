/**
 * TurnHolding: what a WorkspaceAgent holds, with a turn its ThinkAgent
 * reports ended ended here first; an unknown submission, a running one or
 * an agent that cannot say leaves the turn held.
 */
import { describe, expect, it } from "vitest";
import { TurnHolding, type Held, type TurnHoldingDeps } from "../../src/pool/turn-holding";

function holding(held: Held, status: TurnHoldingDeps["status"]) {
  let current = held;
  const ended: string[] = [];
  const logged: Array<{ event: string; fields?: Record<string, unknown> }> = [];
  const turns = new TurnHolding({
    holding: async () => current,
    status,
    end: async (submissionId) => {
      ended.push(submissionId);
      current = {};
    },
    log: (event, fields) => void logged.push({ event, fields })
  });
  return { turns, ended, logged };
}

const HELD: Held = { submissionId: "sub-1", sandboxId: "box-1" };

describe("TurnHolding", () => {
  it("ends a held turn whose submission ended, and answers what is held after", async () => {
    const { turns, ended, logged } = holding(HELD, async () => ({ status: "completed" }));
    expect(await turns.current()).toEqual({});
    expect(ended).toEqual(["sub-1"]);
    expect(logged).toEqual([{ event: "turn:ended-elsewhere", fields: { submissionId: "sub-1", sandboxId: "box-1" } }]);
  });

  it("keeps a turn whose submission is running or unknown", async () => {
    for (const status of [async () => ({ status: "running" as const }), async () => null]) {
      const { turns, ended } = holding(HELD, status);
      expect(await turns.current()).toEqual(HELD);
      expect(ended).toEqual([]);
    }
  });

  it("keeps the turn when the agent cannot say, and logs why", async () => {
    const { turns, ended, logged } = holding(HELD, async () => Promise.reject(new Error("agent unreachable")));
    expect(await turns.current()).toEqual(HELD);
    expect(ended).toEqual([]);
    expect(logged).toEqual([{ event: "turn:status-unknown", fields: { submissionId: "sub-1", error: "agent unreachable" } }]);
  });

  it("asks nothing when no turn is held", async () => {
    let asked = 0;
    const { turns } = holding({}, async () => (asked++, null));
    expect(await turns.current()).toEqual({});
    expect(asked).toBe(0);
  });
});
