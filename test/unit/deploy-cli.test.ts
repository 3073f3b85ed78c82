/**
 * `npm run deploy` as a command (runDeploy), driven by a runner and a fetch
 * that answer from recordings: what it asks, the lines it prints, the steps
 * it runs and in which order, what stops it, its exit codes, and that the
 * credential it asks wrangler for is sent to the API and never printed.
 * The real command on this machine is tests-e2e/deploy.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCheckout } from "../../scripts/lib/doctor/checkout";
import type { Checkout } from "../../scripts/lib/doctor/types";
import { runDeploy } from "../../scripts/lib/deploy/run";
import type { RunOptions, RunResult } from "../../scripts/lib/deploy/runner";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const TOKEN = "oauth-canary-token-0123456789";
const ACCOUNT = { id: "0123456789abcdef0123456789abcdef", name: "Acme" };
const scratch = mkdtempSync(join(tmpdir(), "agent-think-deploy-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let template: Checkout;
let deployable: Checkout;
beforeAll(async () => {
  template = { ...(await readCheckout(ROOT)), agentLocal: null, ingressLocal: null };
  const filled = {
    PUBLIC_BASE_URL: "https://agent-think.acme.workers.dev",
    AI_GATEWAY_ACCOUNT_ID: "account",
    AI_GATEWAY_ID: "gateway",
    CF_ACCESS_TEAM_DOMAIN: "acme",
    CF_ACCESS_AUD: "aud-tag",
    ALLOWED_REPOS: "acme/widgets"
  };
  deployable = {
    ...template,
    agent: { ...template.agent, vars: { ...template.agent.vars, ...filled } },
    ingress: { ...template.ingress, vars: { ...template.ingress.vars, ALLOWED_REPOS: "acme/widgets" } }
  };
});

const ok = (stdout = ""): RunResult => ({ code: 0, stdout, stderr: "" });
const json = (value: unknown) => ok(`${JSON.stringify(value)}\n`);

/** What each command answers on an account ready to deploy to. */
function readyAnswers(root: string): Record<string, () => RunResult> {
  return {
    "docker info --format {{json .}}": () => json({ ServerVersion: "28.2.2", OSType: "linux", Architecture: "x86_64" }),
    "npx wrangler whoami --json": () => json({ loggedIn: true, authType: "OAuth Token", email: "ops@acme.test", accounts: [ACCOUNT] }),
    "npx wrangler auth token --json": () => json({ type: "oauth", token: TOKEN }),
    "npx wrangler secret list -c ingress/wrangler.jsonc": () => json(["GITHUB_WEBHOOK_SECRET", "GITHUB_APP_ID", "GITHUB_APP_PRIVATE_KEY"].map((name) => ({ name, type: "secret_text" }))),
    "npx wrangler secret list": () => json([{ name: "CLOUDFLARE_AIG_TOKEN", type: "secret_text" }]),
    "npm run build": () => {
      mkdirSync(join(root, "dist", "client"), { recursive: true });
      writeFileSync(join(root, "dist", "client", "index.html"), "<!doctype html>");
      return ok();
    },
    "npx wrangler deploy": () => ok(),
    "npm run seed:r2": () => ok(),
    "npx wrangler deploy -c ingress/wrangler.jsonc": () => ok()
  };
}

/** The API as Cloudflare documents its envelopes, for an account on Workers Paid with R2 and a subdomain. */
const READY_API: Record<string, unknown> = {
  "/subscriptions": { success: true, errors: [], messages: [], result: [{ id: "s1", state: "Paid", rate_plan: { id: "workers_paid", public_name: "Workers Paid" } }] },
  "/r2/buckets": { success: true, errors: [], messages: [], result: { buckets: [] } },
  "/workers/subdomain": { success: true, errors: [], messages: [], result: { subdomain: "acme" } }
};

async function deploy(argv: string[], options: { checkout?: Checkout; answers?: Record<string, () => RunResult>; api?: Record<string, unknown>; env?: Record<string, string> } = {}) {
  const root = mkdtempSync(join(scratch, "root-"));
  const answers = { ...readyAnswers(root), ...options.answers };
  const api = { ...READY_API, ...options.api };
  const ran: Array<{ line: string; inherit: boolean }> = [];
  const asked: Array<{ url: string; authorization: string | null }> = [];
  let stdout = "";
  let stderr = "";
  const code = await runDeploy(argv, {
    root,
    env: options.env ?? {},
    hostArch: "x64",
    checkout: options.checkout ?? deployable,
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    run: async (command: string, args: readonly string[], runOptions?: RunOptions) => {
      const line = [command, ...args].join(" ");
      ran.push({ line, inherit: runOptions?.inherit === true });
      const answer = answers[line];
      if (!answer) throw new Error(`no recorded answer for ${line}`);
      return answer();
    },
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input);
      asked.push({ url, authorization: new Headers(init?.headers).get("authorization") });
      const path = url.replace(`https://api.cloudflare.com/client/v4/accounts/${ACCOUNT.id}`, "");
      const body = api[path];
      if (body === undefined) throw new Error(`no recorded answer for ${url}`);
      const status = (body as { success?: boolean }).success ? 200 : 403;
      return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    }) as typeof fetch
  });
  const steps = ran.filter((entry) => entry.inherit).map((entry) => entry.line);
  return { code, stdout, stderr, ran, steps, asked };
}

describe("npm run deploy --dry-run", () => {
  it("asks every check, prints each line and the steps in order, runs none, and exits 0 when nothing blocks", async () => {
    const run = await deploy(["--dry-run"]);
    expect(run.steps).toEqual([]);
    expect(run.ran.map((entry) => entry.line)).toEqual([
      "docker info --format {{json .}}",
      "npx wrangler whoami --json",
      "npx wrangler auth token --json",
      "npx wrangler secret list -c ingress/wrangler.jsonc",
      "npx wrangler secret list"
    ]);
    expect(run.stdout).toContain("  ✓ Docker: the daemon answers (Docker 28.2.2, linux/x86_64)\n");
    expect(run.stdout).toContain(`  ✓ Cloudflare login: OAuth Token as ops@acme.test; account Acme (${ACCOUNT.id})\n`);
    expect(run.stdout).toContain("  ✓ Workers Paid plan: Workers Paid (Paid)\n");
    expect(run.stdout).toContain("  ✓ workers.dev subdomain: acme.workers.dev: https://agent-think.acme.workers.dev and https://agent-think-ingress.acme.workers.dev\n");
    expect(run.stdout).toContain(
      "Would run, in order:\n" +
        "  1. npm run build   (the dashboard into dist/client)\n" +
        "  2. npx wrangler deploy   (the agent Worker, which builds and pushes the container image)\n" +
        "  3. npm run seed:r2   (skills/ into the skills bucket)\n" +
        "  4. npx wrangler deploy -c ingress/wrangler.jsonc   (the webhook app)\n"
    );
    expect(run.stdout, run.stdout).not.toMatch(/^ {2}[!✗]/m);
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("✓ nothing blocks the deploy; --dry-run ran nothing");
    expect(run.code).toBe(0);
  });

  it("sends wrangler's credential to the API and never prints it, even when an answer echoes it", async () => {
    const run = await deploy(["--dry-run"], { api: { "/workers/subdomain": { success: false, errors: [{ code: 10000, message: `Authentication error for ${TOKEN}` }], result: null } } });
    expect(run.asked.map((entry) => entry.url.split("/accounts/")[1])).toEqual([`${ACCOUNT.id}/subscriptions`, `${ACCOUNT.id}/r2/buckets`, `${ACCOUNT.id}/workers/subdomain`]);
    expect(run.asked.every((entry) => entry.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(run.stdout).toContain("Authentication error for [redacted]");
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });

  it("uses CLOUDFLARE_API_TOKEN when it is set, without asking wrangler for one", async () => {
    const run = await deploy(["--dry-run"], { env: { CLOUDFLARE_API_TOKEN: "env-canary-token-0123456789" } });
    expect(run.ran.map((entry) => entry.line)).not.toContain("npx wrangler auth token --json");
    expect(run.asked[0]?.authorization).toBe("Bearer env-canary-token-0123456789");
    expect(run.stdout).not.toContain("env-canary");
  });

  it("exits 1 on the template, with each blocking line naming its fix on that line", async () => {
    const run = await deploy(["--dry-run"], { checkout: template });
    expect(run.stdout).toMatch(/^ {2}✗ npm run doctor: 4 lines block runs: Allowed repositories, Model, Cloudflare Access and Thread links — fix: npm run doctor names each one's fix$/m);
    expect(run.stdout).toMatch(/^ {2}✗ Model secrets: with CLOUDFLARE_AIG_TOKEN put, the agent Worker would refuse every run: .* — fix: /m);
    expect(run.steps).toEqual([]);
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("✗ 2 checks block the deploy (Model secrets, npm run doctor); nothing was run");
    expect(run.code).toBe(1);
  });

  it("asks nothing of the account when wrangler is not logged in, and says so on each line", async () => {
    const run = await deploy(["--dry-run"], { answers: { "npx wrangler whoami --json": () => ({ code: 1, stdout: '{"loggedIn":false}\n', stderr: "" }) } });
    expect(run.ran.map((entry) => entry.line)).toEqual(["docker info --format {{json .}}", "npx wrangler whoami --json"]);
    expect(run.asked).toEqual([]);
    expect(run.stdout).toContain("  ✗ Cloudflare login: not logged in: nothing can be deployed — fix: npx wrangler login");
    expect(run.stdout.match(/not asked: no Cloudflare login/g)).toHaveLength(5);
    expect(run.code).toBe(1);
  });
});

describe("npm run deploy", () => {
  it("runs the build, the agent Worker, the seed and the webhook app, in that order, in the terminal", async () => {
    const run = await deploy([]);
    expect(run.steps).toEqual(["npm run build", "npx wrangler deploy", "npm run seed:r2", "npx wrangler deploy -c ingress/wrangler.jsonc"]);
    expect(run.stdout).toContain("Runs, in order:\n");
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("✓ deployed. Next: npm run doctor -- --url https://agent-think.acme.workers.dev (the deployed Worker's own health report)");
    expect(run.code).toBe(0);
  });

  it("leaves the seed out with --no-seed", async () => {
    const run = await deploy(["--no-seed"]);
    expect(run.steps).toEqual(["npm run build", "npx wrangler deploy", "npx wrangler deploy -c ingress/wrangler.jsonc"]);
    expect(run.code).toBe(0);
  });

  it("runs nothing while a check blocks: Docker without a daemon", async () => {
    const run = await deploy([], { answers: { "docker info --format {{json .}}": () => ({ code: 1, stdout: "", stderr: "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n" }) } });
    expect(run.steps).toEqual([]);
    expect(run.stdout).toContain("Would run, in order:");
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("✗ 1 check blocks the deploy (Docker); nothing was run");
    expect(run.code).toBe(1);
  });

  it("stops at the first step that fails and names the ones not run", async () => {
    const run = await deploy([], { answers: { "npx wrangler deploy": () => ({ code: 1, stdout: "", stderr: "" }) } });
    expect(run.steps).toEqual(["npm run build", "npx wrangler deploy"]);
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("✗ npx wrangler deploy failed (exit 1); not run: npm run seed:r2, npx wrangler deploy -c ingress/wrangler.jsonc");
    expect(run.code).toBe(1);
  });

  it("names error 10136 with its fix when the agent Worker's deploy fails with it", async () => {
    const stderr = "✘ [ERROR] R2 binding error for bucket 'agent-think-skills': Please enable R2 through the Cloudflare Dashboard. [code: 10136]\n";
    const run = await deploy([], { answers: { "npx wrangler deploy": () => ({ code: 1, stdout: "", stderr }) } });
    expect(run.steps).toEqual(["npm run build", "npx wrangler deploy"]);
    const [known, failed] = run.stdout.trimEnd().split("\n").slice(-2);
    expect(known).toMatch(/^  ✗ npx wrangler deploy: Cloudflare refused the R2 binding for agent-think-skills with "Please enable R2" \[code 10136\].* — fix: check that R2 is enabled at https:\/\/dash\.cloudflare\.com\/.*workers-sdk#15610, then run npm run deploy again$/);
    expect(failed).toBe("✗ npx wrangler deploy failed (exit 1); not run: npm run seed:r2, npx wrangler deploy -c ingress/wrangler.jsonc");
    expect(run.code).toBe(1);
  });

  it("stops when the build leaves no dashboard", async () => {
    const run = await deploy([], { answers: { "npm run build": () => ok() } });
    expect(run.steps).toEqual(["npm run build"]);
    expect(run.stdout).toContain("  ✗ Dashboard: npm run build left no dist/client/index.html");
    expect(run.code).toBe(1);
  });

  it("asks and runs nothing when the checkout's config does not parse", async () => {
    const root = mkdtempSync(join(scratch, "broken-"));
    mkdirSync(join(root, "ingress"));
    writeFileSync(join(root, "wrangler.jsonc"), "{ not json");
    writeFileSync(join(root, "ingress", "wrangler.jsonc"), "{}");
    const ran: string[] = [];
    let stdout = "";
    const code = await runDeploy([], { root, env: {}, hostArch: "x64", out: (text) => (stdout += text), err: () => {}, run: async (command, args) => (ran.push([command, ...args].join(" ")), ok()) });
    expect(stdout).toMatch(/^ {2}✗ Checkout: could not be read: .* — fix: fix the file named/m);
    expect(ran).toEqual([]);
    expect(code).toBe(1);
  });

  it("exits 2 on a bad argument and runs nothing; 0 on --help", async () => {
    const bad = await deploy(["--dryrun"]);
    expect(bad).toMatchObject({ code: 2, ran: [], stdout: "" });
    expect(bad.stderr).toContain('deploy: unknown argument "--dryrun"');
    expect(bad.stderr).toContain("usage: npm run deploy");
    const help = await deploy(["--help"]);
    expect(help).toMatchObject({ code: 0, ran: [], stdout: expect.stringContaining("--no-seed") });
  });
});
