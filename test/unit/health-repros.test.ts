import { describe, expect, it } from "vitest";
import { reprosHealth, type ReprosBucket } from "../../src/health/repros";

describe("reprosHealth", () => {
  it("is ok when the bucket answers a one-key listing under the repro prefix", async () => {
    const asked: unknown[] = [];
    const bucket: ReprosBucket = { list: async (options) => void asked.push(options) };
    expect(await reprosHealth(bucket)).toMatchObject({ id: "repros", status: "ok" });
    expect(asked).toEqual([{ prefix: "repros/", limit: 1 }]);
  });

  it("blocks a missing binding", async () => {
    expect(await reprosHealth(undefined)).toMatchObject({ status: "block", detail: expect.stringContaining("REPROS is not bound"), fix: expect.stringContaining("REPROS") });
  });

  it("blocks a bucket that fails or hangs", async () => {
    expect(await reprosHealth({ list: () => Promise.reject(new Error("bucket not found")) })).toMatchObject({
      status: "block",
      detail: "REPROS could not be listed: bucket not found"
    });
    expect((await reprosHealth({ list: () => new Promise(() => {}) }, { timeoutMs: 20 })).detail).toContain("did not answer within 20 ms");
  });
});
