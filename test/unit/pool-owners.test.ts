import { describe, expect, it } from "vitest";
import { holdsContainer, OwnerUnreachableError, parseOwner, workspaceOwners, type OwnerHolding } from "../../src/pool/owners";
import { poolOwner } from "../../src/pool/pool-types";

describe("parseOwner", () => {
  it("splits at the last ':'", () => {
    expect(parseOwner(poolOwner("acme-r-7", "sub-1"))).toEqual({ session: "acme-r-7", submissionId: "sub-1" });
    expect(parseOwner("a:b:c")).toEqual({ session: "a:b", submissionId: "c" });
  });

  it("refuses an owner without both parts", () => {
    expect(parseOwner("nosep")).toBeNull();
    expect(parseOwner(":sub")).toBeNull();
    expect(parseOwner("session:")).toBeNull();
  });
});

describe("holdsContainer", () => {
  it("holds in the same turn with that container or none recorded yet", () => {
    expect(holdsContainer({ submissionId: "t1", sandboxId: "sb-1" }, "t1", "sb-1")).toBe(true);
    // Between its claim and recording the claim.
    expect(holdsContainer({ submissionId: "t1" }, "t1", "sb-1")).toBe(true);
  });

  it("does not hold after its turn, in another turn, or with another container", () => {
    expect(holdsContainer({}, "t1", "sb-1")).toBe(false);
    expect(holdsContainer({ submissionId: "t2", sandboxId: "sb-1" }, "t1", "sb-1")).toBe(false);
    expect(holdsContainer({ submissionId: "t1", sandboxId: "sb-2" }, "t1", "sb-1")).toBe(false);
  });
});

describe("workspaceOwners", () => {
  it("asks the workspace named by the owner's session", async () => {
    const asked: string[] = [];
    const holdings: Record<string, OwnerHolding> = { "a:b": { submissionId: "t1", sandboxId: "sb-1" } };
    const owners = workspaceOwners(async (session) => {
      asked.push(session);
      return holdings[session] ?? {};
    });
    expect(await owners.holds("a:b:t1", "sb-1")).toBe(true);
    expect(await owners.holds("a:b:t0", "sb-1")).toBe(false);
    expect(await owners.holds("other:t1", "sb-1")).toBe(false);
    expect(asked).toEqual(["a:b", "a:b", "other"]);
  });

  it("rejects (unreachable) when the workspace throws, does not answer in time, or the owner is malformed", async () => {
    const failing = workspaceOwners(async () => {
      throw new Error("object reset");
    });
    await expect(failing.holds("s:t", "sb")).rejects.toThrow("object reset");
    const silent = workspaceOwners(() => new Promise<OwnerHolding>(() => {}), { timeoutMs: 10 });
    await expect(silent.holds("s:t", "sb")).rejects.toBeInstanceOf(OwnerUnreachableError);
    await expect(failing.holds("malformed", "sb")).rejects.toBeInstanceOf(OwnerUnreachableError);
  });
});
