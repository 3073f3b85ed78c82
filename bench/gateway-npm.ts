/**
 * The gateway bench's npm part: the real npm installs private packages of random bytes from
 * verdaccio (test/support/npm-registry.ts), through the gateway as a sandbox does (the proxy
 * harness as npm's `proxy`, no token on npm's side, the gateway attaching the credential of
 * the repository's `registries:` entry) and direct, npm holding the token in its npmrc. Each
 * sample has an empty npm cache and a new project, so every packument and tarball is fetched.
 * A failed install, an installed byte that differs from what was published, or a registry
 * request that left the gateway without the token ends the bench.
 */
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { grantFor } from "../src/egress/grant";
import { registryGrants } from "../src/egress/registry-grants";
import { parseRepoConfig } from "../src/run/repo-config";
import { EgressProxy } from "../test/support/egress-proxy";
import { PrivateRegistry } from "../test/support/npm-registry";
import type { Side } from "./stats";

/** Several packages, each one tarball of random bytes, under verdaccio's 10 MB publish limit once base64-encoded. */
const PACKAGE_COUNT = 6;
const PACKAGE_BYTES = 6 * 1024 * 1024;
export const NPM_INSTALL_BYTES = PACKAGE_COUNT * PACKAGE_BYTES;
/** The registry's name in the sandbox; the harness's upstream sends it to verdaccio's port. */
const SANDBOX_REGISTRY = "http://npm.acme.localhost";
const REPO = "acme/widgets";
const CONFIG = "version: 1\nregistries:\n  - { kind: npm, host: npm.acme.localhost, scope: '@acme', secret: ACME_NPM_TOKEN }\n";
/** One install of a few packages; far more means something hangs. */
const NPM_TIMEOUT_MS = 120_000;

export type NpmInstallRun = {
  /** One install on `side`: ms from spawning npm to its exit, and this process's CPU ms meanwhile. */
  install(side: Side): Promise<{ ms: number; cpuMs: number }>;
  /** Refusals by the gateway so far (expect none). */
  refusals(): number;
  close(): Promise<void>;
};

type Environment = Record<string, string | undefined>;

function run(command: string, args: string[], cwd: string, env: Environment): Promise<{ ms: number; output: string }> {
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: env as NodeJS.ProcessEnv, timeout: NPM_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const ms = performance.now() - startedAt;
      if (error) reject(new Error(`${command} ${args.join(" ")} failed after ${ms.toFixed(0)} ms: ${stderr || stdout || error.message}`));
      else resolve({ ms, output: `${stdout}${stderr}` });
    });
  });
}

/** `operation` (spawning a client) timed, with the CPU this process spent meanwhile. */
export async function timed(operation: () => Promise<{ ms: number }>): Promise<{ ms: number; cpuMs: number }> {
  const before = process.cpuUsage();
  const { ms } = await operation();
  const cpu = process.cpuUsage(before);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * The registry with PACKAGE_COUNT packages published, a user's token, and a
 * proxy whose gateway holds that token for the registry's name.
 */
export async function startNpmInstallRun(): Promise<NpmInstallRun> {
  const dir = mkdtempSync(join(tmpdir(), "agent-think-bench-npm-"));
  const closers: (() => Promise<void>)[] = [() => Promise.resolve(rmSync(dir, { recursive: true, force: true }))];
  const close = async () => {
    for (const one of closers.reverse()) await one();
  };
  try {
    const registry = await PrivateRegistry.start(`${SANDBOX_REGISTRY}/`);
    closers.push(() => registry.close());
    const token = await registry.addUser("bench", "bench-password-for-the-registry");
    const published = await publishAll(registry.origin, token, join(dir, "publish"));

    const parsed = parseRepoConfig(CONFIG);
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const resolved = registryGrants(parsed.config.registries, REPO, { registrySecrets: `${REPO}:ACME_NPM_TOKEN` }, (name) => (name === "ACME_NPM_TOKEN" ? token : undefined));
    if (resolved.refusals.length > 0) throw new Error(`gateway bench: the registry entry was refused: ${resolved.refusals.join("; ")}`);
    // The harness speaks plain HTTP; in production the origin is https:// (registryGrants).
    const registries = resolved.grants.map((entry) => ({ ...entry, origin: SANDBOX_REGISTRY }));
    const grant = grantFor({ submissionId: "bench", repo: REPO, readToken: "", writeToken: "", registries });
    /** Registry requests the gateway sent on that did not carry the token. */
    const withoutToken: string[] = [];
    const proxy = await EgressProxy.start({
      gitOrigin: "http://127.0.0.1:9",
      apiOrigin: "http://127.0.0.1:9",
      grant,
      upstream: (request) => {
        const url = new URL(request.url);
        if (url.origin !== SANDBOX_REGISTRY) return fetch(request);
        if (request.headers.get("authorization") !== `Bearer ${token}`) withoutToken.push(`${request.method} ${url.pathname}`);
        return fetch(new Request(`${registry.origin}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, redirect: "manual" }));
      }
    });
    closers.push(() => proxy.close());

    const host = registry.origin.slice("http:".length);
    const registryOf: Record<Side, string> = { ours: `${SANDBOX_REGISTRY}/`, bare: `${registry.origin}/` };
    // Direct: npm holds the token. Through the gateway: npm knows the registry by its sandbox name and holds nothing.
    const npmrc: Record<Side, string> = {
      ours: `@acme:registry=${registryOf.ours}\n`,
      bare: `@acme:registry=${registryOf.bare}\n${host}/:_authToken=${token}\n`
    };
    const dependencies = Object.fromEntries(published.map((one) => [one.name, one.version]));
    let samples = 0;
    const install = async (side: Side): Promise<{ ms: number; cpuMs: number }> => {
      const root = join(dir, `sample-${samples++}`);
      for (const sub of ["home", "project", "cache"]) mkdirSync(join(root, sub), { recursive: true });
      writeFileSync(join(root, "home", ".npmrc"), npmrc[side]);
      writeFileSync(join(root, "project", "package.json"), JSON.stringify({ name: "bench-app", version: "1.0.0", private: true, dependencies }));
      const env: Environment = {
        PATH: process.env.PATH,
        HOME: join(root, "home"),
        // An empty cache: every packument and tarball is fetched.
        npm_config_cache: join(root, "cache"),
        npm_config_registry: registryOf[side],
        // verdaccio writes tarball links with the sandbox's name; direct npm fetches them from the registry it was given.
        npm_config_replace_registry_host: "always",
        npm_config_proxy: side === "ours" ? proxy.url : "",
        npm_config_noproxy: ""
      };
      const took = await timed(() => run("npm", ["install", "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error"], join(root, "project"), env));
      for (const one of published) {
        const bytes = readFileSync(join(root, "project", "node_modules", one.name, "data.bin"));
        if (sha256(bytes) !== one.sha256) throw new Error(`gateway bench: a ${side} install of ${one.name} holds other bytes than were published`);
      }
      if (withoutToken.length > 0) throw new Error(`gateway bench: registry requests left the gateway without the token: ${withoutToken.join(", ")}`);
      rmSync(root, { recursive: true, force: true });
      return took;
    };
    return { install, refusals: () => proxy.refusals.length, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** PACKAGE_COUNT packages `@acme/bench-<i>@1.0.0`, each a `data.bin` of PACKAGE_BYTES random bytes, published with the real npm. */
async function publishAll(origin: string, token: string, dir: string): Promise<{ name: string; version: string; sha256: string }[]> {
  const host = origin.slice("http:".length);
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, ".npmrc"), `${host}/:_authToken=${token}\n`);
  const env: Environment = { PATH: process.env.PATH, HOME: home, npm_config_cache: join(dir, "cache") };
  const published: { name: string; version: string; sha256: string }[] = [];
  for (let i = 0; i < PACKAGE_COUNT; i++) {
    const name = `@acme/bench-${i}`;
    const work = join(dir, `package-${i}`);
    mkdirSync(work, { recursive: true });
    const bytes = randomBytes(PACKAGE_BYTES);
    writeFileSync(join(work, "package.json"), JSON.stringify({ name, version: "1.0.0", files: ["data.bin"] }));
    writeFileSync(join(work, "data.bin"), bytes);
    await run("npm", ["publish", "--registry", `${origin}/`, "--no-update-notifier", "--loglevel=error"], work, env);
    published.push({ name, version: "1.0.0", sha256: sha256(bytes) });
  }
  return published;
}
