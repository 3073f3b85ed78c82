import { defineConfig } from "vitest/config";

// Pure modules: plain Node, no runtime. isolate: false runs the files of a
// worker in one module graph instead of re-importing it per file, which was
// most of this suite's time (docs/testing.md); a file that stubs a global
// or the timers restores them in its afterEach.
export default defineConfig({
  test: { name: "unit", include: ["test/unit/**/*.test.ts"], isolate: false }
});
