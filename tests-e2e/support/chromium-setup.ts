/**
 * e2e globalSetup: finds Chromium once, before any test file, and hands its
 * path to the test processes as CHROMIUM_PATH, so two files never unpack
 * the npm package's build at the same time. Finding none is not an error
 * here: only the browser suites need one, and each fails with the line
 * that says what to install (support/browser.ts).
 */
import { findChromium, NoChromiumError } from "../../scripts/lib/chromium";

export default async function setup(): Promise<void> {
  try {
    const { path, source } = await findChromium();
    process.env.CHROMIUM_PATH = path;
    console.log(`e2e: Chromium from ${source}: ${path}`);
  } catch (error) {
    if (!(error instanceof NoChromiumError)) throw error;
  }
}
