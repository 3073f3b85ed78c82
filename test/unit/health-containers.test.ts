import { describe, expect, it } from "vitest";
import { containersHealth } from "../../src/health/containers";
import type { PoolStats } from "../../src/pool/pool-types";

const pool = (stats: Partial<PoolStats>) => ({
  enabled: true as const,
  stats: async (): Promise<PoolStats> => ({ warm: 1, assigned: 0, total: 1, retiring: 0, target: 1, ...stats })
});

describe("containersHealth", () => {
  it("blocks containers off in a deploy (both skills need them) and warns in local dev", async () => {
    expect(await containersHealth({ enabled: false }, { localDev: false })).toMatchObject({
      id: "containers",
      status: "block",
      fix: expect.stringContaining('CONTAINERS_ENABLED to "1"')
    });
    expect(await containersHealth({ enabled: false }, { localDev: true })).toMatchObject({ status: "warn" });
  });

  it("warns in local dev whose Sandbox has no container, naming the cause and the fix", async () => {
    const line = await containersHealth({ enabled: false, engine: "absent" }, { localDev: true });
    expect(line).toMatchObject({ id: "containers", status: "warn" });
    expect(line.detail).toMatch(/^no container engine: CONTAINERS_ENABLED is "1", but this wrangler dev runs the Sandbox without a container/);
    expect(line.detail).toContain("runs use the worker shell and skip the clone");
    expect(line.fix).toContain("npm start");
    expect(line.fix).toContain("wrangler dev --enable-containers=true");
  });

  it("is ok with the warm slot filled, and says what the pool holds", async () => {
    expect(await containersHealth(pool({ warm: 1, assigned: 2, total: 3 }), { localDev: false })).toMatchObject({
      status: "ok",
      detail: "1 warm of 1, 2 held by runs"
    });
  });

  it("warns about an empty warm slot and about stops being retried", async () => {
    expect(await containersHealth(pool({ warm: 0, total: 0 }), { localDev: false })).toMatchObject({ status: "warn", detail: expect.stringContaining("waits for a container") });
    expect(await containersHealth(pool({ retiring: 2 }), { localDev: false })).toMatchObject({ status: "warn", detail: expect.stringContaining("2 released container(s) not stopped yet") });
  });

  it("blocks a pool that fails or does not answer", async () => {
    const failing = { enabled: true as const, stats: () => Promise.reject(new Error("no such Durable Object class")) };
    expect(await containersHealth(failing, { localDev: false })).toMatchObject({ status: "block", detail: "the warm pool does not answer: no such Durable Object class" });
    const hanging = { enabled: true as const, stats: () => new Promise<PoolStats>(() => {}) };
    expect((await containersHealth(hanging, { localDev: false, timeoutMs: 20 })).detail).toContain("did not answer within 20 ms");
  });
});
