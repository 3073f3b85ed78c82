/**
 * `registries:` in .github/agent-think.yml and the operator's REGISTRY_SECRETS and REGISTRY_REPOS
 * (src/run/registries.ts): each kind parsed as the policy keeps it, every
 * malformed entry refused naming its field, and the refusals a run's setup
 * reports when an entry names a secret its repository may not use or the
 * Worker lacks.
 */
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/run/repo-config";
import { granted, parseRegistryRepos, parseRegistrySecrets, registryRefusal, type RegistryEntry } from "../../src/run/registries";

const config = (registries: string) => parseRepoConfig(`version: 1\nregistries:\n${registries}`);
const errorsOf = (registries: string) => {
  const parsed = config(registries);
  return parsed.ok ? [] : parsed.errors;
};

describe("registries: in the repository's file", () => {
  it("parses each kind, with a path made a prefix and GET and HEAD when no methods are named", () => {
    const parsed = config(
      [
        "  - { kind: npm, host: npm.internal.example.com, path: /npm, secret: INTERNAL_NPM_TOKEN, scope: '@acme' }",
        "  - { kind: bearer, host: npm.pkg.github.com, secret: GH_PACKAGES_TOKEN, scope: '@acme' }",
        "  - { kind: basic, host: artifacts.example.com, secret: ARTIFACTS_LOGIN, methods: [get, HEAD, get] }",
        "  - { kind: git, repositories: [acme/Shared-Lib, acme/shared-lib, acme/helpers] }"
      ].join("\n")
    );
    expect(parsed).toMatchObject({ ok: true });
    expect(parsed.ok && parsed.config.registries).toEqual([
      { kind: "npm", host: "npm.internal.example.com", path: "/npm/", secret: "INTERNAL_NPM_TOKEN", methods: ["GET", "HEAD"], scope: "@acme" },
      { kind: "bearer", host: "npm.pkg.github.com", path: "/", secret: "GH_PACKAGES_TOKEN", methods: ["GET", "HEAD"], scope: "@acme" },
      { kind: "basic", host: "artifacts.example.com", path: "/", secret: "ARTIFACTS_LOGIN", methods: ["GET", "HEAD"] },
      { kind: "git", repositories: ["acme/shared-lib", "acme/helpers"] }
    ]);
  });

  it("is empty without the field", () => {
    const parsed = parseRepoConfig("version: 1\n");
    expect(parsed.ok && parsed.config.registries).toEqual([]);
  });

  it.each([
    ["  - { kind: pypi, host: a.example.com, secret: T }", "registries[0].kind: must be one of npm, bearer, basic, git"],
    ["  - npm.internal.example.com", "registries[0]: must be { kind, host, secret } or { kind: git, repositories }"],
    ["  - { kind: npm, host: a.example.com }", "registries[0].secret:"],
    ["  - { kind: npm, host: a.example.com, secret: npm_token }", "registries[0].secret: must be a Worker secret's name"],
    ["  - { kind: npm, host: a.example.com, secret: GITHUB_APP_PRIVATE_KEY }", "registries[0].secret: names one of agent-think's own secrets"],
    ["  - { kind: npm, host: a.example.com, secret: OPENAI_API_KEY }", "registries[0].secret: names one of agent-think's own secrets"],
    ["  - { kind: npm, host: '*.example.com', secret: T }", "registries[0].host: must be one host, not a pattern"],
    ["  - { kind: npm, host: com, secret: T }", "registries[0].host:"],
    ["  - { kind: npm, host: a.example.com, path: /npm/../admin, secret: T }", "registries[0].path: must hold no . or .. segment"],
    ["  - { kind: npm, host: a.example.com, path: 'npm?x=1', secret: T }", "registries[0].path: must start with"],
    ["  - { kind: npm, host: a.example.com, path: /%2e%2e/, secret: T }", "registries[0].path: must start with"],
    ["  - { kind: npm, host: a.example.com, secret: T, methods: [DELETE] }", "registries[0].methods[0]: must be one of GET, HEAD, POST, PUT"],
    ["  - { kind: npm, host: a.example.com, secret: T, scope: acme }", "registries[0].scope: must be an npm scope"],
    ["  - { kind: npm, host: a.example.com, secret: T, token: abc }", "registries[0].token: is not a field this version knows"],
    ["  - { kind: git, repositories: [acme] }", "registries[0].repositories[0]: must be owner/name"],
    ["  - { kind: git, repositories: [] }", "registries[0].repositories: must name at least one repository"],
    ["  - { kind: git, host: github.com, repositories: [acme/a] }", "registries[0].host: is not a field this version knows"],
    ["  - { kind: git, repositories: [acme/a], secret: T }", "registries[0].secret: is not a field this version knows"]
  ])("refuses %s", (entry, message) => {
    expect(errorsOf(entry)).toContainEqual(expect.stringContaining(message));
  });

  it("refuses more than ten repositories across git entries", () => {
    const names = (from: number) => Array.from({ length: 6 }, (_, i) => `acme/r${from + i}`).join(", ");
    expect(errorsOf(`  - { kind: git, repositories: [${names(0)}] }\n  - { kind: git, repositories: [${names(6)}] }`)).toEqual([
      "registries: git entries must name at most 10 repositories in all"
    ]);
  });

  it("refuses more than ten entries", () => {
    const entries = Array.from({ length: 11 }, (_, i) => `  - { kind: npm, host: r${i}.example.com, secret: T }`).join("\n");
    expect(errorsOf(entries)).toEqual(["registries: must have at most 10 entries"]);
  });
});

describe("REGISTRY_SECRETS, the operator's word", () => {
  it("reads owner/name:SECRET and owner/*:SECRET, comma- or space-separated, and names each bad item", () => {
    expect(parseRegistrySecrets("acme/Widgets:INTERNAL_NPM_TOKEN, acme/*:ARTIFACTS_LOGIN\nbad GITHUB_x acme/widgets:GITHUB_TOKEN")).toEqual({
      grants: [
        { repo: "acme/widgets", value: "INTERNAL_NPM_TOKEN" },
        { repo: "acme/*", value: "ARTIFACTS_LOGIN" }
      ],
      errors: [
        'REGISTRY_SECRETS: "bad" is not owner/name:SECRET or owner/*:SECRET',
        'REGISTRY_SECRETS: "GITHUB_x" is not owner/name:SECRET or owner/*:SECRET',
        "REGISTRY_SECRETS: GITHUB_TOKEN is one of agent-think's own secrets or settings, which no repository may use"
      ]
    });
    expect(parseRegistrySecrets(undefined)).toEqual({ grants: [], errors: [] });
  });

  it("lets a repository name a secret given to it or to its owner, and nothing else", () => {
    const { grants } = parseRegistrySecrets("acme/widgets:A acme/*:B");
    expect(granted(grants, "Acme/Widgets", "A")).toBe(true);
    expect(granted(grants, "acme/gadgets", "B")).toBe(true);
    expect(granted(grants, "acme/gadgets", "A")).toBe(false);
    expect(granted(grants, "evil/widgets", "B")).toBe(false);
  });

  it("REGISTRY_REPOS reads owner/name:owner/other and owner/*:owner/other", () => {
    expect(parseRegistryRepos("acme/widgets:acme/Shared acme/*:acme/helpers acme/widgets:SECRET bad")).toEqual({
      grants: [
        { repo: "acme/widgets", value: "acme/Shared" },
        { repo: "acme/*", value: "acme/helpers" }
      ],
      errors: [
        'REGISTRY_REPOS: "acme/widgets:SECRET" is not owner/name:owner/other or owner/*:owner/other',
        'REGISTRY_REPOS: "bad" is not owner/name:owner/other or owner/*:owner/other'
      ]
    });
    expect(granted(parseRegistryRepos("acme/widgets:acme/Shared").grants, "acme/widgets", "acme/shared")).toBe(true);
  });
});

describe("the refusal a run's setup reports for an entry", () => {
  const npm: RegistryEntry = { kind: "npm", host: "npm.internal.example.com", path: "/", secret: "INTERNAL_NPM_TOKEN", methods: ["GET", "HEAD"] };
  const grants = { secrets: parseRegistrySecrets("acme/widgets:INTERNAL_NPM_TOKEN").grants, repos: parseRegistryRepos("acme/widgets:acme/shared").grants };

  it("is none for an entry its repository may use, whose secret is set", () => {
    expect(registryRefusal(npm, "Acme/widgets", grants, () => true)).toBeNull();
  });

  it("lets a git entry name other repositories of the run's owner only", () => {
    expect(registryRefusal({ kind: "git", repositories: ["acme/shared"] }, "Acme/widgets", grants, () => false)).toBeNull();
    expect(registryRefusal({ kind: "git", repositories: ["acme/shared", "evil/shared"] }, "acme/widgets", grants, () => true)).toBe(
      "registries: evil/shared is not acme's: a git entry names private repositories of the run's own owner (the App's installation there)"
    );
    expect(registryRefusal({ kind: "git", repositories: ["acme/widgets"] }, "acme/widgets", grants, () => true)).toBe(
      "registries: a git entry names acme/widgets itself, which every run reads already"
    );
    expect(registryRefusal({ kind: "git", repositories: ["acme/shared", "acme/other"] }, "acme/widgets", grants, () => true)).toBe(
      "registries: acme/widgets may not read acme/other: the operator's REGISTRY_REPOS does not give it (ask for acme/widgets:acme/other there)"
    );
  });

  it("names the REGISTRY_SECRETS item to ask for, or the secret to set", () => {
    expect(registryRefusal(npm, "acme/gadgets", grants, () => true)).toBe(
      "registries: npm.internal.example.com names the secret INTERNAL_NPM_TOKEN, which the operator's REGISTRY_SECRETS does not give acme/gadgets (ask for acme/gadgets:INTERNAL_NPM_TOKEN there)"
    );
    expect(registryRefusal(npm, "acme/widgets", grants, () => false)).toBe(
      "registries: npm.internal.example.com names the secret INTERNAL_NPM_TOKEN, which is not set on the agent Worker (npx wrangler secret put INTERNAL_NPM_TOKEN)"
    );
  });
});
