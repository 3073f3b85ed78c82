/**
 * A private npm registry through the egress gateway, with real counterparts:
 * the real npm client installs a scoped package from verdaccio, which lets
 * only a logged-in user read. The sandbox's npm knows the registry by a name
 * (`npm.acme.localhost`) and holds no token; the credential comes from the
 * repository's `registries:` entry, the operator's REGISTRY_SECRETS and the
 * Worker's secret (registryGrants), and the gateway attaches it per request.
 * A reporter run's grant and an unnamed host get nothing. Plain HTTP, as
 * every egress test here speaks (test/support/egress-proxy.ts).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantFor, type EgressGrant } from "../../src/egress/grant";
import { registryGrants } from "../../src/egress/registry-grants";
import { parseRepoConfig } from "../../src/run/repo-config";
import { EgressProxy } from "../support/egress-proxy";
import { PrivateRegistry } from "../support/npm-registry";

const run = promisify(execFile);
/** The registry's name in the sandbox; the test's upstream maps it to verdaccio's port. */
const SANDBOX_REGISTRY = "http://npm.acme.localhost";
const CONFIG = "version: 1\nregistries:\n  - { kind: npm, host: npm.acme.localhost, scope: '@acme', secret: ACME_NPM_TOKEN }\n";
const INSTALL_TIMEOUT_MS = 120_000;

let registry: PrivateRegistry;
let proxy: EgressProxy;
let token: string;
let grant: EgressGrant;
/** The grant the gateway answers with now: the maintainer's run's, or a reporter run's. */
let current: EgressGrant;
/** What reached the registry through the gateway: each request's path and the Authorization it carried. */
const upstream: { path: string; authorization: string | null }[] = [];

beforeAll(async () => {
  registry = await PrivateRegistry.start(`${SANDBOX_REGISTRY}/`);
  token = await registry.addUser("robot", "robot-password-for-the-test");
  await registry.publish("@acme/widget", "1.0.0", "widget from the private registry", token);
  const parsed = parseRepoConfig(CONFIG);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const resolved = registryGrants(parsed.config.registries, "acme/widgets", { registrySecrets: "acme/widgets:ACME_NPM_TOKEN" }, (name) => (name === "ACME_NPM_TOKEN" ? token : undefined));
  expect(resolved.refusals).toEqual([]);
  // The sandbox speaks plain HTTP here; in production the origin is https:// (registryGrants).
  const registries = resolved.grants.map((entry) => ({ ...entry, origin: SANDBOX_REGISTRY }));
  grant = grantFor({ submissionId: "s1", repo: "acme/widgets", readToken: "", writeToken: "", registries });
  proxy = await EgressProxy.start({
    gitOrigin: "http://127.0.0.1:9",
    apiOrigin: "http://127.0.0.1:9",
    grant: () => current,
    upstream: async (request) => {
      const url = new URL(request.url);
      if (url.origin !== SANDBOX_REGISTRY) return fetch(request);
      upstream.push({ path: url.pathname, authorization: request.headers.get("authorization") });
      return fetch(new Request(`${registry.origin}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, redirect: "manual" }));
    }
  });
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await proxy?.close();
  await registry?.close();
});

/** A sandbox: a project depending on `dependency`, a home whose npmrc names `scopeLine`, npm's cache; nothing else. */
function sandbox(dependency: string, scopeLine: string) {
  const root = mkdtempSync(join(tmpdir(), "agent-think-sandbox-"));
  for (const dir of ["home", "project", "cache"]) mkdirSync(join(root, dir));
  writeFileSync(join(root, "home", ".npmrc"), `${scopeLine}\n`);
  writeFileSync(join(root, "project", "package.json"), JSON.stringify({ name: "sandbox-app", version: "1.0.0", private: true, dependencies: { [dependency]: "1.0.0" } }));
  const env = {
    PATH: process.env.PATH,
    HOME: join(root, "home"),
    npm_config_cache: join(root, "cache"),
    npm_config_proxy: proxy.url,
    // Anything not scoped would go to a registry that does not exist: nothing leaves for the public one.
    npm_config_registry: "http://registry.unused.localhost/"
  };
  return { root, env, project: join(root, "project") };
}

async function npm(args: string[], box: ReturnType<typeof sandbox>): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run("npm", [...args, "--no-audit", "--no-fund", "--no-update-notifier"], { cwd: box.project, env: box.env as unknown as NodeJS.ProcessEnv });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === "number" ? failed.code : 1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

/** Every file under `dir` that holds `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...filesHolding(path, needle));
    else if (readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}

describe("a private npm registry through the gateway, with the real npm and verdaccio", { timeout: INSTALL_TIMEOUT_MS }, () => {
  it("the registry gives nothing without a token (npm straight to it, no gateway)", async () => {
    const box = sandbox("@acme/widget", `@acme:registry=${registry.origin}/`);
    const result = await npm(["install"], { ...box, env: { ...box.env, npm_config_proxy: "" } });
    expect(result.code, result.output).not.toBe(0);
    expect(result.output).toMatch(/E401|E403|401|403/);
  });

  it("installs the scoped package with the token the gateway attaches, and the token is nowhere in the sandbox", async () => {
    current = grant;
    upstream.length = 0;
    const box = sandbox("@acme/widget", `@acme:registry=${SANDBOX_REGISTRY}/`);
    const result = await npm(["install"], box);
    expect(result.code, `${result.output}\n${proxy.refusals.map((refusal) => refusal.reason).join("\n")}`).toBe(0);
    const { stdout } = await run(process.execPath, ["-p", "require('@acme/widget')"], { cwd: box.project });
    expect(stdout.trim()).toBe("widget from the private registry");
    // The packument and the tarball both went through the gateway, each with the registry's token.
    expect(upstream.map((request) => request.path)).toEqual(expect.arrayContaining(["/@acme%2fwidget", "/@acme/widget/-/widget-1.0.0.tgz"]));
    expect(new Set(upstream.map((request) => request.authorization))).toEqual(new Set([`Bearer ${token}`]));
    // Not in a file of the sandbox (its npmrc, the lockfile, npm's cache), its environment, npm's or git's config.
    expect(filesHolding(box.root, token)).toEqual([]);
    expect(JSON.stringify(box.env)).not.toContain(token);
    const config = await npm(["config", "list", "--json"], box);
    expect(config.code, config.output).toBe(0);
    expect(config.output).not.toContain(token);
    const git = await run("git", ["config", "--list", "--show-origin"], { env: box.env as unknown as NodeJS.ProcessEnv }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    expect(git.stdout).not.toContain(token);
    expect(proxy.errors).toEqual([]);
  });

  it("a reporter run's grant has no registry: npm is refused at the gateway, and nothing reaches the registry", async () => {
    current = grantFor({ submissionId: "s2", repo: "acme/widgets", readToken: "", writeToken: "", registries: [] });
    upstream.length = 0;
    const refused = proxy.refusals.length;
    const box = sandbox("@acme/widget", `@acme:registry=${SANDBOX_REGISTRY}/`);
    const result = await npm(["install"], box);
    expect(result.code, result.output).not.toBe(0);
    expect(result.output).toContain("403");
    expect(upstream).toEqual([]);
    expect(proxy.refusals.slice(refused).map((refusal) => refusal.host)).toContain("npm.acme.localhost");
  });

  it("a host no entry names gets no credential: off the allowlist, it is refused", async () => {
    current = grant;
    upstream.length = 0;
    const refused = proxy.refusals.length;
    const box = sandbox("@other/thing", "@other:registry=http://npm.other.localhost/");
    const result = await npm(["install"], box);
    expect(result.code, result.output).not.toBe(0);
    expect(upstream).toEqual([]);
    expect(proxy.refusals.slice(refused)).toEqual([expect.objectContaining({ host: "npm.other.localhost", reason: expect.stringContaining("is not on this run's network allowlist") })]);
  });
});
