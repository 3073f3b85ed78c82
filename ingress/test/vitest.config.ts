import { webcrypto, KeyObject } from "node:crypto";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// The webhook app's Workers-runtime tests. The App's key pair and the webhook
// secret are made here for each run, never committed. The secrets reach the
// Worker through this process's environment, the way wrangler reads the
// config's `secrets.required` (as under the bench's wrangler dev); the
// private key as GitHub hands it out (PKCS#1 PEM). The public key is a
// test-only binding: the MSW handlers verify every App JWT the Worker signs.
const { privateKey, publicKey } = await webcrypto.subtle.generateKey(
  { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
  true,
  ["sign", "verify"]
);
const appPublicKey = Buffer.from(await webcrypto.subtle.exportKey("spki", publicKey)).toString("base64");
process.env.GITHUB_WEBHOOK_SECRET = Buffer.from(webcrypto.getRandomValues(new Uint8Array(24))).toString("hex");
process.env.GITHUB_APP_PRIVATE_KEY = KeyObject.from(privateKey).export({ type: "pkcs1", format: "pem" }).toString();

export default defineConfig({
  test: {
    // The Worker logs every delivery; show those lines only for a failing test.
    silent: "passed-only",
    // Transformed modules kept between runs (node_modules/.cache), for both projects.
    experimental: { fsModuleCache: true, fsModuleCachePath: "node_modules/.cache/vitest-modules" },
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./ingress/test/wrangler.jsonc" },
            miniflare: { bindings: { TEST_APP_PUBLIC_KEY: appPublicKey } }
          })
        ],
        test: {
          name: "ingress",
          include: ["ingress/test/**/*.test.ts"],
          exclude: ["ingress/test/unit/**"],
          testTimeout: 30_000,
          isolate: false,
          // GitHub's REST description judges every request the MSW handlers answer (test/support/github-spec.ts).
          globalSetup: ["test/support/github-spec-setup.ts"]
        }
      },
      // Checks that read files and wrangler's config parser: plain Node.
      { test: { name: "ingress-unit", include: ["ingress/test/unit/**/*.test.ts"], isolate: false } }
    ]
  }
});
