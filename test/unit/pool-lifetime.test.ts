import { describe, expect, it } from "vitest";
import {
  containerMaxLifetimeMs,
  DEFAULT_CONTAINER_MAX_LIFETIME_MS,
  lifetimeDecision,
  MIN_CONTAINER_MAX_LIFETIME_MS
} from "../../src/pool/lifetime";

describe("containerMaxLifetimeMs", () => {
  it("reads CONTAINER_MAX_LIFETIME_MS as whole milliseconds", () => {
    expect(containerMaxLifetimeMs("14400000")).toBe(14_400_000);
    expect(containerMaxLifetimeMs(" 3600000 ")).toBe(3_600_000);
    expect(DEFAULT_CONTAINER_MAX_LIFETIME_MS).toBe(4 * 60 * 60 * 1000);
  });

  it("falls back to the default (4 h) when blank or not a positive decimal integer", () => {
    for (const raw of [undefined, "", "   ", "4h", "1e7", "-5", "0", "3.5", "NaN", "0x10", "99999999999999999999"]) {
      expect(containerMaxLifetimeMs(raw), String(raw)).toBe(DEFAULT_CONTAINER_MAX_LIFETIME_MS);
    }
  });

  it("raises a value below the floor to the floor, so a typo cannot stop containers as they boot", () => {
    expect(containerMaxLifetimeMs("1000")).toBe(MIN_CONTAINER_MAX_LIFETIME_MS);
    expect(containerMaxLifetimeMs(String(MIN_CONTAINER_MAX_LIFETIME_MS))).toBe(MIN_CONTAINER_MAX_LIFETIME_MS);
  });
});

describe("lifetimeDecision", () => {
  it("waits until startedAt + lifetime, then stops", () => {
    expect(lifetimeDecision({ startedAt: 1_000 }, 500, 1_200)).toEqual({ action: "wait", at: 1_500 });
    expect(lifetimeDecision({ startedAt: 1_000 }, 500, 1_500)).toEqual({ action: "stop", overdueMs: 0 });
    expect(lifetimeDecision({ startedAt: 1_000 }, 500, 1_800)).toEqual({ action: "stop", overdueMs: 300 });
  });
});
