import { defineConfig } from "vitest/config";

// Pure modules: plain Node, no runtime.
export default defineConfig({
  test: { name: "unit", include: ["test/unit/**/*.test.ts"] }
});
