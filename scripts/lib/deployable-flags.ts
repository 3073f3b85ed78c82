/**
 * Which compatibility flags Cloudflare will deploy. The local runtime
 * (wrangler dev, the vitest plugin) always allows experimental features, so
 * a config that needs an experimental flag passes every local test and is
 * refused on deploy. Two answers live here, shared by
 * test/unit/compat-flags.test.ts and `npm run doctor`:
 *
 * - `DEPLOYABLE_FLAGS`: every flag a deployed config may carry, with its
 *   reason (docs/containers.md repeats the table);
 * - `probeFlags`: the installed workerd itself, run without
 *   `--experimental`, loading a one-module Worker with a config's date and
 *   flags, and which of them it calls experimental or unknown.
 *
 * It does not read wrangler configs; callers pass the date and flags.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const DEPLOYABLE_FLAGS: Readonly<Record<string, string>> = {
  nodejs_compat: "Think, the AI SDK and @cloudflare/computer import node:* (the default from 2026-08-04; kept explicit)"
};

/** The wrangler configs that are deployed: the agent Worker's and the webhook app's. */
export const DEPLOYED_CONFIGS = ["wrangler.jsonc", "ingress/wrangler.jsonc"] as const;

const WORKERD_TIMEOUT_MS = 30_000;

export type FlagProbe = {
  /** workerd's exit status (null when it did not run to the end). */
  status: number | null;
  output: string;
  /** Flags workerd refuses without --experimental. */
  experimental: string[];
  /** Flags workerd does not know at all. */
  unknown: string[];
};

/** Load a one-module Worker with `date` and `flags` in the installed workerd, without --experimental. */
export function probeFlags(date: string, flags: readonly string[]): FlagProbe {
  const dir = mkdtempSync(join(tmpdir(), "agent-think-flags-"));
  try {
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
    const run = spawnSync(workerdPath(), ["test", join(dir, "config.capnp")], { encoding: "utf8", timeout: WORKERD_TIMEOUT_MS });
    const output = `${run.stdout ?? ""}${run.stderr ?? ""}${run.error ? String(run.error) : ""}`;
    return {
      status: run.status,
      output,
      experimental: [...output.matchAll(/The compatibility flag (\S+) is experimental/g)].map((match) => match[1]!),
      unknown: [...output.matchAll(/No such compatibility flag: (\S+)/g)].map((match) => match[1]!)
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function workerdPath(): string {
  return join(dirname(createRequire(import.meta.url).resolve("workerd/package.json")), "bin", "workerd");
}
