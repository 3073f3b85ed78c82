/**
 * The webhook app's configs against each other and against the agent
 * Worker's: every Durable Object class it exports is bound and migrated, the
 * test config keeps production's bindings, vars and runtime, and the two
 * Workers' service bindings name each other's real names and entrypoints.
 */
import { readFileSync } from "node:fs";
import { experimental_readRawConfig } from "wrangler";
import { describe, expect, it } from "vitest";

type RawConfig = {
  name?: string;
  compatibility_date?: string;
  compatibility_flags?: string[];
  durable_objects?: { bindings: Array<{ name: string; class_name: string }> };
  migrations?: Array<{ tag: string; new_sqlite_classes?: string[] }>;
  kv_namespaces?: Array<{ binding: string }>;
  services?: Array<{ binding: string; service: string; entrypoint?: string }>;
  vars?: Record<string, string>;
  secrets?: { required?: string[] };
};

const read = (path: string) => experimental_readRawConfig({ config: path }).rawConfig as RawConfig;
const ingress = read("ingress/wrangler.jsonc");
const ingressTest = read("ingress/test/wrangler.jsonc");
const agent = read("wrangler.jsonc");

/** Class names a module exports, directly or re-exported. */
function exportedClasses(path: string): string[] {
  const source = readFileSync(path, "utf8");
  return [...source.matchAll(/export class (\w+)/g), ...source.matchAll(/export \{ ([\w, ]+) \} from/g)].flatMap((match) =>
    match[1]!.split(",").map((name) => name.trim())
  );
}

const service = (config: RawConfig, binding: string) => config.services?.find((entry) => entry.binding === binding);

describe("ingress wrangler configs", () => {
  it.each([
    ["ingress/wrangler.jsonc", ingress],
    ["ingress/test/wrangler.jsonc", ingressTest]
  ])("%s binds and migrates CommentClaim", (_path, config) => {
    expect(exportedClasses("ingress/src/index.ts")).toContain("CommentClaim");
    expect(config.durable_objects?.bindings).toContainEqual({ name: "COMMENT_CLAIMS", class_name: "CommentClaim" });
    expect(config.migrations?.flatMap((migration) => migration.new_sqlite_classes ?? [])).toContain("CommentClaim");
  });

  it("keeps the test config in step with production", () => {
    expect(ingressTest.compatibility_date).toBe(ingress.compatibility_date);
    expect(ingressTest.compatibility_flags).toEqual(ingress.compatibility_flags);
    expect(ingressTest.kv_namespaces?.map((kv) => kv.binding)).toEqual(ingress.kv_namespaces?.map((kv) => kv.binding));
    expect(Object.keys(ingressTest.vars ?? {})).toEqual(expect.arrayContaining(Object.keys(ingress.vars ?? {})));
    // Every production secret reaches the test worker, as a secret or a test var.
    const testSecrets = [...(ingressTest.secrets?.required ?? []), ...Object.keys(ingressTest.vars ?? {})];
    expect(testSecrets).toEqual(expect.arrayContaining(ingress.secrets?.required ?? []));
    expect(service(ingressTest, "AGENT_THINK")).toBeDefined();
  });

  it("runs on the agent Worker's compatibility date", () => {
    expect(ingress.compatibility_date).toBe(agent.compatibility_date);
  });

  it("binds AGENT_THINK to the agent Worker's AgentThink entrypoint", () => {
    const binding = service(ingress, "AGENT_THINK");
    expect(binding).toEqual({ binding: "AGENT_THINK", service: agent.name, entrypoint: "AgentThink" });
    expect(exportedClasses("src/index.ts")).toContain("AgentThink");
  });

  it("is what the agent Worker's GITHUB_AUTH binding names", () => {
    const binding = service(agent, "GITHUB_AUTH");
    expect(binding?.service).toBe(ingress.name);
    expect(exportedClasses("ingress/src/index.ts")).toContain(binding?.entrypoint);
  });
});
