/**
 * `npm run dev:ingress`: the webhook app on this machine, beside `npm start`.
 *
 * Runs `wrangler dev --cwd ingress -c wrangler.jsonc --local` (from
 * ingress/, so wrangler's types check reads the webhook app's own
 * worker-configuration.d.ts) on 127.0.0.1 (port
 * `INGRESS_PORT`, default 8788) with its state in `.wrangler/ingress-state`,
 * GitHub calls going to the local GitHub stand-in that `npm start` runs
 * (port `GITHUB_STANDIN_PORT`, default 8790), `ALLOWED_REPOS` (default
 * acme/widgets) and `CI_FIX_REPOS` (default `*`: CI follow-ups on every
 * allowed repository; the stand-in's CI has no secrets). Its AGENT_THINK binding reaches the agent Worker of
 * `npm start` through wrangler's local dev registry.
 *
 * The secrets come from the gitignored `ingress/.dev.vars`. When it is
 * missing, this writes throwaway ones there (mode 0600): a random webhook
 * secret and a fresh RSA key in GitHub's PKCS#1 format, belonging to no
 * App. Secrets never go on a command line. Then `npm run send:delivery`
 * signs a sample delivery with the same secret.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runWranglerInForeground } from "./lib/foreground-wrangler";
import {
  DEFAULT_INGRESS_PORT,
  DEFAULT_STANDIN_PORT,
  DEV_APP_ID,
  DEV_CI_FIX_REPOS,
  DEV_PERSIST_TO,
  DEV_REPO,
  devVarsText,
  ingressBanner,
  ingressDevArgs,
  INGRESS_DEV_VARS
} from "./lib/ingress-dev";
import { parsePort } from "./lib/wrangler-dev";

const NAME = "npm run dev:ingress";
const root = fileURLToPath(new URL("..", import.meta.url));

function portFrom(variable: string, fallback: number): number {
  const parsed = parsePort(process.env[variable] ?? String(fallback));
  if (parsed.ok) return parsed.port;
  console.error(`${NAME}: ${variable}: ${parsed.error}`);
  process.exit(2);
}
const port = portFrom("INGRESS_PORT", DEFAULT_INGRESS_PORT);
const standinUrl = `http://127.0.0.1:${portFrom("GITHUB_STANDIN_PORT", DEFAULT_STANDIN_PORT)}`;
const allowedRepos = process.env.ALLOWED_REPOS ?? DEV_REPO;
const ciFixRepos = process.env.CI_FIX_REPOS ?? DEV_CI_FIX_REPOS;

const devVars = `${root}${INGRESS_DEV_VARS}`;
if (!existsSync(devVars)) {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" }
  });
  const secrets = { webhookSecret: randomBytes(32).toString("hex"), appId: DEV_APP_ID, privateKeyPem: privateKey };
  writeFileSync(devVars, devVarsText(secrets), { mode: 0o600, flag: "wx" });
  console.log(`${NAME}: wrote throwaway dev secrets to ${INGRESS_DEV_VARS} (gitignored)`);
}

const standinUp = await fetch(`${standinUrl}/_standin/records`, { signal: AbortSignal.timeout(1_000) }).then(
  (response) => response.ok,
  () => false
);
if (!standinUp) {
  console.warn(`${NAME}: nothing answers at ${standinUrl}: start \`npm start\` (or \`npm run github-standin\`) so GitHub calls have somewhere to go`);
}

runWranglerInForeground({
  name: NAME,
  root,
  args: ingressDevArgs({ port, githubApiUrl: standinUrl, allowedRepos, ciFixRepos, persistTo: `${root}${DEV_PERSIST_TO}` }),
  onReady: (url) => process.stdout.write(`${ingressBanner(url, standinUrl, allowedRepos, ciFixRepos)}\n`)
});
