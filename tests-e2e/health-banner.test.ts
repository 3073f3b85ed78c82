/**
 * The configuration health banner in a real browser (Chromium, support/browser.ts,
 * driven by playwright-core) against a half-configured `wrangler dev
 * --local`: LOCAL_DEV=1 so the dashboard is served, but the skills bucket
 * never seeded, a GITHUB_API_URL that names no GitHub, and GITHUB_AUTH
 * left unresolved (no webhook app running beside it). `GET /api/health`
 * says so, check by check, and the dashboard shows a red banner naming
 * each fix. The screenshot is kept at test-results/health-banner.png.
 */
import { mkdirSync } from "node:fs";
import { describe, expect } from "vitest";
import { startDevServer, test as base, type DevServer } from "./fixture";
import { useChromium } from "./support/browser";
import type { HealthReport } from "../src/shared/health";

const SCREENSHOT = "test-results/health-banner.png";
const REFUSED_GITHUB_API_URL = "https://github.example.com/api";

const test = base.extend("halfConfigured", { scope: "file" }, async ({}, { onCleanup }): Promise<DevServer> => {
  const server = await startDevServer({ localDev: true, githubApiUrl: REFUSED_GITHUB_API_URL });
  onCleanup(() => server.stop());
  return server;
});

const browser = useChromium();

describe("the health banner", () => {
  test("GET /api/health names what is missing, check by check", async ({ halfConfigured: server }) => {
    const response = await fetch(`${server.url}/api/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const report = (await response.json()) as HealthReport;
    const line = (id: string) => report.checks.find((check) => check.id === id);
    expect(report.status).toBe("block");
    expect(line("skills")).toMatchObject({ status: "block", detail: "SKILLS_BUCKET holds no skills", fix: expect.stringContaining("npm run seed:r2") });
    expect(line("github")).toMatchObject({ status: "block", detail: expect.stringContaining(REFUSED_GITHUB_API_URL) });
    // wrangler's own answer for a service binding nothing serves: unreachable, which local dev only warns about.
    expect(line("token-broker")).toMatchObject({ status: "warn", detail: expect.stringContaining("does not reach the token broker") });
    expect(line("repros")?.status).toBe("ok");
    expect(line("access")?.status).toBe("ok");
    expect(line("containers")?.status).toBe("warn");
    expect(line("local-dev")?.status).toBe("warn");
  });

  test("is red on the dashboard, names each fix, and follows to a thread page", { timeout: 60_000 }, async ({ halfConfigured: server }) => {
    const page = await browser().newPage({ viewport: { width: 1280, height: 800 } });
    page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
    await page.goto(server.url);
    await page.getByTestId("command-center").waitFor();
    const banner = page.locator('[data-testid="health-banner"][data-status="block"]');
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.getAttribute("role")).toBe("alert");
    const text = (await banner.textContent()) ?? "";
    expect(text).toContain("Runs cannot work until 2 settings are fixed");
    expect(text).toContain("npm run seed:r2");
    expect(text).toContain("set GITHUB_API_URL to https://api.github.com");
    const lines = banner.getByTestId("health-check");
    expect(await lines.evaluateAll((items) => items.map((item) => `${item.getAttribute("data-check")}:${item.getAttribute("data-status")}`))).toEqual([
      "github:block",
      "skills:block",
      "model:warn",
      "token-broker:warn",
      "containers:warn",
      "local-dev:warn"
    ]);
    mkdirSync("test-results", { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    await page.goto(`${server.url}/thread/acme-widgets-1`);
    await page.getByTestId("thread-page").waitFor();
    await page.locator('[data-testid="health-banner"][data-status="block"]').waitFor({ timeout: 15_000 });
    await page.close();
  });
});
