/** docs/costs.md states the figures src/shared/container-pricing.ts computes, at the rates' date. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_INSTANCE_TYPE } from "../../src/pool/launch-spec";
import { INSTANCE_TYPES } from "../../src/shared/container-pricing";
import { DEFAULT_CONTAINER_MAX_LIFETIME_MS } from "../../src/pool/lifetime";
import { DEFAULT_WARM_POOL_SIZE } from "../../src/pool/warm-pool-size";
import { CONTAINER_PRICES, formatUsd, runContainerCeiling, warmPoolMonthlyCost } from "../../src/shared/container-pricing";

const doc = readFileSync(new URL("../../docs/costs.md", import.meta.url), "utf8");

describe("docs/costs.md", () => {
  it("names the rates' date and sources", () => {
    expect(doc).toContain(`**${CONTAINER_PRICES.asOf}**`);
    for (const source of CONTAINER_PRICES.source) expect(doc).toContain(source);
  });

  it("states the default warm pool's monthly cost", () => {
    expect(DEFAULT_INSTANCE_TYPE).toBe("standard-2");
    expect(DEFAULT_WARM_POOL_SIZE).toBe(1);
    const monthly = formatUsd(warmPoolMonthlyCost(DEFAULT_INSTANCE_TYPE, DEFAULT_WARM_POOL_SIZE).totalUsd);
    expect(doc).toContain(`| **warm pool, standard-2, WARM_POOL_SIZE=1** | **${monthly}** |`);
  });

  it("gives each instance type's row as the code computes it", () => {
    for (const type of INSTANCE_TYPES) {
      const monthly = formatUsd(warmPoolMonthlyCost(type, 1).totalUsd);
      const run = formatUsd(runContainerCeiling(type, DEFAULT_CONTAINER_MAX_LIFETIME_MS).totalUsd);
      expect(doc, type).toMatch(new RegExp(`^\\| ${type} \\|[^\\n]*\\| \\${monthly} \\| \\${run} \\|$`, "m"));
    }
  });
});
