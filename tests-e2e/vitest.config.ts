import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The whole graph against a real `wrangler dev --local` (see fixture.ts).
// One file at a time: each file starts its own wrangler, and two at once
// on this 2-core machine only make both slower.
export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    name: "e2e",
    environment: "node",
    include: ["tests-e2e/**/*.test.ts"],
    fileParallelism: false,
    // The files share one module graph (playwright-core, the fixture, the
    // scripts they drive): re-importing it per file was a fifth of the
    // suite's CPU (docs/testing.md). Servers stay per file.
    isolate: false,
    // Transformed modules kept between runs (node_modules/.cache); both e2e jobs share them.
    experimental: { fsModuleCache: true, fsModuleCachePath: "node_modules/.cache/vitest-modules" },
    // Chromium is found (and the npm build unpacked) once, before any file,
    // and the agent Worker bundled once for every server the fixture starts.
    globalSetup: ["tests-e2e/support/chromium-setup.ts", "tests-e2e/support/worker-bundle.ts"],
    // Starting wrangler takes 5-10 s and happens inside the first test that uses it.
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
});
