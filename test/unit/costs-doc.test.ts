/**
 * docs/costs.md states the figures src/shared/container-pricing.ts computes,
 * at the rates' date, and what the shipped MONTHLY_COST_BUDGET buys at the
 * shipped per-run budgets.
 */
import { readFileSync } from "node:fs";
import { experimental_readRawConfig } from "wrangler";
import { describe, expect, it } from "vitest";
import { DEFAULT_INSTANCE_TYPE } from "../../src/pool/launch-spec";
import { INSTANCE_TYPES } from "../../src/shared/container-pricing";
import { DEFAULT_CONTAINER_MAX_LIFETIME_MS } from "../../src/pool/lifetime";
import { DEFAULT_WARM_POOL_SIZE } from "../../src/pool/warm-pool-size";
import { BUDGET_WARN_SHARE } from "../../src/health/costs";
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

  it("says what the shipped monthly cap buys, at the shipped per-run budgets", () => {
    const vars = (experimental_readRawConfig({ config: "wrangler.jsonc" }).rawConfig as { vars: Record<string, string> }).vars;
    expect(vars.MONTHLY_COST_BUDGET).toBe("100");
    const cap = Number(vars.MONTHLY_COST_BUDGET);
    expect(doc).toContain(`\`MONTHLY_COST_BUDGET\` is a number of US dollars (\`100\`, \`12.5\`): \`${cap}\` in\nthe shipped \`wrangler.jsonc\``);
    expect(doc).toContain(`### Why $${cap}`);
    const run = Number(vars.RUN_COST_BUDGET);
    const reporter = Number(vars.REPORTER_RUN_COST_BUDGET);
    expect(doc).toMatch(new RegExp(`^\\| a maintainer's run that spends its whole \`RUN_COST_BUDGET\` \\| \\$${run} \\| ${Math.floor(cap / run)} \\|$`, "m"));
    expect(doc).toMatch(new RegExp(`^\\| a reporter run that spends its whole \`REPORTER_RUN_COST_BUDGET\` \\| \\$${reporter} \\| ${Math.floor(cap / reporter)} \\|$`, "m"));
    // The month's worst case: the plan, the default warm pool and the cap.
    const month = 5 + warmPoolMonthlyCost(DEFAULT_INSTANCE_TYPE, DEFAULT_WARM_POOL_SIZE).totalUsd + cap;
    expect(doc).toContain(`at most about $${Math.round(month)} plus the runs' container time`);
    expect(doc).toContain(`the health report warns at $${cap * BUDGET_WARN_SHARE}.`);
  });
});
