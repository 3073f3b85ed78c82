/**
 * `npm run deploy`'s command line: parse the arguments, ask every check
 * its answer through the one runner (and the Cloudflare API with
 * wrangler's credential), print the lines, then, unless --dry-run or
 * something blocks, run the steps in order and stop at the first that
 * fails. Returns the exit code. Everything external is in `DeployIo`, so
 * the tests drive it from recorded answers; scripts/deploy.ts wires the
 * real ones.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { worstStatus } from "../../../src/shared/health";
import { checkoutChecks } from "../doctor/checks";
import { readCheckout } from "../doctor/checkout";
import { INGRESS_CONFIG, line, varsOf, type Checkout, type WorkerConfig } from "../doctor/types";
import { dashboardCheck, dockerChecks, doctorCheck, ingressSecretsCheck, loginCheck, modelSecretsCheck, planCheck, r2Check, registrySecretsCheck, stepFailureCheck, subdomainCheck, type DeployCheck } from "./checks";
import { cloudflareApi, wranglerCredential, type ApiAnswer, type CloudflareApi } from "./cloudflare";
import { DEPLOY_USAGE, deploySteps, parseDeployArgs, shown } from "./plan";
import type { Runner } from "./runner";

export type DeployIo = {
  root: string;
  env: Record<string, string | undefined>;
  run: Runner;
  fetch?: typeof fetch;
  out(text: string): void;
  err(text: string): void;
  /** process.arch of this machine. */
  hostArch: string;
  /** A checkout already read (tests); else read from root, and one that does not parse stops everything. */
  checkout?: Checkout;
};

const MARK = { ok: "✓", warn: "!", block: "✗" } as const;
const NO_CREDENTIAL: ApiAnswer = { kind: "failed", error: "wrangler auth token gave no credential to ask with" };

export async function runDeploy(argv: readonly string[], io: DeployIo): Promise<0 | 1 | 2> {
  const parsed = parseDeployArgs(argv);
  if (!parsed.ok) {
    io.err(`deploy: ${parsed.error}\n\n${DEPLOY_USAGE}\n`);
    return 2;
  }
  if (parsed.kind === "help") {
    io.out(`${DEPLOY_USAGE}\n`);
    return 0;
  }
  const { args } = parsed;
  let secrets: string[] = [];
  const out = (text: string) => io.out(secrets.reduce((shownText, secret) => shownText.replaceAll(secret, "[redacted]"), text));

  let checkout: Checkout;
  try {
    checkout = io.checkout ?? (await readCheckout(io.root));
  } catch (error) {
    out(`${formatLine(line("checkout", "Checkout", "block", `could not be read: ${error instanceof Error ? error.message : String(error)}`, "fix the file named (wrangler.jsonc and ingress/wrangler.jsonc must parse); npm run doctor says the same"))}\n${MARK.block} nothing was asked or run\n`);
    return 1;
  }
  const checks: DeployCheck[] = [];
  const bin = io.env.WRANGLER_DOCKER_BIN?.trim() || "docker";
  checks.push(...dockerChecks({ bin, info: await io.run(bin, ["info", "--format", "{{json .}}"], { timeoutMs: 15_000 }), hostArch: io.hostArch }));

  const accountId = io.env.CLOUDFLARE_ACCOUNT_ID?.trim() || (checkout.agent as WorkerConfig & { account_id?: string }).account_id;
  const login = loginCheck({ whoami: await io.run("npx", ["wrangler", "whoami", "--json"], { timeoutMs: 60_000 }), ...(accountId ? { accountId } : {}) });
  checks.push(login.check);
  const { account } = login;
  let api: CloudflareApi | null = null;
  if (account) {
    const credential = await wranglerCredential(io.run, io.env);
    if (credential) {
      api = cloudflareApi(credential, io.fetch);
      secrets = api.secrets;
    }
  }
  const ask = async (path: string): Promise<ApiAnswer | null> => (account ? (api ? api.get(`/accounts/${account.id}${path}`) : NO_CREDENTIAL) : null);
  checks.push(planCheck(await ask("/subscriptions"), account));
  const buckets = (checkout.agent.r2_buckets ?? []).map((bucket) => bucket.bucket_name).filter((name): name is string => Boolean(name));
  checks.push(r2Check(await ask("/r2/buckets"), account, buckets));
  const routed = (config: WorkerConfig) => Boolean((config as { routes?: unknown[]; route?: unknown }).routes?.length || (config as { route?: unknown }).route);
  checks.push(
    subdomainCheck(await ask("/workers/subdomain"), account, { agent: routed(checkout.agent), ingress: routed(checkout.ingress) }, { agent: checkout.agent.name ?? "agent-think", ingress: checkout.ingress.name ?? "agent-think-ingress" })
  );
  const list = (config: string[]) => (account ? io.run("npx", ["wrangler", "secret", "list", ...config], { timeoutMs: 60_000 }) : Promise.resolve(null));
  checks.push(ingressSecretsCheck(await list(["-c", INGRESS_CONFIG]), checkout.ingress.secrets?.required ?? [], INGRESS_CONFIG));
  const agentSecrets = await list([]);
  checks.push(modelSecretsCheck(agentSecrets, varsOf(checkout.agent)));
  checks.push(registrySecretsCheck(agentSecrets, varsOf(checkout.agent)));
  checks.push(dashboardCheck({ builtAt: builtAt(io.root), after: "before-build" }));
  checks.push(doctorCheck(checkoutChecks(checkout)));

  out(`npm run deploy${args.dryRun ? " --dry-run" : ""}: checks before anything runs\n${checks.map(formatLine).join("\n")}\n\n`);
  const steps = deploySteps(args);
  const blocking = checks.filter((check) => check.status === "block");
  out(`${args.dryRun || blocking.length > 0 ? "Would run" : "Runs"}, in order:\n${steps.map((step, index) => `  ${index + 1}. ${shown(step)}   (${step.what})`).join("\n")}\n\n`);
  if (blocking.length > 0) {
    out(`${MARK.block} ${blocking.length} ${blocking.length === 1 ? "check blocks" : "checks block"} the deploy (${blocking.map((check) => check.label).join(", ")}); nothing was run\n`);
    return 1;
  }
  if (args.dryRun) {
    out(`${worstStatus(checks) === "warn" ? `${MARK.warn} nothing blocks the deploy; read the warnings` : `${MARK.ok} nothing blocks the deploy`}; --dry-run ran nothing\n`);
    return 0;
  }
  for (const [index, step] of steps.entries()) {
    out(`→ ${shown(step)}\n`);
    const result = await io.run(step.command, step.args, { inherit: true });
    const rest = steps.slice(index + 1).map(shown);
    if (result.code !== 0) {
      const known = stepFailureCheck({ id: step.id, label: shown(step) }, result, account);
      if (known) out(`${formatLine(known)}\n`);
      out(`${MARK.block} ${shown(step)} failed (${result.missing ? "could not be started" : `exit ${result.code ?? "signal"}`})${rest.length ? `; not run: ${rest.join(", ")}` : ""}\n`);
      return 1;
    }
    if (step.id === "build") {
      const built = dashboardCheck({ builtAt: builtAt(io.root), after: "after-build" });
      if (built.status === "block") {
        out(`${formatLine(built)}\n${rest.length ? `not run: ${rest.join(", ")}\n` : ""}`);
        return 1;
      }
    }
  }
  const base = varsOf(checkout.agent).PUBLIC_BASE_URL ?? "";
  out(`${MARK.ok} deployed. Next: npm run doctor -- --url ${base || "<the agent Worker's URL>"} (the deployed Worker's own health report)\n`);
  return 0;
}

/** One line per check; the fix on the same line. */
export function formatLine(check: DeployCheck): string {
  return `  ${MARK[check.status]} ${check.label}: ${check.detail}${check.status !== "ok" && check.fix ? ` — fix: ${check.fix}` : ""}`;
}

function builtAt(root: string): Date | null {
  const index = join(root, "dist", "client", "index.html");
  return existsSync(index) ? statSync(index).mtime : null;
}
