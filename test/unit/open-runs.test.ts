import { describe, expect, it } from "vitest";
import { OpenRuns } from "../../src/run/open-runs";

describe("OpenRuns", () => {
  it("lists the runs opened and not closed, oldest first", () => {
    const map = new Map<string, unknown>();
    const runs = new OpenRuns({
      put: (key, value) => void map.set(key, value),
      delete: (key) => map.delete(key),
      *list<T>({ prefix }: { prefix: string }): Iterable<[string, T]> {
        for (const [key, value] of map) if (key.startsWith(prefix)) yield [key, value as T];
      }
    });
    runs.opened("s2", 20);
    runs.opened("s1", 10);
    runs.opened("s3", 30);
    runs.closed("s2");
    runs.closed("unknown");
    expect(runs.list()).toEqual(["s1", "s3"]);
    expect([...map.keys()]).toEqual(["agent-think:open-run:s1", "agent-think:open-run:s3"]);
  });
});
