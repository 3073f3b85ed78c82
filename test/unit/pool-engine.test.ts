import { describe, expect, it } from "vitest";
import { asksForEngine, containerEngine, isContainerAbsent, NO_CONTAINER_ENGINE } from "../../src/pool/engine";
import { CONTAINERS_UNAVAILABLE_MESSAGE } from "../../src/pool/errors";
import { CONTAINER_UNAVAILABLE } from "../../src/run/bash-command";

/** A Sandbox's answer, recording whether it was asked. */
const sandbox = (answer: boolean | Error) => {
  const asked: number[] = [];
  return {
    asked,
    hasContainer: async () => {
      asked.push(1);
      if (answer instanceof Error) throw answer;
      return answer;
    }
  };
};

describe("containerEngine", () => {
  it("asks a Sandbox in local dev with containers on, and says absent when wrangler dev gave it no container", async () => {
    const probe = sandbox(false);
    expect(await containerEngine({ CONTAINERS_ENABLED: "1", LOCAL_DEV: "1" }, probe.hasContainer)).toBe("absent");
    expect(probe.asked).toHaveLength(1);
    expect(await containerEngine({ CONTAINERS_ENABLED: "1", LOCAL_DEV: "1" }, sandbox(true).hasContainer)).toBe("on");
  });

  it("never asks in a deploy: CONTAINERS_ENABLED is taken at its word, so a missing container stays a failure", async () => {
    const probe = sandbox(false);
    expect(await containerEngine({ CONTAINERS_ENABLED: "1", LOCAL_DEV: "" }, probe.hasContainer)).toBe("on");
    expect(await containerEngine({ CONTAINERS_ENABLED: "1" }, probe.hasContainer)).toBe("on");
    expect(probe.asked).toEqual([]);
    expect(asksForEngine({ CONTAINERS_ENABLED: "1", LOCAL_DEV: "" })).toBe(false);
  });

  it("is off without CONTAINERS_ENABLED, asking nothing, as npm start runs", async () => {
    const probe = sandbox(true);
    expect(await containerEngine({ CONTAINERS_ENABLED: "", LOCAL_DEV: "1" }, probe.hasContainer)).toBe("off");
    expect(probe.asked).toEqual([]);
  });

  it("counts a probe that fails as on: the container command then fails with its own error", async () => {
    expect(await containerEngine({ CONTAINERS_ENABLED: "1", LOCAL_DEV: "1" }, sandbox(new Error("no such binding")).hasContainer)).toBe("on");
  });
});

describe("isContainerAbsent", () => {
  it("takes the two local answers (no engine, containers off) and no other container error", () => {
    expect(isContainerAbsent(CONTAINER_UNAVAILABLE)).toBe(true);
    expect(isContainerAbsent(NO_CONTAINER_ENGINE)).toBe(true);
    // A deploy's failures are failures: the Sandbox's own errors, whatever their prefix.
    expect(isContainerAbsent(CONTAINERS_UNAVAILABLE_MESSAGE)).toBe(false);
    expect(isContainerAbsent("container backend unavailable: the Sandbox Durable Object has no container (a deploy: …)")).toBe(false);
  });

  it("names the cause and the shell to use", () => {
    expect(NO_CONTAINER_ENGINE).toMatch(/^container backend unavailable: no container engine: CONTAINERS_ENABLED is "1"/);
    expect(NO_CONTAINER_ENGINE).toContain("use the shell backend");
  });
});
