import { describe, expect, it } from "vitest";
import { reportSafely } from "../../src/command-center/report";

describe("reportSafely", () => {
  it("resolves whatever the sender does, and tells the sink", async () => {
    const errors: unknown[] = [];
    await expect(reportSafely(async () => "ok", (error) => errors.push(error))).resolves.toBeUndefined();
    await expect(reportSafely(async () => { throw new Error("down"); }, (error) => errors.push(error))).resolves.toBeUndefined();
    await expect(reportSafely(() => { throw new Error("sync"); }, (error) => errors.push(error))).resolves.toBeUndefined();
    await expect(reportSafely(async () => { throw new Error("x"); }, () => { throw new Error("sink"); })).resolves.toBeUndefined();
    expect(errors.map((error) => (error as Error).message)).toEqual(["down", "sync"]);
  });
});
