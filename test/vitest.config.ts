import { cloudflareTest } from "@cloudflare/vitest-plugin";
import agents from "agents/vite";
import { defineConfig } from "vitest/config";

// Workers-runtime tests: real Durable Object storage, real Think turns on the
// scripted model. isolate: false pays Think's cold start once per run, not
// once per file.
export default defineConfig({
  plugins: [agents(), cloudflareTest({ wrangler: { configPath: "./test/wrangler.jsonc" } })],
  test: {
    name: "workers",
    include: ["test/**/*.test.ts"],
    exclude: ["test/unit/**"],
    testTimeout: 30_000,
    isolate: false
  }
});
