/**
 * The real `npm run deploy -- --dry-run` on this machine, as a child
 * process: no Docker daemon (DOCKER_HOST points at a socket that does not
 * exist, so a running Docker elsewhere changes nothing), no Cloudflare login
 * (an empty HOME, so wrangler finds no credential), the template's
 * checkout. It must say each of those, report the dashboard as built (the
 * e2e suite builds it first), print the four steps, run none of them, and
 * exit 1. No server: it asks nothing of the network.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnRunner, type RunResult } from "../scripts/lib/deploy/runner";
import { ROOT } from "./fixture";

const home = mkdtempSync(join(tmpdir(), "agent-think-deploy-home-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Through the deploy's own runner (scripts/lib/deploy/runner.ts): the exit code and what it printed. */
function dryRun(): Promise<RunResult> {
  const { CLOUDFLARE_API_TOKEN: _token, CLOUDFLARE_ACCOUNT_ID: _account, CLOUDFLARE_API_KEY: _key, WRANGLER_DOCKER_BIN: _bin, ...env } = process.env;
  const run = spawnRunner(ROOT, {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    DOCKER_HOST: `unix://${join(home, "no-docker.sock")}`,
    WRANGLER_SEND_METRICS: "false",
    // A fresh HOME has no record of npm's last update check: without this npm asks the registry.
    npm_config_update_notifier: "false",
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`
  });
  return run("npm", ["run", "-s", "deploy", "--", "--dry-run"], { timeoutMs: 120_000 });
}

describe("npm run deploy -- --dry-run on this machine", () => {
  it("reports Docker, the login and the template's blocks, the dashboard built, what it would run; runs nothing and exits 1", { timeout: 150_000 }, async () => {
    const index = join(ROOT, "dist", "client", "index.html");
    const built = existsSync(index);
    const run = await dryRun();
    expect(run.stdout).toMatch(/^ {2}✗ Docker: (docker is not installed|docker info says "Cannot connect to the Docker daemon at unix:\/\/.*no-docker\.sock)/m);
    expect(run.stdout).toContain("  ✗ Cloudflare login: not logged in: nothing can be deployed — fix: npx wrangler login");
    for (const label of ["Workers Paid plan", "R2", "workers.dev subdomain", "Webhook app secrets", "Model secrets"]) {
      expect(run.stdout).toContain(`  ! ${label}: not asked: no Cloudflare login`);
    }
    expect(run.stdout).toMatch(!built ? /^ {2}✓ Dashboard: dist\/client is not built yet/m : /^ {2}✓ Dashboard: dist\/client is built \(/m);
    expect(run.stdout).toMatch(/^ {2}✗ npm run doctor: 4 lines block runs: Allowed repositories, Model, Cloudflare Access and Thread links/m);
    // The README's order: the dashboard, the agent Worker, its skills, the webhook app last.
    expect(run.stdout).toMatch(/^Would run, in order:\n {2}1\. npm run build .*\n {2}2\. npx wrangler deploy .*\n {2}3\. npm run seed:r2 .*\n {2}4\. npx wrangler deploy -c ingress\/wrangler\.jsonc /m);
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("✗ 3 checks block the deploy (Docker, Cloudflare login, npm run doctor); nothing was run");
    // That no step runs is asserted on the runner in test/unit/deploy-cli.test.ts; dist/client's time is no proof
    // here, since anyone in this working tree may rebuild it meanwhile.
    expect(run.code, run.stderr).toBe(1);
  });
});
