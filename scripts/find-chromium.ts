/**
 * Finds Chromium as the browser suites will (scripts/lib/chromium.ts), so
 * the npm build is unpacked once, by `npm test`'s build job, before the two
 * e2e jobs start side by side. No browser is not an error here: only the
 * browser suites need one, and they say what to install.
 */
import { findChromium, NoChromiumError } from "./lib/chromium";

try {
  const { path, source } = await findChromium();
  console.log(`chromium: from ${source}: ${path}`);
} catch (error) {
  if (!(error instanceof NoChromiumError)) throw error;
  console.log(`chromium: none (${error.message})`);
}
