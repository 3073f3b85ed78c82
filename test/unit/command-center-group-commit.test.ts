import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../src/command-center/group-commit";
import { askWithin } from "../../src/command-center/reconcile";

describe("GroupCommit", () => {
  it("applies the calls made together as one group, answering each its own result", async () => {
    const groups: unknown[][] = [];
    const commit = new GroupCommit<string>((events) => {
      groups.push([...events]);
      return events.map((event) => `applied ${String(event)}`);
    }, 100);
    const answers = await Promise.all(["a", "b", "c"].map((event) => commit.add(event)));
    expect(answers).toEqual(["applied a", "applied b", "applied c"]);
    expect(groups).toEqual([["a", "b", "c"]]);
    expect(await commit.add("d")).toBe("applied d");
    expect(groups).toEqual([["a", "b", "c"], ["d"]]);
  });

  it("closes a full group at once, without waiting for the timer", async () => {
    const groups: number[] = [];
    const commit = new GroupCommit<number>((events) => {
      groups.push(events.length);
      return events.map(() => 0);
    }, 2);
    const first = [commit.add(1), commit.add(2)];
    // The full group was applied synchronously, before any timer could run.
    expect(groups).toEqual([2]);
    await Promise.all([...first, commit.add(3)]);
    expect(groups).toEqual([2, 1]);
  });

  it("rejects every call of a group whose apply threw, and the next group starts clean", async () => {
    let fail = true;
    const commit = new GroupCommit<string>((events) => {
      if (fail) throw new Error("storage failed");
      return events.map(String);
    }, 10);
    const results = await Promise.allSettled([commit.add("x"), commit.add("y")]);
    expect(results.map((result) => result.status === "rejected" && (result.reason as Error).message)).toEqual(["storage failed", "storage failed"]);
    fail = false;
    expect(await commit.add("z")).toBe("z");
  });
});

describe("askWithin", () => {
  it("answers what the agent says, or unreachable when it throws or is silent past the deadline", async () => {
    expect(await askWithin(async () => ({ kind: "active" }), 1_000)).toEqual({ kind: "active" });
    expect(await askWithin(async () => Promise.reject(new Error("no such agent")), 1_000)).toEqual({ kind: "unreachable", error: "no such agent" });
    expect(await askWithin(() => new Promise(() => {}), 10)).toEqual({ kind: "unreachable", error: "no answer in 10 ms" });
  });
});
