import { describe, expect, it } from "vitest";
import { metricTiles } from "../../../src/ui/view-models/metrics";
import { metrics } from "./fixtures";
import { EMPTY_METRICS } from "../../../src/shared/empty-metrics";

describe("metricTiles", () => {
  it("shows the eight figures in six tiles, p95 beside each p50, recoveries in 24 h beside those recovering now", () => {
    const tiles = metricTiles(metrics);
    expect(tiles.map((tile) => [tile.id, tile.value, tile.detail])).toEqual([
      ["runs-24h", "12", "dispatched"],
      ["success-rate", "75%", "of done and failed runs"],
      ["duration", "42 s", "p95 3 min 00 s"],
      ["first-tool", "900 ms", "p95 2.4 s"],
      ["tool-error-rate", "3%", "of tool calls"],
      ["recovering", "1", "3 recoveries in 24 h"]
    ]);
  });

  it("warns while a run is being recovered, and keeps past recoveries as a quiet detail", () => {
    const tile = (m = metrics) => metricTiles(m).find((candidate) => candidate.id === "recovering")!;
    expect(tile()).toMatchObject({ label: "Recovering", tone: "warn" });
    expect(tile({ ...metrics, recovering: 0, recoveries24h: 1 })).toMatchObject({ value: "0", detail: "1 recovery in 24 h", tone: "neutral" });
    expect(tile({ ...metrics, recovering: 0, recoveries24h: 0 })).toMatchObject({ value: "0", detail: "0 recoveries in 24 h", tone: "neutral" });
    expect(tile({ ...metrics, recovering: 2, recoveries24h: 1_500 })).toMatchObject({ value: "2", detail: "1,500 recoveries in 24 h", tone: "warn" });
  });

  it("flags a low success rate and a high tool-error rate", () => {
    const tone = (id: string, m = metrics) => metricTiles(m).find((tile) => tile.id === id)!.tone;
    expect(tone("success-rate")).toBe("bad");
    expect(tone("success-rate", { ...metrics, successRate: 0.9 })).toBe("warn");
    expect(tone("success-rate", { ...metrics, successRate: 1 })).toBe("good");
    expect(tone("tool-error-rate")).toBe("good");
    expect(tone("tool-error-rate", { ...metrics, toolErrorRate: 0.1 })).toBe("warn");
    expect(tone("tool-error-rate", { ...metrics, toolErrorRate: 0.5 })).toBe("bad");
  });

  it("reads dashes before any run finished, and before metrics arrived at all", () => {
    const empty = metricTiles(EMPTY_METRICS);
    expect(empty.map((tile) => tile.value)).toEqual(["0", "—", "—", "—", "—", "0"]);
    expect(empty.find((tile) => tile.id === "success-rate")!.detail).toBe("no done or failed runs");
    expect(empty.every((tile) => tile.tone === "neutral")).toBe(true);
    expect(metricTiles(null)[0]!.value).toBe("—");
    expect(metricTiles(null).find((tile) => tile.id === "recovering")).toMatchObject({ value: "—", tone: "neutral" });
  });
});
