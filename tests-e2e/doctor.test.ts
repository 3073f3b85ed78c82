/**
 * `npm run doctor -- --url` against a real local agent Worker (`wrangler
 * dev --local`, LOCAL_DEV=1): the CLI, as a child process, reads the
 * Worker's own `GET /api/health` and prints it beside this checkout's
 * lines. With the skills bucket never seeded, the Worker's Skills line
 * blocks, so the doctor exits 1 and names `npm run seed:r2`; seeded while
 * the Worker runs (as a contributor reseeds), the same command exits 0.
 */
import { spawn } from "node:child_process";
import { dirname } from "node:path";
import { describe, expect } from "vitest";
import { seedSkills } from "../scripts/lib/seed-skills";
import type { DoctorReport } from "../scripts/lib/doctor/report";
import { ROOT, test } from "./fixture";

const DOCTOR_TIMEOUT_MS = 60_000;

function doctor(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const { CF_ACCESS_CLIENT_ID: _id, CF_ACCESS_CLIENT_SECRET: _secret, ...env } = process.env;
    const child = spawn("npx", ["tsx", "scripts/doctor.ts", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` },
      timeout: DOCTOR_TIMEOUT_MS
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The lines of the Worker's section of the text report. */
function workerSection(stdout: string, url: string): string {
  const title = `The Worker's health report (${url}/api/health):\n`;
  expect(stdout).toContain(title);
  return stdout.slice(stdout.indexOf(title) + title.length).split("\n\n")[0]!;
}

describe("npm run doctor --url against the local Worker", () => {
  test("exits 1 on the unseeded skills bucket with its fix, and 0 once it is seeded", { timeout: 180_000 }, async ({ server }) => {
    const unseeded = await doctor(["--url", server.url]);
    const lines = workerSection(unseeded.stdout, server.url);
    expect(lines).toContain("  ✗ Skills bucket: SKILLS_BUCKET holds no skills\n      fix: npm run seed:r2 -- --local");
    expect(lines).toMatch(/^ {2}! Local dev: LOCAL_DEV=1/m);
    expect(lines).toMatch(/^ {2}! Model: the scripted model/m);
    expect(lines).toMatch(/^ {2}✓ Reproductions bucket: /m);
    // This checkout's own lines come first and do not block.
    expect(unseeded.stdout.slice(0, unseeded.stdout.indexOf("The Worker's health report"))).not.toContain("✗");
    expect(unseeded.stdout.trimEnd().split("\n").at(-1)).toMatch(/^✗ 1 check blocks runs; \d+ warnings$/);
    expect(unseeded.code, unseeded.stderr).toBe(1);

    await seedSkills({ local: true, persistTo: server.persistTo });
    const seeded = await doctor(["--url", server.url, "--json"]);
    const report = JSON.parse(seeded.stdout) as DoctorReport;
    expect(report.worker).toMatchObject({ url: `${server.url}/api/health`, generatedAt: expect.any(String) });
    expect(report.worker!.checks.map((check) => check.id).sort()).toEqual(
      ["access", "containers", "egress", "github", "local-dev", "model", "repros", "skills", "token-broker"]
    );
    expect(report.worker!.checks.find((check) => check.id === "skills")).toMatchObject({ status: "ok" });
    expect(report.status).toBe("warn");
    expect(seeded.code, seeded.stderr).toBe(0);
  });
});
