/**
 * Compatibility flags Cloudflare will deploy. The local runtime (wrangler
 * dev, the vitest plugin) always allows experimental features, so a config
 * that needs an experimental flag passes every local test and is refused on
 * deploy. This test asks the installed workerd itself, without
 * `--experimental`, to load a Worker with each deployed config's date and
 * flags, and fails when it calls one of them experimental. It also shows the
 * check can fail: the same run with `enable_abortsignal_rpc` added is
 * refused.
 *
 * Which flags each config may carry, and why, is the table in
 * scripts/lib/deployable-flags.ts (docs/containers.md repeats it), beside
 * the workerd run this test makes; `npm run doctor` makes the same run. The
 * test configs carry the production flags exactly (config-drift.test.ts);
 * none needs more today.
 */
import { describe, expect, it } from "vitest";
import { experimental_readRawConfig } from "wrangler";
import { DEPLOYABLE_FLAGS, DEPLOYED_CONFIGS, probeFlags } from "../../scripts/lib/deployable-flags";

type RawConfig = { compatibility_date?: string; compatibility_flags?: string[] };

/** The test configs, each with the deployed config whose flags it must carry exactly. */
const MIRRORS: Record<string, string> = {
  "test/wrangler.jsonc": "wrangler.jsonc",
  "bench/wrangler.jsonc": "wrangler.jsonc",
  "ingress/test/wrangler.jsonc": "ingress/wrangler.jsonc"
};

const read = (path: string) => experimental_readRawConfig({ config: path }).rawConfig as RawConfig;

describe("compatibility flags", () => {
  it.each(DEPLOYED_CONFIGS)("%s carries only flags workerd accepts without --experimental", (path) => {
    const config = read(path);
    const flags = config.compatibility_flags ?? [];
    for (const flag of flags) expect(DEPLOYABLE_FLAGS, `${path}: ${flag} has no reason in the table`).toHaveProperty(flag);
    const run = probeFlags(config.compatibility_date!, flags);
    expect(run.output).not.toMatch(/is experimental|--experimental/);
    expect(run.status, run.output).toBe(0);
  });

  it("would catch an experimental flag (the check is not vacuous)", () => {
    const config = read("wrangler.jsonc");
    for (const flag of ["enable_abortsignal_rpc", "experimental"]) {
      const run = probeFlags(config.compatibility_date!, [...(config.compatibility_flags ?? []), flag]);
      expect(run.output).toContain(`The compatibility flag ${flag} is experimental`);
      expect(run.experimental).toEqual([flag]);
      expect(run.status).not.toBe(0);
    }
  });

  it.each(Object.entries(MIRRORS))("%s carries exactly the flags of %s", (path, deployed) => {
    expect(read(path).compatibility_flags).toEqual(read(deployed).compatibility_flags);
    expect(read(path).compatibility_date).toBe(read(deployed).compatibility_date);
  });
});
