import { describe, expect, it } from "vitest";
import { metricTiles } from "../../../src/ui/view-models/metrics";
import { metrics } from "./fixtures";
import { EMPTY_METRICS } from "../../../src/shared/empty-metrics";

describe("metricTiles", () => {
  it("shows the six figures in five tiles, p95 beside each p50", () => {
    const tiles = metricTiles(metrics);
    expect(tiles.map((tile) => [tile.id, tile.value, tile.detail])).toEqual([
      ["runs-24h", "12", "dispatched"],
      ["success-rate", "75%", "of done and failed runs"],
      ["duration", "42 s", "p95 3 min 00 s"],
      ["first-tool", "900 ms", "p95 2.4 s"],
      ["tool-error-rate", "3%", "of tool calls"]
    ]);
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
    expect(empty.map((tile) => tile.value)).toEqual(["0", "—", "—", "—", "—"]);
    expect(empty.find((tile) => tile.id === "success-rate")!.detail).toBe("no done or failed runs");
    expect(empty.every((tile) => tile.tone === "neutral")).toBe(true);
    expect(metricTiles(null)[0]!.value).toBe("—");
  });
});
