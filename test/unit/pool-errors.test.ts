import { describe, expect, it } from "vitest";
import { isSandboxRetired, SandboxExpiredError, SandboxRetiredError, SandboxStopError } from "../../src/pool/errors";

describe("isSandboxRetired", () => {
  it("recognises a stopped and an expired Sandbox, by the message alone (what survives RPC)", () => {
    expect(isSandboxRetired(new SandboxRetiredError("sb-1"))).toBe(true);
    expect(isSandboxRetired(new SandboxExpiredError("sb-1", 14_400_000))).toBe(true);
    expect(isSandboxRetired(new Error(new SandboxExpiredError("sb-1", 5).message))).toBe(true);
    expect(new SandboxExpiredError("sb-1", 5).message).toMatch(/reached its maximum lifetime of 5 ms/);
  });

  it("does not mistake other failures for it", () => {
    expect(isSandboxRetired(new SandboxStopError("sb-1", 20_000))).toBe(false);
    expect(isSandboxRetired("container backend unavailable")).toBe(false);
  });
});
