import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The real-container suite: plain Node driving the image that
// `npm run test:container` (scripts/test-container.ts) has just built and
// names in CONTAINER_TEST_IMAGE. One file at a time: each drives the one
// Docker engine. The timeouts cover a container's start on a loaded runner.
export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    name: "container",
    environment: "node",
    include: ["tests-container/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 5 * 60_000,
    hookTimeout: 5 * 60_000
  }
});
