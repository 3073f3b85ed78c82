/**
 * The whole chain for an end-to-end test: the recording GitHub stand-in,
 * the agent Worker and the webhook app, both under real `wrangler dev`,
 * sharing a private dev registry, the webhook app signed for with a fresh
 * secret and a fresh App key. `stop()` stops them and removes their files.
 *
 * `test` adds `sharedChain`: the maintainer's chain (`startMaintainerChain`)
 * once for each e2e job, shared by the files that need nothing fresh of it
 * (ci-failure, fix-proof, issue-assignment, pull-requests). A chain is two
 * `wrangler dev` starts, about 8 CPU seconds. Each of those files works in
 * a repository of its own (`SHARED_CHAIN_REPOS`), so their issues, pull
 * requests, sessions, seeded files and deliveries never meet; a file that
 * reads what a fresh webhook app does first (ingress.test.ts: the App's
 * identity learned on the first delivery) keeps its own chain.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGitHubStandin, type GitHubStandin, type StandinOptions } from "../../scripts/lib/github-standin";
import { Octokit } from "@octokit/rest";
import { devVarsText, ingressDevArgs, WEBHOOK_PATH } from "../../scripts/lib/ingress-dev";
import { startDevServer, startWrangler, test as base } from "../fixture";

export type Chain = {
  standin: GitHubStandin;
  /** The GitHub API both Workers are configured with (the stand-in's root, or its /api/v3 for an Enterprise Server). */
  apiUrl: string;
  agent: Awaited<ReturnType<typeof startDevServer>>;
  ingress: Awaited<ReturnType<typeof startWrangler>>;
  /** The webhook secret deliveries are signed with. */
  secret: string;
  /** Both Workers' last output, for a failure message. */
  logs(): string;
  stop(): Promise<void>;
};

export type ChainOptions = {
  /** The webhook app's ALLOWED_REPOS. */
  allowedRepos: string;
  standin?: StandinOptions;
  /** Appended to the stand-in's URL for GITHUB_API_URL ("/api/v3" for an Enterprise Server). */
  apiPath?: string;
  /** The webhook secret; a fresh random one when absent. */
  secret?: string;
  /** More vars for the agent Worker (`--var NAME:value`), e.g. MODEL_PRICES. */
  agentVars?: Record<string, string>;
};

export async function startChain(options: ChainOptions): Promise<Chain> {
  const dir = await mkdtemp(join(tmpdir(), "agent-think-chain-"));
  const registryPath = join(dir, "registry");
  const standin = await startGitHubStandin(options.standin);
  const apiUrl = `${standin.url}${options.apiPath ?? ""}`;
  const secret = options.secret ?? randomBytes(24).toString("hex");
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs1", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
  const envFile = join(dir, "ingress.dev.vars");
  await writeFile(envFile, devVarsText({ webhookSecret: secret, appId: "1", privateKeyPem: privateKey }), { mode: 0o600 });
  const started = await Promise.allSettled([
    startDevServer({ localDev: true, githubApiUrl: apiUrl, registryPath, ...(options.agentVars ? { vars: options.agentVars } : {}) }),
    startWrangler({
      registryPath,
      args: ({ port, inspectorPort, persistTo }) => ingressDevArgs({ port, inspectorPort, persistTo, envFile, githubApiUrl: apiUrl, allowedRepos: options.allowedRepos })
    })
  ]);
  const stop = async () => {
    await Promise.all(started.map((result) => (result.status === "fulfilled" ? result.value.stop() : undefined)));
    await standin.close();
    await rm(dir, { recursive: true, force: true });
  };
  const [agent, ingress] = started;
  if (agent.status === "rejected" || ingress.status === "rejected") {
    await stop();
    throw agent.status === "rejected" ? agent.reason : (ingress as PromiseRejectedResult).reason;
  }
  return {
    standin,
    apiUrl,
    agent: agent.value,
    ingress: ingress.value,
    secret,
    logs: () => `--- agent ---\n${agent.value.output().slice(-3_000)}\n--- ingress ---\n${ingress.value.output().slice(-3_000)}`,
    stop
  };
}

/**
 * The chain with a maintainer who acts through the stand-in's API: `maria`,
 * who may maintain the repositories, and whose comments, assignments and
 * labels the stand-in delivers to the webhook app as GitHub would.
 */
export async function startMaintainerChain(allowedRepos: string): Promise<{ chain: Chain; maintainer: Octokit }> {
  const chain = await startChain({ allowedRepos, standin: { userLogin: "maria", permissions: { maria: "maintain" }, webhook: null } });
  chain.standin.setWebhook({ url: `${chain.ingress.url}${WEBHOOK_PATH}`, secret: chain.secret });
  const maintainer = new Octokit({ baseUrl: chain.standin.url, auth: "ghp_maria", log: { debug() {}, info() {}, warn() {}, error() {} } });
  return { chain, maintainer };
}

/** Each sharing file's repository; all of them allowed on the shared chain. */
export const SHARED_CHAIN_REPOS = {
  /** ci-failure: its `.github/agent-think.yml` turns `ci.fix` on. */
  ci: "acme/widgets",
  /** ci-failure: allowed, with no `.github/agent-think.yml`, so `ci` is off there. */
  ciOff: "acme/gadgets",
  fixProof: "acme/proofs",
  assignment: "acme/assignments",
  pullRequests: "acme/pulls"
} as const;

export const test = base.extend("sharedChain", { scope: "worker" }, async ({}, { onCleanup }): Promise<{ chain: Chain; maintainer: Octokit }> => {
  const started = await startMaintainerChain(Object.values(SHARED_CHAIN_REPOS).join(","));
  onCleanup(() => started.chain.stop());
  return started;
});
