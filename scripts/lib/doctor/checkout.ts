/**
 * Reads a checkout for the doctor's checks (checks.ts): both wrangler
 * configs through wrangler's own JSONC reader (as the config-drift tests
 * do), the names each Worker's main module exports, workerd's verdict on
 * each config's flags, the secret names each `.env_example` lists, the
 * local secrets `wrangler dev` would load, and the skills tree as
 * `npm run seed:r2` reads it. Secret values are kept only for the checks
 * that ask whether one is set; nothing here prints.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parseEnv } from "node:util";
import { experimental_readRawConfig } from "wrangler";
import { probeFlags } from "../deployable-flags";
import { readSkillTree, SeedError } from "../seed-skills";
import { AGENT_CONFIG, INGRESS_CONFIG, type Checkout, type FlagsVerdict, type LocalVars, type SkillsTree, type WorkerConfig } from "./types";

export async function readCheckout(root: string): Promise<Checkout> {
  const agent = readConfig(root, AGENT_CONFIG);
  const ingress = readConfig(root, INGRESS_CONFIG);
  return {
    root,
    agent,
    ingress,
    agentExports: mainExports(root, AGENT_CONFIG, agent),
    ingressExports: mainExports(root, INGRESS_CONFIG, ingress),
    agentFlags: judgeFlags(agent),
    ingressFlags: judgeFlags(ingress),
    agentSecrets: envNames(join(root, ".env_example")),
    ingressSecrets: envNames(join(root, "ingress/.env_example")),
    agentLocal: localVars(root, AGENT_CONFIG),
    ingressLocal: localVars(root, INGRESS_CONFIG),
    skills: await readSkills(join(root, "skills"))
  };
}

function readConfig(root: string, path: string): WorkerConfig {
  return experimental_readRawConfig({ config: join(root, path) }).rawConfig as WorkerConfig;
}

/** The names a module exports, read from its source: classes, functions, consts and `export { ... }` lists. */
export function exportedNames(source: string): string[] {
  const names = new Set<string>();
  for (const match of source.matchAll(/^export\s+(?:default\s+)?(?:abstract\s+)?(?:class|(?:async\s+)?function|const|let|var)\s+(\w+)/gm)) names.add(match[1]!);
  for (const match of source.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const part of match[1]!.split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).at(-1)?.trim();
      if (name && !part.trim().startsWith("type ")) names.add(name);
    }
  }
  return [...names];
}

function mainExports(root: string, configPath: string, config: WorkerConfig): string[] {
  if (!config.main) return [];
  const main = join(root, dirname(configPath), config.main);
  return existsSync(main) ? exportedNames(readFileSync(main, "utf8")) : [];
}

function judgeFlags(config: WorkerConfig): FlagsVerdict {
  if (!config.compatibility_date) return { experimental: [], unknown: [], failure: "no compatibility_date to judge the flags with" };
  const probe = probeFlags(config.compatibility_date, config.compatibility_flags ?? []);
  const verdict = { experimental: probe.experimental, unknown: probe.unknown };
  if (probe.status === 0 || verdict.experimental.length > 0 || verdict.unknown.length > 0) return verdict;
  const said = probe.output.split("\n").find((text) => text.trim() !== "")?.trim() ?? `exit status ${probe.status}`;
  return { ...verdict, failure: said };
}

/** A dotenv file's names and values (as Node and wrangler parse them), or null when it does not exist. */
export function readEnvFile(path: string): Record<string, string> | null {
  return existsSync(path) ? parseEnv(readFileSync(path, "utf8")) as Record<string, string> : null;
}

/** The names a dotenv file sets, in the file's order (parseEnv's object does not keep it). */
function envNames(path: string): string[] {
  const names = Object.keys(readEnvFile(path) ?? {});
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  const position = (name: string) => text.search(new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=`, "m"));
  return names.sort((a, b) => position(a) - position(b));
}

/**
 * What `wrangler dev -c <config>` loads as local secrets: `.dev.vars` beside
 * the config when it exists, else `.env` then `.env.local` (later wins).
 */
function localVars(root: string, configPath: string): LocalVars | null {
  const dir = join(root, dirname(configPath));
  const devVars = readEnvFile(join(dir, ".dev.vars"));
  const name = (file: string) => relative(root, join(dir, file));
  if (devVars) return { file: name(".dev.vars"), vars: devVars };
  const found = [".env", ".env.local"].map((file) => ({ file, vars: readEnvFile(join(dir, file)) })).filter((entry) => entry.vars !== null);
  if (found.length === 0) return null;
  return { file: found.map((entry) => name(entry.file)).join(" and "), vars: Object.assign({}, ...found.map((entry) => entry.vars)) };
}

async function readSkills(skillsDir: string): Promise<SkillsTree> {
  if (!existsSync(skillsDir)) return { ok: false, problems: ["skills/ does not exist"] };
  try {
    const files = await readSkillTree(skillsDir);
    return { ok: true, skills: [...new Set(files.map((file) => file.path.split("/")[0]!))].sort() };
  } catch (error) {
    if (error instanceof SeedError) return { ok: false, problems: [...error.problems] };
    throw error;
  }
}
