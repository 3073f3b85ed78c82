/**
 * takeEvent: a malformed event refused and logged with its field, a run's
 * end counted for its month every time it arrives, a run's first end (not
 * a duplicate) giving back its session's reporter reservation, and the runs
 * handed to the repositories' record.
 */
import { describe, expect, it } from "vitest";
import { takeEvent } from "../../src/command-center/event-intake";
import { MemoryRegistryStore } from "../command-center/memory-store";
import { COMMENT_URL, dispatched, ended, T0, tool } from "../command-center/registry-events";

function books() {
  const registry = new MemoryRegistryStore();
  const ends: string[] = [];
  const released: string[] = [];
  /** What the repositories' record was given: each run as it stood, or none. */
  const noted: string[] = [];
  const logged: Array<{ event: string; fields?: Record<string, unknown> }> = [];
  const take = (event: unknown) =>
    takeEvent(
      event,
      {
        registry: () => registry,
        ledger: () => ({ recordEnd: (end) => void ends.push(`${end.session}/${end.submissionId}`) }),
        reservations: () => ({ release: (session) => void released.push(session) }),
        repositories: () => ({ noteRun: (run) => void noted.push(run ? `${run.submissionId}:${run.endedAt === undefined ? "going" : run.status}` : "none") })
      },
      (event, fields) => void logged.push({ event, fields })
    );
  return { registry, take, ends, released, noted, logged };
}

describe("takeEvent", () => {
  it("refuses a malformed event, naming the field, and touches no book", () => {
    const { take, ends, released, noted, logged, registry } = books();
    expect(take({ ...dispatched(), issueNumber: "seven" })).toEqual({ applied: false, reason: "invalid" });
    expect(logged).toEqual([{ event: "event:invalid", fields: { field: "issueNumber", error: expect.any(String) } }]);
    expect(registry.threads.size).toBe(0);
    expect(ends).toEqual([]);
    expect(released).toEqual([]);
    expect(noted).toEqual([]);
  });

  it("applies an event to the registry", () => {
    const { take, registry } = books();
    expect(take(dispatched())).toEqual({ applied: true });
    expect(registry.getThread("acme-widgets-7")?.status).toBe("running");
  });

  it("counts every end for its month, and gives the reservation back on the first only", () => {
    const { take, ends, released } = books();
    take(dispatched());
    expect(take(ended(T0 + 1_000))).toEqual({ applied: true });
    expect(take(ended(T0 + 1_000))).toEqual({ applied: false, reason: "duplicate" });
    expect(ends).toEqual(["acme-widgets-7/s1", "acme-widgets-7/s1"]);
    expect(released).toEqual(["acme-widgets-7"]);
  });

  it("gives the reservation back for the end of a run that is no longer the thread's current one", () => {
    const { take, released } = books();
    take(dispatched());
    take(dispatched({ submissionId: "s2", at: T0 + 10 }));
    const result = take(ended(T0 + 20, "done", {}, "s1"));
    expect(result).toEqual({ applied: false, reason: "not_current" });
    expect(released).toEqual(["acme-widgets-7"]);
  });

  it("keeps a run's repository record on its dispatch, its first end and a posted message, a late run's too, and not on a tool call or a repeat", () => {
    const { take, noted } = books();
    take(dispatched());
    take(tool(T0 + 100, true, "call-1"));
    take(ended(T0 + 1_000, "error", { error: "boom" }));
    take(ended(T0 + 1_000, "error", { error: "boom" }));
    take({ type: "notice", session: "acme-widgets-7", submissionId: "s1", kind: "closing", state: "sent", url: COMMENT_URL, at: T0 + 1_200 });
    take(dispatched({ submissionId: "s2", at: T0 + 2_000 }));
    // An older run's end after a newer run's dispatch: not the thread's, still its repository's.
    take(dispatched({ submissionId: "s0", at: T0 - 5_000 }));
    expect(noted).toEqual(["s1:going", "s1:error", "s1:error", "s2:going", "s0:going"]);
  });
});
