import { cloudflareTest } from "@cloudflare/vitest-plugin";
import agents from "agents/vite";
import { defineConfig } from "vitest/config";

// Workers-runtime tests: real Durable Object storage, real Think turns on the
// scripted model. isolate: false pays Think's cold start once per run, not
// once per file.
export default defineConfig({
  plugins: [
    agents(),
    cloudflareTest({
      wrangler: { configPath: "./test/wrangler.jsonc" },
      // Over test/wrangler.jsonc's empty REGISTRY_SECRETS: the repositories of owner privsrc
      // (test/private-sources.test.ts) may name the Worker secret PRIVSRC_NPM_TOKEN, set here as
      // a deploy sets a secret (never a var: the test config keeps production's vars).
      miniflare: { bindings: { REGISTRY_SECRETS: "privsrc/*:PRIVSRC_NPM_TOKEN", PRIVSRC_NPM_TOKEN: "npm_privsrcTestTOKEN000000000000" } }
    })
  ],
  test: {
    name: "workers",
    include: ["test/**/*.test.ts"],
    exclude: ["test/unit/**"],
    // GitHub's REST descriptions judge every request the MSW handlers answer (support/github-spec.ts);
    // workerd's reports of the evictions the tests cause on purpose are counted, not printed.
    globalSetup: ["test/support/github-spec-setup.ts", "test/support/eviction-reports-setup.ts"],
    testTimeout: 30_000,
    isolate: false,
    // Two runtimes, each taking files in turn: most of this suite waits on a turn or a timer, so two overlap
    // (one at a time: 160 s beside the unit suite; two: about 85 s alone, docs/testing.md).
    maxWorkers: 2,
    // A run's last console line (its token's revocation, after its test ended) may reach the runner after the
    // runtime's last file closed its channel: that says nothing of any test, so only that error is let go.
    onUnhandledError: (error) => (error.name === "EnvironmentTeardownError" && error.message.includes('"onUserConsoleLog"') ? false : undefined),
    // Transformed modules kept between runs (node_modules/.cache): a second run skips most of the transform.
    experimental: { fsModuleCache: true, fsModuleCachePath: "node_modules/.cache/vitest-modules" }
  }
});
