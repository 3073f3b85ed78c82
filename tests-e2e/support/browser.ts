/**
 * The e2e tests' Chromium, driven by playwright-core: one browser per test
 * file, launched before its tests and closed after them. Which Chromium is
 * scripts/lib/chromium.ts's choice (CHROMIUM_PATH, a system one, or the
 * build the npm package ships); where none can be had, the file fails with
 * the line that says what to install, never a skip. Screenshots go to `SHOTS`.
 */
import { mkdirSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { CHROMIUM_ARGS, findChromium } from "../../scripts/lib/chromium";

export const SHOTS = "test-results/screenshots";

/** Registers the file's browser; the returned function gives it to a test. */
export function useChromium(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    const { path } = await findChromium();
    mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: path, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error("the browser is not running (useChromium's beforeAll has not run)");
    return browser;
  };
}
