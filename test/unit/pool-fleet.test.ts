import { describe, expect, it } from "vitest";
import { sandboxFleet } from "../../src/pool/fleet";
import { containersEnabled } from "../../src/pool/errors";

describe("sandboxFleet", () => {
  it("warms and stops the Sandbox named by the id", async () => {
    const calls: string[] = [];
    const fleet = sandboxFleet({
      getByName: (name) => ({
        warm: async () => void calls.push(`warm ${name}`),
        stop: async () => void calls.push(`stop ${name}`)
      })
    });
    await fleet.warm("a");
    await fleet.stop("b");
    expect(calls).toEqual(["warm a", "stop b"]);
  });

  it("passes a Sandbox's failure through", async () => {
    const fleet = sandboxFleet({
      getByName: () => ({
        warm: async () => {
          throw new Error("container backend unavailable");
        },
        stop: async () => undefined
      })
    });
    await expect(fleet.warm("a")).rejects.toThrow("container backend unavailable");
  });
});

describe("containersEnabled", () => {
  it("is on only for exactly \"1\"", () => {
    expect(containersEnabled({ CONTAINERS_ENABLED: "1" })).toBe(true);
    expect(containersEnabled({ CONTAINERS_ENABLED: "" })).toBe(false);
    expect(containersEnabled({ CONTAINERS_ENABLED: "true" })).toBe(false);
    expect(containersEnabled({})).toBe(false);
  });
});
