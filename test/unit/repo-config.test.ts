/**
 * `.github/agent-think.yml` (src/run/repo-config.ts): what a valid file
 * becomes, and for each kind of mistake an error that names its field.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_SETUP_TIMEOUT_S, DEFAULT_TRIGGERS, MAX_REPO_CONFIG_BYTES, parseRepoConfig } from "../../src/run/repo-config";
import { PUBLIC_SUFFIX_WILDCARDS } from "./bytes";

const errorsOf = (text: string) => {
  const parsed = parseRepoConfig(text);
  expect(parsed.ok).toBe(false);
  return parsed.ok ? [] : parsed.errors;
};

describe("a valid .github/agent-think.yml", () => {
  it("gives each command its timeout, the file's default or its own", () => {
    const parsed = parseRepoConfig(
      ["version: 1", "setup:", "  timeout: 120", "  commands:", "    - npm ci", "    - run: npm run build", "      timeout: 900"].join("\n")
    );
    expect(parsed).toEqual({
      ok: true,
      config: {
        version: 1,
        setup: { backend: "container", commands: [{ run: "npm ci", timeoutS: 120 }, { run: "npm run build", timeoutS: 900 }] },
        network: { allow: [] },
        registries: [],
        progress: true,
        triggers: DEFAULT_TRIGGERS,
        reporters: "off",
        ci: { fix: 0 },
        commits: { signed: false }
      }
    });
  });

  it("reads the hosts the sandbox may reach beyond the defaults", () => {
    const parsed = parseRepoConfig(["version: 1", "network:", "  allow:", "    - api.example.com", '    - "*.example.org"'].join("\n"));
    expect(parsed.ok && parsed.config.network).toEqual({ allow: ["api.example.com", "*.example.org"] });
    expect(parseRepoConfig("version: 1\nnetwork: {}\n")).toMatchObject({ ok: true, config: { network: { allow: [] } } });
  });

  it("reads an entry that names its methods, upper-cased and each once, next to plain hosts", () => {
    const parsed = parseRepoConfig(
      ["version: 1", "network:", "  allow:", "    - api.example.com", "    - { host: proxy.golang.org, methods: [GET, head, GET] }", "    - host: '*.example.org'", "      methods: [POST]"].join("\n")
    );
    expect(parsed.ok && parsed.config.network).toEqual({
      allow: ["api.example.com", { host: "proxy.golang.org", methods: ["GET", "HEAD"] }, { host: "*.example.org", methods: ["POST"] }]
    });
  });

  it("accepts a wildcard over a registrable domain the list splits among customers: it reaches none of their hosts (egress-allowlist.test.ts)", () => {
    expect(parseRepoConfig("version: 1\nnetwork:\n  allow: ['*.amazonaws.com']\n")).toMatchObject({ ok: true, config: { network: { allow: ["*.amazonaws.com"] } } });
  });

  it("defaults to the container backend and ten minutes, and may have no setup at all", () => {
    const parsed = parseRepoConfig("version: 1\nsetup:\n  backend: shell\n  commands: [ls]\n");
    expect(parsed.ok && parsed.config.setup).toEqual({ backend: "shell", commands: [{ run: "ls", timeoutS: DEFAULT_SETUP_TIMEOUT_S }] });
    expect(parseRepoConfig("version: 1\n")).toEqual({
      ok: true,
      config: { version: 1, setup: { backend: "container", commands: [] }, network: { allow: [] }, registries: [], progress: true, triggers: DEFAULT_TRIGGERS, reporters: "off", ci: { fix: 0 }, commits: { signed: false } }
    });
  });

  it("reads the progress comment's switch, the model asked for, and the other ways to ask", () => {
    const parsed = parseRepoConfig(
      ["version: 1", "progress: false", "model: claude-opus-4-5", "triggers:", "  assign: open a PR fixing this", "  label:", "    name: bot-please"].join("\n")
    );
    expect(parsed.ok && { progress: parsed.config.progress, model: parsed.config.model, triggers: parsed.config.triggers }).toEqual({
      progress: false,
      model: "claude-opus-4-5",
      triggers: { assign: "open a PR fixing this", label: { name: "bot-please", instruction: "reproduce this issue" } }
    });
    const reporters = parseRepoConfig("version: 1\nreporters: reproduce\n");
    expect(reporters.ok && reporters.config.reporters).toBe("reproduce");
    const ci = parseRepoConfig("version: 1\nci:\n  fix: 3\n");
    expect(ci.ok && ci.config.ci).toEqual({ fix: 3 });
    expect(parseRepoConfig("version: 1\nci: {}\n")).toMatchObject({ ok: true, config: { ci: { fix: 0 } } });
    const off = parseRepoConfig("version: 1\ntriggers:\n  assign: false\n  label: false\n");
    expect(off.ok && off.config.triggers).toEqual({ assign: null, label: null });
    expect(DEFAULT_TRIGGERS).toEqual({ assign: "reproduce this issue", label: { name: "agent-think", instruction: "reproduce this issue" } });
  });

  it("reads whether the run's commits must be signed: API-made commits when true, git's own when false, absent or empty", () => {
    const signed = parseRepoConfig("version: 1\ncommits:\n  signed: true\n");
    expect(signed.ok && signed.config.commits).toEqual({ signed: true });
    for (const text of ["version: 1\ncommits:\n  signed: false\n", "version: 1\ncommits: {}\n", "version: 1\n"]) {
      expect(parseRepoConfig(text)).toMatchObject({ ok: true, config: { commits: { signed: false } } });
    }
  });
});

describe("an invalid .github/agent-think.yml", () => {
  it.each([
    ["no version", "setup:\n  commands: [ls]\n", /^version: must be 1/],
    ["a future version", "version: 2\n", /^version: must be 1 \(the only version/],
    ["a misspelt field", "version: 1\nsetup:\n  timout: 5\n  commands: [ls]\n", /^setup\.timout: is not a field this version knows/],
    ["a host with a path", "version: 1\nnetwork:\n  allow: [https://api.example.com/x]\n", /^network\.allow\[0\]: "https:\/\/api\.example\.com\/x" is not a host name/],
    ["a wildcard over a top-level domain", "version: 1\nnetwork:\n  allow: ['*.com']\n", /^network\.allow\[0\]: .*too wide/],
    ["an entry that is a number", "version: 1\nnetwork:\n  allow: [42]\n", /^network\.allow\[0\]: must be a host name, or \{ host, methods \}$/],
    ["an entry that is a list", "version: 1\nnetwork:\n  allow: [[GET, a.example]]\n", /^network\.allow\[0\]: must be a host name, or \{ host, methods \}$/],
    ["a method entry with an extra field", "version: 1\nnetwork:\n  allow:\n    - { host: a.example, methods: [GET], paths: [/x] }\n", /^network\.allow\[0\]\.paths: is not a field this version knows/],
    ["a method nobody has", "version: 1\nnetwork:\n  allow:\n    - { host: a.example, methods: [GET, FETCH] }\n", /^network\.allow\[0\]\.methods\[1\]: must be one of GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE$/],
    ["no methods", "version: 1\nnetwork:\n  allow:\n    - { host: a.example, methods: [] }\n", /^network\.allow\[0\]\.methods: must name at least one method$/],
    ["methods as one string", "version: 1\nnetwork:\n  allow:\n    - { host: a.example, methods: GET }\n", /^network\.allow\[0\]\.methods: must be a list of methods, such as \[GET, HEAD\]$/],
    ["a method entry without its host", "version: 1\nnetwork:\n  allow:\n    - { methods: [GET] }\n", /^network\.allow\[0\]\.host: must be a host name/],
    ["a method entry's host with a path", "version: 1\nnetwork:\n  allow:\n    - { host: a.example/x, methods: [GET] }\n", /^network\.allow\[0\]\.host: "a\.example\/x" is not a host name/],
    ["hosts as one string", "version: 1\nnetwork:\n  allow: api.example.com\n", /^network\.allow: must be a list of host names/],
    ["a misspelt network field", "version: 1\nnetwork:\n  allowed: [a.example]\n", /^network\.allowed: is not a field/],
    ["an unknown top-level field", "version: 1\nsteps: [ls]\n", /^steps: is not a field/],
    ["an unknown backend", "version: 1\nsetup:\n  backend: docker\n  commands: [ls]\n", /^setup\.backend: must be "container" or "shell"/],
    ["a timeout in words", "version: 1\nsetup:\n  timeout: ten minutes\n  commands: [ls]\n", /^setup\.timeout: must be a number of seconds/],
    ["a timeout too long", "version: 1\nsetup:\n  timeout: 7200\n  commands: [ls]\n", /^setup\.timeout: must be at most 1800 seconds/],
    ["a command that is a number", "version: 1\nsetup:\n  commands: [npm ci, 42]\n", /^setup\.commands\[1\]: must be a command line, or \{ run, timeout \}/],
    ["commands that are not a list", "version: 1\nsetup:\n  commands: npm ci\n", /^setup\.commands: must be a list of commands/],
    ["a list at the top", "- npm ci\n", /^must be a mapping with at least `version: 1`/],
    ["broken YAML", "version: 1\nsetup: [\n", /^not valid YAML \(line \d+\)/],
    ["a key given twice", "version: 1\nversion: 1\n", /^not valid YAML/],
    ["progress in words", "version: 1\nprogress: sometimes\n", /^progress: must be true or false/],
    ["reporters asking for more than a reproduction", "version: 1\nreporters: fix\n", /^reporters: must be "reproduce" or "off"/],
    ["CI fixes above the limit", "version: 1\nci:\n  fix: 4\n", /^ci\.fix: must be at most 3/],
    ["CI fixes below zero", "version: 1\nci:\n  fix: -1\n", /^ci\.fix: must be a whole number from 0 to 3/],
    ["CI fixes in halves", "version: 1\nci:\n  fix: 1.5\n", /^ci\.fix: must be a whole number from 0 to 3/],
    ["CI fixes in words", "version: 1\nci:\n  fix: always\n", /^ci\.fix: must be a whole number from 0 to 3/],
    ["a misspelt CI field", "version: 1\nci:\n  fixes: 2\n", /^ci\.fixes: is not a field/],
    ["CI as a number", "version: 1\nci: 2\n", /^ci: must be \{ fix \}/],
    ["signed commits in words", "version: 1\ncommits:\n  signed: yes please\n", /^commits\.signed: must be true or false$/],
    ["signed commits as a string", "version: 1\ncommits:\n  signed: 'true'\n", /^commits\.signed: must be true or false$/],
    ["a misspelt commits field", "version: 1\ncommits:\n  sign: true\n", /^commits\.sign: is not a field this version knows$/],
    ["commits as a switch", "version: 1\ncommits: signed\n", /^commits: must be \{ signed \}$/],
    ["a model with spaces", "version: 1\nmodel: the best one\n", /^model: must be a model id/],
    ["a blank trigger instruction", "version: 1\ntriggers:\n  assign: '  '\n", /^triggers\.assign: /],
    ["a label too long for GitHub", `version: 1\ntriggers:\n  label:\n    name: ${"x".repeat(51)}\n`, /^triggers\.label/],
    ["a misspelt trigger", "version: 1\ntriggers:\n  assigned: go\n", /^triggers\.assigned: is not a field/]
  ])("%s: the error names what is wrong", (_name, text, expected) => {
    const errors = errorsOf(text);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(expected);
  });

  it.each(PUBLIC_SUFFIX_WILDCARDS)("refuses %s, saying why and what to write instead", (entry, suffix) => {
    expect(errorsOf(`version: 1\nnetwork:\n  allow: ['${entry}']\n`)).toEqual([
      `network.allow[0]: "${entry}" is too wide: ${suffix} is a public suffix (Public Suffix List): the hosts under it belong to different owners; name the exact host instead (to only read from it: { host: <the host>, methods: [GET, HEAD] })`
    ]);
  });

  it("refuses a public suffix as an exact host, and a wide wildcard in a method entry too", () => {
    expect(errorsOf("version: 1\nnetwork:\n  allow: [github.io]\n")).toEqual([
      'network.allow[0]: "github.io" is not one owner\'s host: github.io is a public suffix (Public Suffix List): the hosts under it belong to different owners; name the exact host under it instead (to only read from it: { host: <the host>, methods: [GET, HEAD] })'
    ]);
    expect(errorsOf("version: 1\nnetwork:\n  allow:\n    - { host: '*.github.io', methods: [GET] }\n")[0]).toMatch(/^network\.allow\[0\]\.host: "\*\.github\.io" is too wide: github\.io is a public suffix/);
  });

  it("names a misspelt field of a method entry, and the field it then lacks", () => {
    expect(errorsOf("version: 1\nnetwork:\n  allow:\n    - { host: a.example, method: [GET] }\n")).toEqual([
      "network.allow[0].methods: must be a list of methods, such as [GET, HEAD]",
      "network.allow[0].method: is not a field this version knows"
    ]);
  });

  it("names every bad entry of the list", () => {
    expect(errorsOf("version: 1\nnetwork:\n  allow: [ok.example, '*.co.uk', { host: b.example, methods: [TRACE] }, 7]\n").map((error) => error.split(":")[0])).toEqual([
      "network.allow[1]",
      "network.allow[2].methods[0]",
      "network.allow[3]"
    ]);
  });

  it("is refused whole when it is larger than the limit", () => {
    const errors = errorsOf(`version: 1\n# ${"x".repeat(MAX_REPO_CONFIG_BYTES)}\n`);
    expect(errors).toEqual(["the file is larger than 16 KB"]);
  });

  it("lists every problem, not only the first", () => {
    expect(errorsOf("version: 3\nsetup:\n  backend: vm\n  commands: [ls]\n")).toHaveLength(2);
  });
});
