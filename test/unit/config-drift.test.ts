/**
 * Config drift: every Durable Object class the Worker exports has a binding
 * and a migration in each wrangler config that runs it, and the test config
 * keeps the production config's bindings and flags.
 */
import { readFileSync } from "node:fs";
import { experimental_readRawConfig } from "wrangler";
import { describe, expect, it } from "vitest";

type RawConfig = {
  main?: string;
  compatibility_date?: string;
  compatibility_flags?: string[];
  durable_objects?: { bindings: Array<{ name: string; class_name: string }> };
  migrations?: Array<{ tag: string; new_sqlite_classes?: string[]; new_classes?: string[] }>;
  worker_loaders?: Array<{ binding: string }>;
  vars?: Record<string, string>;
};

const read = (path: string) => experimental_readRawConfig({ config: path }).rawConfig as RawConfig;
const production = read("wrangler.jsonc");
const test = read("test/wrangler.jsonc");

/** Durable Object classes re-exported by src/index.ts (every class that extends Think, Agent or DurableObject). */
function exportedDurableObjectClasses(): string[] {
  const index = readFileSync("src/index.ts", "utf8");
  const exported = [...index.matchAll(/export \{ (\w+) \} from "\.\/([\w-]+)"/g)];
  return exported
    .filter(([, name, file]) => {
      const source = readFileSync(`src/${file}.ts`, "utf8");
      return new RegExp(`export class ${name} extends (Think|Agent|DurableObject)\\b`).test(source);
    })
    .map(([, name]) => name!);
}

function migratedClasses(config: RawConfig): string[] {
  return (config.migrations ?? []).flatMap((migration) => [...(migration.new_sqlite_classes ?? []), ...(migration.new_classes ?? [])]);
}

describe("wrangler configs", () => {
  const classes = exportedDurableObjectClasses();

  it("finds the Durable Object classes the Worker exports", () => {
    expect(classes).toContain("ThinkAgent");
  });

  it.each([
    ["wrangler.jsonc", production],
    ["test/wrangler.jsonc", test]
  ])("%s binds and migrates every exported Durable Object class", (_path, config) => {
    const bound = (config.durable_objects?.bindings ?? []).map((binding) => binding.class_name);
    for (const name of classes) {
      expect(bound, name).toContain(name);
      expect(migratedClasses(config), name).toContain(name);
    }
  });

  it("keeps the test config in step with production", () => {
    expect(test.compatibility_date).toBe(production.compatibility_date);
    expect(test.compatibility_flags).toEqual(production.compatibility_flags);
    expect(test.worker_loaders).toEqual(production.worker_loaders);
    expect(Object.keys(test.vars ?? {}).sort()).toEqual(Object.keys(production.vars ?? {}).sort());
    for (const binding of production.durable_objects?.bindings ?? []) {
      expect(test.durable_objects?.bindings).toContainEqual(binding);
    }
  });

  it("ships production with LOCAL_DEV off and no model chosen in code", () => {
    expect(production.vars?.LOCAL_DEV).toBe("");
    expect(production.vars?.MODEL_PROVIDER).toBe("");
  });

  it("ships no default bot login: the webhook app names the App's bot (src/run/bot-identity.ts)", () => {
    expect(production.vars).not.toHaveProperty("BOT_LOGIN");
  });
});
