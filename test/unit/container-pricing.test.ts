import { describe, expect, it } from "vitest";
import { INSTANCE_TYPES } from "../../src/shared/container-pricing";
import {
  CONTAINER_PRICES,
  containerCost,
  formatUsd,
  HOURS_PER_MONTH,
  INSTANCE_SIZES,
  runContainerCeiling,
  warmPoolMonthlyCost
} from "../../src/shared/container-pricing";

const FOUR_HOURS_MS = 4 * 60 * 60 * 1000;

describe("container pricing", () => {
  it("has a size for every instance type the launch spec accepts", () => {
    expect(Object.keys(INSTANCE_SIZES).sort()).toEqual([...INSTANCE_TYPES].sort());
  });

  it("keeps its rates with the date and Cloudflare's pages they were read from", () => {
    expect(CONTAINER_PRICES.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(CONTAINER_PRICES.source).toContain("https://developers.cloudflare.com/containers/pricing/");
  });

  it("prices one standard-2 container kept warm a month at $41.35: memory and disk, less what Workers Paid includes, and no idle CPU", () => {
    const cost = warmPoolMonthlyCost("standard-2", 1);
    // 6 GiB × 730 h × 3,600 s × $0.0000025 and 12 GB × 730 h × 3,600 s × $0.00000007.
    expect(cost.memoryUsd).toBeCloseTo(39.42, 6);
    expect(cost.diskUsd).toBeCloseTo(2.20752, 9);
    expect(cost.cpuUsd).toBe(0);
    // Less 25 GiB-hours ($0.225) and 200 GB-hours ($0.0504).
    expect(cost.totalUsd).toBeCloseTo(41.35212, 9);
    expect(formatUsd(cost.totalUsd)).toBe("$41.35");
  });

  it("costs nothing with no container kept warm", () => {
    expect(warmPoolMonthlyCost("standard-2", 0).totalUsd).toBe(0);
  });

  it("bounds one run's container by its lifetime with the vCPU busy throughout: $0.52 for 4 hours of standard-2", () => {
    const cost = runContainerCeiling("standard-2", FOUR_HOURS_MS);
    expect(cost.cpuUsd).toBeCloseTo(0.288, 9);
    expect(cost.memoryUsd).toBeCloseTo(0.216, 9);
    expect(cost.diskUsd).toBeCloseTo(0.012096, 9);
    expect(cost.totalUsd).toBeCloseTo(0.516096, 9);
  });

  it("counts the included amounts once, never below zero", () => {
    const small = containerCost({ instance: "lite", containers: 1, seconds: 3600, cpuBusy: 1, lessIncluded: true });
    expect(small.totalUsd).toBe(0);
    expect(small.memoryUsd).toBeGreaterThan(0);
  });

  it("refuses amounts that cannot be usage", () => {
    const usage = { instance: "basic" as const, containers: 1, seconds: HOURS_PER_MONTH * 3600, cpuBusy: 0, lessIncluded: false };
    expect(() => containerCost({ ...usage, seconds: -1 })).toThrow("seconds must be a number, 0 or more");
    expect(() => containerCost({ ...usage, containers: Number.NaN })).toThrow("containers must be a number, 0 or more");
    expect(() => containerCost({ ...usage, cpuBusy: 1.5 })).toThrow("cpuBusy must be between 0 and 1");
    expect(() => containerCost({ ...usage, instance: "huge" as never })).toThrow('no size for the instance type "huge"');
  });
});
