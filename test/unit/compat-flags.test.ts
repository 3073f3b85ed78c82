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
 * Which flags each config may carry, and why, is the table below
 * (docs/containers.md repeats it). The test configs carry the production
 * flags exactly (config-drift.test.ts); none needs more today.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { experimental_readRawConfig } from "wrangler";

type RawConfig = { compatibility_date?: string; compatibility_flags?: string[] };

/** Every flag a deployed config may carry, with its reason. */
const ALLOWED: Record<string, string> = {
  nodejs_compat: "Think, the AI SDK and @cloudflare/computer import node:* (the default from 2026-08-04; kept explicit)"
};

/** The configs wrangler deploys, and those that must carry exactly the same flags. */
const DEPLOYED = ["wrangler.jsonc", "ingress/wrangler.jsonc"];
const MIRRORS: Record<string, string> = {
  "test/wrangler.jsonc": "wrangler.jsonc",
  "bench/wrangler.jsonc": "wrangler.jsonc",
  "ingress/test/wrangler.jsonc": "ingress/wrangler.jsonc"
};

const read = (path: string) => experimental_readRawConfig({ config: path }).rawConfig as RawConfig;
const workerd = join(dirname(createRequire(import.meta.url).resolve("workerd/package.json")), "bin", "workerd");
const scratch = mkdtempSync(join(tmpdir(), "agent-think-flags-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Load a one-module Worker with `date` and `flags` in workerd without --experimental; its output and exit status. */
function loadWithoutExperimental(date: string, flags: string[]) {
  const dir = mkdtempSync(join(scratch, "w-"));
  writeFileSync(join(dir, "w.js"), "export default { async test() {} };\n");
  writeFileSync(
    join(dir, "config.capnp"),
    [
      'using Workerd = import "/workerd/workerd.capnp";',
      'const config :Workerd.Config = ( services = [ (name = "main", worker = .w) ] );',
      "const w :Workerd.Worker = (",
      '  modules = [ (name = "w.js", esModule = embed "w.js") ],',
      `  compatibilityDate = ${JSON.stringify(date)},`,
      `  compatibilityFlags = [ ${flags.map((flag) => JSON.stringify(flag)).join(", ")} ]`,
      ");"
    ].join("\n")
  );
  const run = spawnSync(workerd, ["test", join(dir, "config.capnp")], { encoding: "utf8", timeout: 30_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("compatibility flags", () => {
  it.each(DEPLOYED)("%s carries only flags workerd accepts without --experimental", (path) => {
    const config = read(path);
    const flags = config.compatibility_flags ?? [];
    for (const flag of flags) expect(ALLOWED, `${path}: ${flag} has no reason in the table`).toHaveProperty(flag);
    const run = loadWithoutExperimental(config.compatibility_date!, flags);
    expect(run.output).not.toMatch(/is experimental|--experimental/);
    expect(run.status, run.output).toBe(0);
  });

  it("would catch an experimental flag (the check is not vacuous)", () => {
    const config = read("wrangler.jsonc");
    for (const flag of ["enable_abortsignal_rpc", "experimental"]) {
      const run = loadWithoutExperimental(config.compatibility_date!, [...(config.compatibility_flags ?? []), flag]);
      expect(run.output).toContain(`The compatibility flag ${flag} is experimental`);
      expect(run.status).not.toBe(0);
    }
  });

  it.each(Object.entries(MIRRORS))("%s carries exactly the flags of %s", (path, deployed) => {
    expect(read(path).compatibility_flags).toEqual(read(deployed).compatibility_flags);
    expect(read(path).compatibility_date).toBe(read(deployed).compatibility_date);
  });
});
