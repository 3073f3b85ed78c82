import { describe, expect, it } from "vitest";
import {
  COST_FLOOR_TITLE,
  COST_UNKNOWN_TITLE,
  costView,
  formatBytes,
  formatCount,
  formatDuration,
  formatPercent,
  formatRelativeTime,
  formatTimestamp,
  formatUsd,
  NO_VALUE,
  truncate
} from "../../../src/ui/view-models/format";

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

describe("formatRelativeTime", () => {
  it.each([
    [0, "just now"],
    [9_999, "just now"],
    [10_000, "10 s ago"],
    [59_000, "59 s ago"],
    [60_000, "1 min ago"],
    [2 * 60_000 + 30_000, "2 min ago"],
    [59 * 60_000, "59 min ago"],
    [3 * 3_600_000, "3 h ago"],
    [2 * 86_400_000, "2 d ago"]
  ])("%i ms ago reads %s", (elapsed, text) => {
    expect(formatRelativeTime(NOW - elapsed, NOW)).toBe(text);
  });

  it("says just now for a time slightly in the future (clock skew)", () => {
    expect(formatRelativeTime(NOW + 5_000, NOW)).toBe("just now");
  });

  it("gives the date past a week, and a dash for nothing", () => {
    expect(formatRelativeTime(NOW - 30 * 86_400_000, NOW)).toBe("2026-10-30");
    expect(formatRelativeTime(undefined, NOW)).toBe(NO_VALUE);
  });
});

describe("formatDuration", () => {
  it.each([
    [420, "420 ms"],
    [1_234, "1.2 s"],
    [9_990, "9.9 s"],
    [12_300, "12 s"],
    [245_000, "4 min 05 s"],
    [3_720_000, "1 h 02 min"]
  ])("%i ms reads %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("reads a dash for a missing or negative figure", () => {
    expect(formatDuration(null)).toBe(NO_VALUE);
    expect(formatDuration(undefined)).toBe(NO_VALUE);
    expect(formatDuration(-1)).toBe(NO_VALUE);
    expect(formatDuration(Number.NaN)).toBe(NO_VALUE);
  });
});

describe("formatPercent, formatCount, formatBytes, formatTimestamp, truncate", () => {
  it("formats rates as percentages, clamped", () => {
    expect(formatPercent(0.97)).toBe("97%");
    expect(formatPercent(0.965)).toBe("96.5%");
    expect(formatPercent(0)).toBe("0%");
    expect(formatPercent(1.2)).toBe("100%");
    expect(formatPercent(null)).toBe(NO_VALUE);
  });

  it("groups thousands whatever the locale", () => {
    expect(formatCount(1_234_567)).toBe("1,234,567");
    expect(formatCount(12)).toBe("12");
  });

  it("formats bytes in powers of 1024", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(100 * 1024 * 1024)).toBe("100 MB");
  });

  it("gives an exact UTC time for tooltips", () => {
    expect(formatTimestamp(NOW)).toBe("2026-11-29 12:00:00 UTC");
  });

  it("cuts text to one line with an ellipsis", () => {
    expect(truncate("a\n  b", 10)).toBe("a b");
    expect(truncate("abcdefghij", 5)).toBe("abcd…");
  });
});

describe("costView and formatUsd", () => {
  it("shows a complete cost in dollars and cents, a positive one under a cent as <$0.01, and none as $0.00", () => {
    expect(costView({ usd: 0.42, complete: true })).toEqual({ text: "$0.42", kind: "complete" });
    expect(costView({ usd: 0.005, complete: true }).text).toBe("<$0.01");
    expect(costView({ usd: 0, complete: true }).text).toBe("$0.00");
    expect(costView({ usd: 0.019, complete: true }).text).toBe("$0.02");
    expect(costView({ usd: 1234.5, complete: true }).text).toBe("$1,234.50");
    expect(formatUsd(-1)).toBe("$0.00");
  });

  it("shows an incomplete cost as a floor, with why, and never as $0.00", () => {
    expect(costView({ usd: 0.42, complete: false })).toEqual({ text: "≥ $0.42", title: COST_FLOOR_TITLE, kind: "floor" });
    expect(costView({ usd: 0.004, complete: false })).toMatchObject({ text: "> $0.00", kind: "floor" });
  });

  it("calls nothing reported unknown: an incomplete zero, an absent cost, a broken one", () => {
    for (const cost of [{ usd: 0, complete: false }, undefined, null, { usd: Number.NaN, complete: true }, { usd: -2, complete: true }]) {
      expect(costView(cost)).toEqual({ text: "unknown", title: COST_UNKNOWN_TITLE, kind: "unknown" });
    }
  });
});
