/**
 * `npm run doctor -- --url` against a real local agent Worker (`wrangler
 * dev --local`, LOCAL_DEV=1): the CLI, as a child process, reads the
 * Worker's own `GET /api/health` and prints it beside this checkout's
 * lines. With the skills bucket never seeded, the Worker's Skills line
 * blocks and names `npm run seed:r2`; seeded while the Worker runs (as a
 * contributor reseeds), the Worker's report blocks nothing. This checkout
 * is the template, which leaves Access, the model, ALLOWED_REPOS and
 * PUBLIC_BASE_URL for the operator to set, so those lines block either way
 * and the exit code is 1 both times.
 */
import { dirname, join } from "node:path";
import { describe, expect } from "vitest";
import { spawnRunner, type RunResult } from "../scripts/lib/deploy/runner";
import { seedSkills } from "../scripts/lib/seed-skills";
import type { DoctorReport } from "../scripts/lib/doctor/report";
import { ROOT, test } from "./fixture";

const DOCTOR_TIMEOUT_MS = 60_000;

/**
 * Through the deploy's runner (scripts/lib/deploy/runner.ts), without an
 * Access token from this environment: what `npm run doctor` runs, without
 * npx's own start.
 */
function doctor(args: string[]): Promise<RunResult> {
  const { CF_ACCESS_CLIENT_ID: _id, CF_ACCESS_CLIENT_SECRET: _secret, ...env } = process.env;
  const run = spawnRunner(ROOT, { ...env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` });
  return run(join(ROOT, "node_modules", ".bin", "tsx"), ["scripts/doctor.ts", ...args], { timeoutMs: DOCTOR_TIMEOUT_MS });
}

/** The lines of the Worker's section of the text report. */
function workerSection(stdout: string, url: string): string {
  const title = `The Worker's health report (${url}/api/health):\n`;
  expect(stdout).toContain(title);
  return stdout.slice(stdout.indexOf(title) + title.length).split("\n\n")[0]!;
}

describe("npm run doctor --url against the local Worker", () => {
  test("blocks on the unseeded skills bucket with its fix, and not once it is seeded; the template's unfilled values block throughout", { timeout: 180_000 }, async ({ server }) => {
    const unseeded = await doctor(["--url", server.url]);
    const lines = workerSection(unseeded.stdout, server.url);
    expect(lines).toContain("  ✗ Skills bucket: SKILLS_BUCKET holds no skills\n      fix: npm run seed:r2 -- --local");
    expect(lines).toMatch(/^ {2}! Local dev: LOCAL_DEV=1/m);
    expect(lines).toMatch(/^ {2}! Model: the scripted model/m);
    expect(lines).toMatch(/^ {2}✓ Reproductions bucket: /m);
    // The local Worker runs with LOCAL_DEV=1: no Access is fine there.
    expect(lines).toMatch(/^ {2}✓ Cloudflare Access: off, as local dev runs/m);
    // This checkout's own lines come first; the template blocks on each value an operator fills in, with its fix.
    const checkout = unseeded.stdout.slice(0, unseeded.stdout.indexOf("The Worker's health report"));
    expect(checkout.match(/^ {2}✗ [^:]+/gm)).toEqual(["  ✗ Allowed repositories", "  ✗ Model", "  ✗ Cloudflare Access", "  ✗ Thread links"]);
    expect(checkout).toMatch(/^ {2}✗ Cloudflare Access: wrangler\.jsonc sets neither CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD nor ACCESS=off/m);
    expect(checkout).toContain("      fix: set CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD in wrangler.jsonc");
    expect(unseeded.stdout.trimEnd().split("\n").at(-1)).toMatch(/^✗ 5 checks block runs; \d+ warnings$/);
    expect(unseeded.code, unseeded.stderr).toBe(1);

    await seedSkills({ local: true, persistTo: server.persistTo });
    const seeded = await doctor(["--url", server.url, "--json"]);
    const report = JSON.parse(seeded.stdout) as DoctorReport;
    expect(report.worker).toMatchObject({ url: `${server.url}/api/health`, generatedAt: expect.any(String) });
    // The Worker's report, whatever lines it has gained since, still carries these.
    expect(report.worker!.checks.map((check) => check.id)).toEqual(
      expect.arrayContaining(["access", "allowed-repos", "containers", "egress", "github", "local-dev", "model", "repros", "skills", "token-broker"])
    );
    expect(report.worker!.checks.find((check) => check.id === "skills")).toMatchObject({ status: "ok" });
    expect(report.worker!.checks.filter((check) => check.status === "block")).toEqual([]);
    expect(report.worker!.status).toBe("warn");
    // What still blocks is the template's unfilled values, and nothing else.
    expect(report.checkout.checks.filter((check) => check.status === "block").map((check) => check.id)).toEqual(["allowlist", "model", "access", "public-url"]);
    expect(report.status).toBe("block");
    expect(seeded.code, seeded.stderr).toBe(1);
  });
});
