/**
 * The e2e tests' Chromium, driven by playwright-core: one browser for each
 * e2e job (the files share one worker and module graph: vitest.config.ts),
 * launched by the first file that asks for it; a launch and a close cost
 * about a CPU second, and six files used to make one each. Each file gets
 * its pages in contexts of their own (`newPage` and `newContext` make
 * one), and its contexts are closed after its tests, so no file sees
 * another's cookies, storage or pages. Playwright kills the browser when
 * the worker exits. Which Chromium is scripts/lib/chromium.ts's choice
 * (CHROMIUM_PATH, a system one, or the build the npm package ships); where
 * none can be had, each file fails with the line that says what to
 * install, never a skip. Screenshots go to `SHOTS`.
 */
import { mkdirSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { CHROMIUM_ARGS, findChromium } from "../../scripts/lib/chromium";

export const SHOTS = "test-results/screenshots";

let launched: Promise<Browser> | undefined;

async function launch(): Promise<Browser> {
  const { path } = await findChromium();
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({ executablePath: path, args: CHROMIUM_ARGS });
}

/** Registers the file's use of the browser; the returned function gives it to a test. */
export function useChromium(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    // A browser that crashed or was closed is launched again.
    const current = launched && (await launched.catch(() => undefined));
    if (!current?.isConnected()) launched = launch();
    browser = await launched;
  });
  afterAll(async () => {
    // What the file opened goes with it; the browser stays for the next file.
    await Promise.all((browser?.contexts() ?? []).map((context) => context.close()));
  });
  return () => {
    if (!browser) throw new Error("the browser is not running (useChromium's beforeAll has not run)");
    return browser;
  };
}
