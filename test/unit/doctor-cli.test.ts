/**
 * `npm run doctor` as a command: a checkout read from disk (a copy of this
 * repository's, edited per case), the lines and summary it prints, --json,
 * --url merged into the exit code with the Access token never printed, and
 * the exit codes, one blocking case at a time. In-process through
 * runDoctor; the real entry runs once as a child process over this
 * repository, whose template blocks on what the operator must fill in.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { checkoutChecks } from "../../scripts/lib/doctor/checks";
import { exportedNames, readCheckout } from "../../scripts/lib/doctor/checkout";
import type { DoctorReport } from "../../scripts/lib/doctor/report";
import { runDoctor } from "../../scripts/lib/doctor/run";
import { healthReport } from "../../src/shared/health";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const COPIED = ["wrangler.jsonc", "ingress/wrangler.jsonc", ".env_example", "ingress/.env_example", "src/index.ts", "ingress/src/index.ts", "skills"];
const scratch = mkdtempSync(join(tmpdir(), "agent-think-doctor-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of this checkout's configs, env examples, entry modules and skills, with `edits` applied as text replacements. */
function checkout(edits: Record<string, Array<[string, string]>> = {}, files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(scratch, "checkout-"));
  for (const path of COPIED) cpSync(join(ROOT, path), join(root, path), { recursive: true });
  for (const [path, replacements] of Object.entries(edits)) {
    let text = readFileSync(join(root, path), "utf8");
    for (const [from, to] of replacements) {
      expect(text, `${path} holds ${from}`).toContain(from);
      text = text.replace(from, to);
    }
    writeFileSync(join(root, path), text);
  }
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  return root;
}

/** This checkout with every template value filled in, and a local gateway token. */
const DEPLOYABLE = {
  "wrangler.jsonc": [
    ['"PUBLIC_BASE_URL": "http://127.0.0.1:8787"', '"PUBLIC_BASE_URL": "https://agent-think.acme.workers.dev"'],
    ['"AI_GATEWAY_ACCOUNT_ID": ""', '"AI_GATEWAY_ACCOUNT_ID": "account"'],
    ['"AI_GATEWAY_ID": ""', '"AI_GATEWAY_ID": "gateway"'],
    ['"CF_ACCESS_TEAM_DOMAIN": ""', '"CF_ACCESS_TEAM_DOMAIN": "acme"'],
    ['"CF_ACCESS_AUD": ""', '"CF_ACCESS_AUD": "aud-tag"'],
    ['"ALLOWED_REPOS": ""', '"ALLOWED_REPOS": "acme/widgets"']
  ],
  "ingress/wrangler.jsonc": [['"ALLOWED_REPOS": ""', '"ALLOWED_REPOS": "acme/widgets"']]
} satisfies Record<string, Array<[string, string]>>;
const LOCAL_TOKEN = { ".dev.vars": "CLOUDFLARE_AIG_TOKEN=aig-canary-0123456789\n" };

async function doctor(root: string, argv: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runDoctor(argv, { root, env, out: (text) => (stdout += text), err: (text) => (stderr += text), now: () => Date.parse("2026-10-20T12:00:00Z") });
  return { code, stdout, stderr };
}

/** A Worker answering GET /api/health with a report of `status`; the headers it saw. */
async function worker(status: "ok" | "block"): Promise<{ base: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const check =
    status === "ok"
      ? { id: "skills" as const, label: "Skills bucket", status: "ok" as const, detail: "holds every skill the agent uses: address-review, open-pr, reproduce" }
      : { id: "skills" as const, label: "Skills bucket", status: "block" as const, detail: "SKILLS_BUCKET holds no skills", fix: "npm run seed:r2" };
  const server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(healthReport([check], 0)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  };
}

describe("npm run doctor over a checkout", () => {
  it("prints every line with its mark and the fix under each, a summary, and exits 1 on the template: a deploy of it would refuse or ignore every run", async () => {
    const { code, stdout } = await doctor(checkout(), []);
    expect(stdout).toMatch(/^This checkout \(.+\):\n/);
    expect(stdout).toContain("  ✓ Service bindings: agent-think binds agent-think-ingress#AgentThinkTokenBroker");
    expect(stdout).toContain(
      '  ✗ Allowed repositories: ALLOWED_REPOS is empty in both configs: the webhook app ignores every repository and the agent Worker refuses every run\n' +
        '      fix: set the same ALLOWED_REPOS, "owner/name,owner/other", in wrangler.jsonc and ingress/wrangler.jsonc\n'
    );
    expect(stdout).toContain(
      "  ✗ Cloudflare Access: wrangler.jsonc sets neither CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD nor ACCESS=off: a deploy would answer 503 to the dashboard, /api/*, /agents/* and private reproductions\n" +
        "      fix: set CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD in wrangler.jsonc"
    );
    expect(stdout).toContain("  ✗ Model: wrangler.jsonc: model is not configured: set AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID");
    expect(stdout).toContain("  ✗ Thread links: PUBLIC_BASE_URL is http://127.0.0.1:8787");
    expect(stdout.match(/^ {2}✗ [^:]+/gm)).toEqual(["  ✗ Allowed repositories", "  ✗ Model", "  ✗ Cloudflare Access", "  ✗ Thread links"]);
    expect(stdout.trimEnd().split("\n").at(-1)).toBe("✗ 4 checks block runs");
    expect(code).toBe(1);
  });

  it("exits 0 on a filled-in checkout with the explicit opt-out ACCESS=off, which warns", async () => {
    const deployable = DEPLOYABLE["wrangler.jsonc"].filter(([from]) => !from.includes("CF_ACCESS"));
    const { code, stdout } = await doctor(checkout({ ...DEPLOYABLE, "wrangler.jsonc": [...deployable, ['"ACCESS": ""', '"ACCESS": "off"']] }, LOCAL_TOKEN), []);
    expect(stdout).toMatch(/^ {2}! Cloudflare Access: ACCESS=off: .*open to anyone/m);
    expect(stdout).not.toContain("✗");
    expect(stdout.trimEnd().split("\n").at(-1)).toBe("! nothing blocks runs; 1 warning");
    expect(code).toBe(0);
  });

  // Each case is the filled-in checkout with one template value put back: each alone makes a run refused or ignored.
  const BLOCKING: Array<{ name: string; id: string; edits: Record<string, Array<[string, string]>> }> = [
    { name: "no model", id: "model", edits: { "wrangler.jsonc": [['"AI_GATEWAY_ID": "gateway"', '"AI_GATEWAY_ID": ""'], ['"AI_GATEWAY_ACCOUNT_ID": "account"', '"AI_GATEWAY_ACCOUNT_ID": ""']] } },
    { name: "an empty ALLOWED_REPOS", id: "allowlist", edits: { "wrangler.jsonc": [['"ALLOWED_REPOS": "acme/widgets"', '"ALLOWED_REPOS": ""']], "ingress/wrangler.jsonc": [['"ALLOWED_REPOS": "acme/widgets"', '"ALLOWED_REPOS": ""']] } },
    { name: "PUBLIC_BASE_URL at 127.0.0.1", id: "public-url", edits: { "wrangler.jsonc": [['"PUBLIC_BASE_URL": "https://agent-think.acme.workers.dev"', '"PUBLIC_BASE_URL": "http://127.0.0.1:8787"']] } },
    { name: "PUBLIC_BASE_URL at localhost", id: "public-url", edits: { "wrangler.jsonc": [['"PUBLIC_BASE_URL": "https://agent-think.acme.workers.dev"', '"PUBLIC_BASE_URL": "http://localhost:8787"']] } },
    { name: "Access unset", id: "access", edits: { "wrangler.jsonc": [['"CF_ACCESS_TEAM_DOMAIN": "acme"', '"CF_ACCESS_TEAM_DOMAIN": ""'], ['"CF_ACCESS_AUD": "aud-tag"', '"CF_ACCESS_AUD": ""']] } }
  ];
  for (const { name, id, edits } of BLOCKING) {
    it(`exits 1 on ${name}, and that line alone blocks`, async () => {
      const paths = [...new Set([...Object.keys(DEPLOYABLE), ...Object.keys(edits)])];
      const root = checkout(Object.fromEntries(paths.map((path) => [path, [...(DEPLOYABLE[path as keyof typeof DEPLOYABLE] ?? []), ...(edits[path] ?? [])]])), LOCAL_TOKEN);
      const { code, stdout } = await doctor(root, ["--json"]);
      const report = JSON.parse(stdout) as DoctorReport;
      expect(report.checkout.checks.filter((check) => check.status === "block").map((check) => check.id)).toEqual([id]);
      expect(report.checkout.checks.find((check) => check.id === id)?.fix).toBeTruthy();
      expect(code).toBe(1);
    });
  }

  it("says nothing blocks, with no warning, once every template value is filled in", async () => {
    const { code, stdout } = await doctor(checkout(DEPLOYABLE, LOCAL_TOKEN), []);
    expect(stdout).not.toMatch(/^ {2}[!✗]/m);
    expect(stdout.trimEnd().split("\n").at(-1)).toBe("✓ nothing blocks runs");
    expect(stdout).not.toContain("aig-canary");
    expect(code).toBe(0);
  });

  it("exits 1 when a line blocks, and names its fix", async () => {
    const root = checkout({ ...DEPLOYABLE, "wrangler.jsonc": [...DEPLOYABLE["wrangler.jsonc"], ['"LOCAL_DEV": ""', '"LOCAL_DEV": "1"']] }, LOCAL_TOKEN);
    const { code, stdout } = await doctor(root, []);
    expect(stdout).toContain("  ✗ Local dev: wrangler.jsonc sets LOCAL_DEV=1");
    expect(stdout).toContain('      fix: set LOCAL_DEV to "" in wrangler.jsonc');
    expect(stdout.trimEnd().split("\n").at(-1)).toBe("✗ 1 check blocks runs");
    expect(code).toBe(1);
  });

  it("prints the report as JSON with --json", async () => {
    const { code, stdout } = await doctor(checkout({ "ingress/wrangler.jsonc": [['"name": "agent-think-ingress"', '"name": "acme-ingress"']] }), ["--json"]);
    const report = JSON.parse(stdout) as DoctorReport;
    expect(report).toMatchObject({ status: "block", generatedAt: "2026-10-20T12:00:00.000Z", checkout: { status: "block" } });
    expect(report).not.toHaveProperty("worker");
    expect(report.checkout.checks.find((check) => check.id === "bindings")).toMatchObject({ status: "block", fix: expect.stringContaining("acme-ingress") });
    expect(code).toBe(1);
  });

  it("blocks a checkout whose config does not parse", async () => {
    const { code, stdout } = await doctor(checkout({}, { "ingress/wrangler.jsonc": "{ not json" }), []);
    expect(stdout).toContain("  ✗ Checkout: could not be read:");
    expect(code).toBe(1);
  });

  it("exits 2 on a bad argument, with the usage; 0 on --help", async () => {
    for (const argv of [["--nope"], ["--url"], ["--url", "agent-think.workers.dev"]]) {
      const { code, stderr } = await doctor(ROOT, argv);
      expect(code, argv.join(" ")).toBe(2);
      expect(stderr).toContain("usage: npm run doctor");
    }
    const help = await doctor(ROOT, ["--help"]);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringContaining("CF_ACCESS_CLIENT_SECRET") });
  });
});

describe("npm run doctor --url", () => {
  const SECRET = "access-secret-canary-0123456789";
  const access = { CF_ACCESS_CLIENT_ID: "0123abcd.access", CF_ACCESS_CLIENT_SECRET: SECRET };

  it("adds the Worker's lines and merges its block into the exit code (an unseeded skills bucket on the target exits 1); the Access token is sent, never printed", async () => {
    const running = await worker("block");
    try {
      const root = checkout(DEPLOYABLE, LOCAL_TOKEN);
      const { code, stdout, stderr } = await doctor(root, ["--url", running.base], access);
      expect(stdout).toContain(`The Worker's health report (${running.base}/api/health):\n  ✗ Skills bucket: SKILLS_BUCKET holds no skills\n      fix: npm run seed:r2\n`);
      expect(stdout.trimEnd().split("\n").at(-1)).toBe("✗ 1 check blocks runs");
      expect(code).toBe(1);
      expect(running.seen[0]).toMatchObject({ "cf-access-client-id": "0123abcd.access", "cf-access-client-secret": SECRET });
      expect(stdout + stderr).not.toMatch(/access-secret-canary|0123abcd/);

      const json = await doctor(root, ["--json", `--url=${running.base}`], access);
      const report = JSON.parse(json.stdout) as DoctorReport;
      expect(report).toMatchObject({ status: "block", checkout: { status: "ok" }, worker: { url: `${running.base}/api/health`, status: "block" } });
      expect(json.stdout).not.toContain(SECRET);
    } finally {
      await running.close();
    }
  });

  it("exits 0 when neither the checkout nor the Worker blocks", async () => {
    const running = await worker("ok");
    try {
      const { code, stdout } = await doctor(checkout(DEPLOYABLE, LOCAL_TOKEN), ["--url", running.base]);
      expect(stdout).toContain("  ✓ Skills bucket: holds every skill");
      expect(code).toBe(0);
      expect(running.seen[0]).not.toHaveProperty("cf-access-client-id");
    } finally {
      await running.close();
    }
  });

  it("does not ask with half an Access token", async () => {
    const { code, stdout } = await doctor(checkout(DEPLOYABLE, LOCAL_TOKEN), ["--url", "http://127.0.0.1:9"], { CF_ACCESS_CLIENT_SECRET: SECRET });
    expect(stdout).toContain("  ✗ Health endpoint: not asked: CF_ACCESS_CLIENT_ID is not set while CF_ACCESS_CLIENT_SECRET is");
    expect(stdout).not.toContain(SECRET);
    expect(code).toBe(1);
  });
});

describe("reading a checkout", () => {
  it("reads both configs, the entry modules' exports, the env files and the skills", async () => {
    const root = checkout({}, { ".dev.vars": 'CLOUDFLARE_AIG_TOKEN="aig token"\n', "ingress/.env": "GITHUB_APP_ID=1\n" });
    const read = await readCheckout(root);
    expect(read).toMatchObject({
      agent: { name: "agent-think" },
      ingress: { name: "agent-think-ingress" },
      agentFlags: { experimental: [], unknown: [] },
      agentSecrets: ["CLOUDFLARE_AIG_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"],
      ingressSecrets: ["GITHUB_WEBHOOK_SECRET", "GITHUB_APP_ID", "GITHUB_APP_PRIVATE_KEY"],
      agentLocal: { file: ".dev.vars", vars: { CLOUDFLARE_AIG_TOKEN: "aig token" } },
      ingressLocal: { file: "ingress/.env", vars: { GITHUB_APP_ID: "1" } },
      skills: { ok: true, skills: ["address-review", "open-pr", "reproduce"] }
    });
    expect(read.agentExports).toContain("AgentThink");
    expect(read.ingressExports).toEqual(expect.arrayContaining(["AgentThinkTokenBroker", "CommentClaim"]));
  });

  it("asks workerd about the flags, and seed:r2's rules about the skills", async () => {
    const root = checkout(
      { "wrangler.jsonc": [['"compatibility_flags": ["nodejs_compat"]', '"compatibility_flags": ["nodejs_compat", "enable_abortsignal_rpc"]']] },
      { "skills/open-pr/SKILL.md": "no front matter\n" }
    );
    const read = await readCheckout(root);
    expect(read.agentFlags).toEqual({ experimental: ["enable_abortsignal_rpc"], unknown: [] });
    expect(read.skills).toMatchObject({ ok: false, problems: [expect.stringContaining("open-pr/SKILL.md")] });
  });

  it("finds exported names the way a Worker's main module writes them", () => {
    const source = [
      'export { ThinkAgent } from "./agent";',
      'export { WorkspaceProxy, WorkspaceServiceProxy as Proxy, type Foo } from "x";',
      "export class AgentThink extends WorkerEntrypoint<Env> {}",
      "export default {",
      "export const limit = 1;",
      "// export class Commented {}"
    ].join("\n");
    expect(exportedNames(source).sort()).toEqual(["AgentThink", "Proxy", "ThinkAgent", "WorkspaceProxy", "limit"]);
  });
});

describe("this repository's checkout", () => {
  it("blocks on each template value an operator must fill in, and on nothing else, whatever this machine's own .dev.vars says", async () => {
    const checks = checkoutChecks({ ...(await readCheckout(ROOT)), agentLocal: null, ingressLocal: null });
    expect(checks.filter((check) => check.status === "block").map((check) => check.id)).toEqual(["allowlist", "model", "access", "public-url"]);
    expect(checks.find((check) => check.id === "access")).toMatchObject({ fix: expect.stringContaining("CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD") });
  });

  // tsx's start and workerd's answer about the flags take seconds: the child's own 60 s limit is the one that matters.
  it("is what the real entry checks: npx tsx scripts/doctor.ts --json", { timeout: 90_000 }, async () => {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        "npx",
        ["tsx", "scripts/doctor.ts", "--json"],
        { cwd: ROOT, encoding: "utf8", timeout: 60_000, env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` } },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr })
      );
    });
    const report = JSON.parse(run.stdout) as DoctorReport;
    expect(report.checkout.root).toBe(ROOT);
    expect(report.checkout.checks.map((check) => check.id)).toContain("bindings");
    // npm run doctor on the template as shipped: Access blocks, with its fix.
    expect(report.checkout.checks.find((check) => check.id === "access")).toMatchObject({ status: "block", fix: expect.stringContaining('ACCESS to "off"') });
    expect(report.status).toBe("block");
    expect(run.code, run.stderr).toBe(1);
  });
});
