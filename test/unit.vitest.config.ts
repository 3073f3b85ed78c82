import { defineConfig } from "vitest/config";

// Pure modules: plain Node, no runtime. isolate: false runs the files of a
// worker in one module graph instead of re-importing it per file, which was
// most of this suite's time (docs/testing.md); a file that stubs a global
// or the timers restores them in its afterEach. The timeout is a hang
// guard: npm test runs this suite beside another, so a CPU-heavy test may
// take several times its time alone.
export default defineConfig({
  test: {
    name: "unit",
    include: ["test/unit/**/*.test.ts"],
    isolate: false,
    testTimeout: 20_000,
    experimental: { fsModuleCache: true, fsModuleCachePath: "node_modules/.cache/vitest-modules" }
  }
});
