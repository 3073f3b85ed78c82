/**
 * What `npm run deploy` checks before it runs anything, each a pure verdict
 * over a recorded answer: `docker info`, `wrangler whoami --json`, the
 * Cloudflare API's JSON for subscriptions, R2 and the workers.dev
 * subdomain, `wrangler secret list` for each Worker, and whether the
 * dashboard is built. Lines have the doctor's shape (ok, warn, block, a
 * fix). docs/deploy.md says what each one can and cannot tell.
 */
import { modelHealth } from "../../../src/model/health";
import type { ModelEnv } from "../../../src/model/config";
import { registriesPart } from "../../../src/health/registries";
import { line, listNames, type DoctorCheck } from "../doctor/types";
import type { ApiAnswer } from "./cloudflare";
import type { RunResult } from "./runner";

export type DeployCheck = DoctorCheck;
export type Account = { id: string; name: string };

const firstLine = (text: string) => text.split("\n").map((part) => part.replace(/^[✘X▲]\s*\[(ERROR|WARNING)\]\s*/u, "").trim()).find((part) => part !== "") ?? "";

/** `docker info --format {{json .}}`, as wrangler asks it before building the image; on arm64, a note that the amd64 build is emulated. */
export function dockerChecks(input: { bin: string; info: RunResult; hostArch: string }): DeployCheck[] {
  const { bin, info } = input;
  const label = "Docker";
  if (info.missing) {
    return [line("docker", label, "block", `${bin} is not installed: every deploy of the agent Worker builds and pushes its container image (wrangler.jsonc containers[].image)`, "install Docker (https://docs.docker.com/get-started/get-docker/), or set WRANGLER_DOCKER_BIN to a Docker-compatible CLI")];
  }
  if (info.code !== 0) {
    const said = firstLine(info.stderr) || `exit ${info.code ?? "signal"}`;
    return [line("docker", label, "block", `${bin} info says "${said}": the daemon does not answer, so the container image cannot be built`, "start the Docker daemon (Docker Desktop, or sudo systemctl start docker), or set DOCKER_HOST to its socket")];
  }
  let server: { ServerVersion?: string; Architecture?: string; OSType?: string; ServerErrors?: string[] } = {};
  try {
    server = JSON.parse(info.stdout.trim()) as typeof server;
  } catch {
    // Judged below as an answer without a server.
  }
  if (server.ServerErrors?.length || !server.ServerVersion) {
    return [line("docker", label, "block", `${bin} info: ${server.ServerErrors?.[0] ?? "no server version in its answer"}: the container image cannot be built`, "start the Docker daemon (Docker Desktop, or sudo systemctl start docker)")];
  }
  const arch = server.Architecture ?? "";
  const checks = [line("docker", label, "ok", `the daemon answers (Docker ${server.ServerVersion}, ${server.OSType ?? "?"}/${arch || "?"})`)];
  if (input.hostArch === "arm64" || /^(aarch64|arm64)$/i.test(arch)) {
    checks.push(
      line("docker-arch", "Container build", "warn", "this is an arm64 host: Cloudflare runs linux/amd64 images, so the image is built under emulation, which is slow (a first build can take many minutes)", "expect a slow first deploy; later ones reuse the cached layers")
    );
  }
  return checks;
}

/** `wrangler whoami --json`: logged in, and one account the deploy goes to. */
export function loginCheck(input: { whoami: RunResult; accountId?: string }): { check: DeployCheck; account?: Account } {
  const label = "Cloudflare login";
  let said: { loggedIn?: boolean; authType?: string; email?: string; accounts?: Account[] } = {};
  try {
    said = JSON.parse(input.whoami.stdout.trim().split("\n").at(-1) ?? "") as typeof said;
  } catch {
    // Judged below.
  }
  if (said.loggedIn !== true) {
    const why = said.loggedIn === false ? "not logged in" : `wrangler whoami answered no login (${firstLine(input.whoami.stderr) || `exit ${input.whoami.code}`})`;
    return { check: line("login", label, "block", `${why}: nothing can be deployed`, "npx wrangler login (or set CLOUDFLARE_API_TOKEN to an API token)") };
  }
  const who = `${said.authType ?? "logged in"}${said.email ? ` as ${said.email}` : ""}`;
  const accounts = said.accounts ?? [];
  const named = (account: Account) => `${account.name} (${account.id})`;
  if (input.accountId) {
    const account = accounts.find((entry) => entry.id === input.accountId);
    if (!account) {
      return { check: line("login", label, "block", `${who}, but account ${input.accountId} (CLOUDFLARE_ACCOUNT_ID or account_id) is not among ${accounts.length ? listNames(accounts.map(named)) : "its accounts (none)"}`, "log in to the account that holds it (npx wrangler login), or fix CLOUDFLARE_ACCOUNT_ID") };
    }
    return { check: line("login", label, "ok", `${who}; account ${named(account)}`), account };
  }
  if (accounts.length === 1) return { check: line("login", label, "ok", `${who}; account ${named(accounts[0]!)}`), account: accounts[0]! };
  if (accounts.length === 0) return { check: line("login", label, "block", `${who}, but the credential sees no account`, "log in again (npx wrangler login), or give the API token access to the account") };
  return {
    check: line("login", label, "block", `${who}, with ${accounts.length} accounts: ${listNames(accounts.map(named))}; the deploy must know which`, "set CLOUDFLARE_ACCOUNT_ID to the id of the one to deploy to")
  };
}

const NOT_ASKED = (label: string, id: string, why: string): DeployCheck => line(id, label, "warn", `not asked: ${why}`, "log in (the Cloudflare login line), then run again");

/** An API error's codes and messages, for a detail. */
function apiError(answer: ApiAnswer): string {
  if (answer.kind === "failed") return answer.error;
  return answer.errors.length ? answer.errors.map((error) => `${error.message} [code ${error.code}]`).join("; ") : `HTTP ${answer.status}`;
}

/** Authentication or permission refused (Cloudflare's 9109, 10000, 10001 or HTTP 401/403): the credential cannot see this, which says nothing of the account. */
function refusedAccess(answer: ApiAnswer): boolean {
  return answer.kind === "answered" && (answer.status === 401 || answer.status === 403 || answer.errors.some((error) => [9109, 10000, 10001].includes(error.code)));
}

/**
 * GET /accounts/{id}/subscriptions: Containers and Dynamic Workers
 * (worker_loaders) need Workers Paid. The plan's id is not documented, so
 * a subscription counts when its rate plan's id or public name reads
 * "Workers Paid"; an account whose list has none warns, since the name may
 * differ. Wrangler's own login has no billing scope, so this usually
 * cannot tell, and says so.
 */
export function planCheck(answer: ApiAnswer | null, account: Account | undefined): DeployCheck {
  const label = "Workers Paid plan";
  const dash = account ? `https://dash.cloudflare.com/${account.id}/workers/plans` : "the dashboard's Workers plans page";
  if (!answer || !account) return NOT_ASKED(label, "plan", "no Cloudflare login");
  if (refusedAccess(answer)) {
    return line("plan", label, "warn", `cannot tell: the credential may not read the account's billing (${apiError(answer)}); Containers and worker_loaders need Workers Paid, and the deploy fails without it`, `check ${dash}, or set CLOUDFLARE_API_TOKEN to a token with Billing Read and run again`);
  }
  if (answer.kind === "failed" || !answer.success || !Array.isArray(answer.result)) {
    return line("plan", label, "warn", `cannot tell: GET /accounts/${account.id}/subscriptions answered ${apiError(answer)}`, `check ${dash}`);
  }
  const plans = (answer.result as Array<{ rate_plan?: { id?: string; public_name?: string }; state?: string }>).map((subscription) => ({
    name: subscription.rate_plan?.public_name ?? subscription.rate_plan?.id ?? "?",
    paid: [subscription.rate_plan?.id, subscription.rate_plan?.public_name].some((value) => /workers[\s_-]*paid/i.test(value ?? "")),
    state: subscription.state
  }));
  const paid = plans.find((plan) => plan.paid);
  // The API documents the states Trial, Provisioned, Paid, AwaitingPayment, Cancelled, Failed and Expired.
  if (paid && paid.state !== undefined && !/^(trial|provisioned|paid)$/i.test(paid.state)) {
    return line("plan", label, "block", `${paid.name} is ${paid.state}: Containers and worker_loaders need an active Workers Paid plan`, `settle it at ${dash}`);
  }
  if (paid) return line("plan", label, "ok", `${paid.name}${paid.state ? ` (${paid.state})` : ""}`);
  return line(
    "plan",
    label,
    "warn",
    `no Workers Paid among the account's subscriptions (${plans.length ? listNames(plans.map((plan) => plan.name)) : "none"}): Containers and worker_loaders need it, and the deploy fails without it`,
    `subscribe at ${dash} (if the plan is there under another name, this line is wrong: docs/deploy.md)`
  );
}

/** GET /accounts/{id}/r2/buckets: R2 must be enabled (10042 otherwise), or the deploy cannot create the two buckets. */
export function r2Check(answer: ApiAnswer | null, account: Account | undefined, buckets: readonly string[]): DeployCheck {
  const label = "R2";
  if (!answer || !account) return NOT_ASKED(label, "r2", "no Cloudflare login");
  if (answer.kind === "answered" && answer.errors.some((error) => error.code === 10042)) {
    return line("r2", label, "block", `R2 is not enabled on ${account.name}: the deploy cannot create ${listNames([...buckets])} [code 10042]`, `enable R2 at https://dash.cloudflare.com/${account.id}/r2/overview (it asks for a payment method even on the free tier)`);
  }
  if (refusedAccess(answer)) return line("r2", label, "warn", `cannot tell: the credential may not list R2 buckets (${apiError(answer)})`, "log in with wrangler (its login may list buckets), or give the API token R2 read");
  if (answer.kind === "failed" || !answer.success) return line("r2", label, "warn", `cannot tell: GET /accounts/${account.id}/r2/buckets answered ${apiError(answer)}`, "run again; npx wrangler r2 bucket list asks the same");
  const names = new Set(((answer.result as { buckets?: Array<{ name?: string }> } | null)?.buckets ?? []).map((bucket) => bucket.name));
  const present = buckets.filter((name) => names.has(name));
  const absent = buckets.filter((name) => !names.has(name));
  return line("r2", label, "ok", `enabled; ${present.length ? `${listNames(present)} ${present.length > 1 ? "exist" : "exists"}` : "no bucket yet"}${absent.length ? `; the agent Worker's deploy creates ${listNames(absent)}` : ""}`);
}

/** GET /accounts/{id}/workers/subdomain: both Workers are reached on workers.dev unless their configs name routes. */
export function subdomainCheck(answer: ApiAnswer | null, account: Account | undefined, routed: { agent: boolean; ingress: boolean }, names: { agent: string; ingress: string }): DeployCheck {
  const label = "workers.dev subdomain";
  if (routed.agent && routed.ingress) return line("subdomain", label, "ok", "not needed: both configs name routes");
  if (!answer || !account) return NOT_ASKED(label, "subdomain", "no Cloudflare login");
  if (answer.kind === "answered" && answer.errors.some((error) => error.code === 10007)) {
    return line("subdomain", label, "block", `${account.name} has no workers.dev subdomain: the webhook URL and the dashboard have no address`, `register one at https://dash.cloudflare.com/${account.id}/workers/onboarding, or add routes to both configs`);
  }
  const subdomain = answer.kind === "answered" && answer.success ? (answer.result as { subdomain?: string } | null)?.subdomain : undefined;
  if (!subdomain) return line("subdomain", label, "warn", `cannot tell: GET /accounts/${account.id}/workers/subdomain answered ${apiError(answer)}`, `check https://dash.cloudflare.com/${account.id}/workers/subdomain`);
  return line("subdomain", label, "ok", `${subdomain}.workers.dev: https://${names.agent}.${subdomain}.workers.dev and https://${names.ingress}.${subdomain}.workers.dev`);
}

/** The names `wrangler secret list` answers, [] for a Worker not deployed yet, or null when it could not tell. */
export function secretNames(list: RunResult): string[] | null {
  if (list.code === 0) {
    try {
      const parsed = JSON.parse(list.stdout.trim()) as Array<{ name?: string }>;
      if (Array.isArray(parsed)) return parsed.map((entry) => entry.name ?? "").filter((name) => name !== "");
    } catch {
      return null;
    }
  }
  return /not found|\[code: 10007\]/i.test(list.stderr + list.stdout) ? [] : null;
}

/** The webhook app's secrets, put first: the first `secret put` also creates the draft Worker the agent Worker's GITHUB_AUTH binding needs. */
export function ingressSecretsCheck(list: RunResult | null, required: readonly string[], config: string): DeployCheck {
  const label = "Webhook app secrets";
  if (!list) return NOT_ASKED(label, "ingress-secrets", "no Cloudflare login");
  const names = secretNames(list);
  if (names === null) return line("ingress-secrets", label, "warn", `cannot tell: wrangler secret list -c ${config} answered ${firstLine(list.stderr) || `exit ${list.code}`}`, `npx wrangler secret list -c ${config}`);
  const missing = required.filter((name) => !names.includes(name));
  if (missing.length === 0) return line("ingress-secrets", label, "ok", `${listNames([...required])} are put`);
  return line(
    "ingress-secrets",
    label,
    "block",
    `${listNames(missing)} ${missing.length > 1 ? "are" : "is"} not put on the webhook app${names.length === 0 ? " (not created yet)" : ""}: it must have them before the agent Worker deploys`,
    missing.map((name) => `npx wrangler secret put ${name} -c ${config}${name === "GITHUB_APP_PRIVATE_KEY" ? " < app.private-key.pem" : ""}`).join("; ")
  );
}

/** The agent Worker's secrets against the Worker's own model rule (modelHealth over resolveModelConfig), with LOCAL_DEV off. */
export function modelSecretsCheck(list: RunResult | null, vars: Record<string, string>): DeployCheck {
  const label = "Model secrets";
  if (!list) return NOT_ASKED(label, "model-secrets", "no Cloudflare login");
  const names = secretNames(list);
  if (names === null) return line("model-secrets", label, "warn", `cannot tell: wrangler secret list answered ${firstLine(list.stderr) || `exit ${list.code}`}`, "npx wrangler secret list");
  const env = { ...vars, LOCAL_DEV: "", ...Object.fromEntries(names.map((name) => [name, "put"])) } as ModelEnv;
  const health = modelHealth(env);
  const put = names.length ? `with ${listNames(names)} put` : "with no secret put";
  if (health.status === "block") {
    return line("model-secrets", label, "block", `${put}, the agent Worker would refuse every run: ${health.detail}`, `${health.fix ?? "fix the model settings"} (a secret with npx wrangler secret put <NAME>)`);
  }
  return line("model-secrets", label, health.status, `${put}: ${health.detail}`, health.fix);
}

/** Each secret the agent Worker's REGISTRY_SECRETS names is put, and it and REGISTRY_REPOS read as the runs read them (src/health/registries.ts). */
export function registrySecretsCheck(list: RunResult | null, vars: Record<string, string>): DeployCheck {
  const label = "Registry secrets";
  const part = registriesPart(vars, () => true);
  if (part.summary === null && part.problems.length === 0) return line("registry-secrets", label, "ok", "REGISTRY_SECRETS and REGISTRY_REPOS give no repository a private registry");
  if (!list) return NOT_ASKED(label, "registry-secrets", "no Cloudflare login");
  const names = secretNames(list);
  if (names === null) return line("registry-secrets", label, "warn", `cannot tell: wrangler secret list answered ${firstLine(list.stderr) || `exit ${list.code}`}`, "npx wrangler secret list");
  const checked = registriesPart(vars, (name) => names.includes(name));
  if (checked.problems.length > 0) {
    return line("registry-secrets", label, "warn", `${checked.problems.join("; ")}: runs whose repositories name it get a refusal, not a credential`, "npx wrangler secret put <NAME> for each, or fix the variable");
  }
  return line("registry-secrets", label, "ok", checked.summary ?? "no private registry");
}

/** dist/client, which the agent Worker's assets.directory names and git ignores. Before the build it only reports; after it, its absence blocks. */
export function dashboardCheck(input: { builtAt: Date | null; after: "before-build" | "after-build" }): DeployCheck {
  const label = "Dashboard";
  if (input.after === "after-build") {
    return input.builtAt ? line("dashboard", label, "ok", `built into dist/client (${input.builtAt.toISOString()})`) : line("dashboard", label, "block", "npm run build left no dist/client/index.html: the agent Worker's assets would be missing", "run npm run build and read its error");
  }
  return input.builtAt
    ? line("dashboard", label, "ok", `dist/client is built (${input.builtAt.toISOString()}); the deploy rebuilds it with npm run build`)
    : line("dashboard", label, "ok", "dist/client is not built yet (git ignores it); the deploy builds it with npm run build");
}

/** The doctor's lines about what `npm start` and `npm run dev:ingress` would run: nothing a deploy uses. */
export const LOCAL_ONLY_CHECKS = ["local-model", "local-ingress-secrets"];

/** The doctor's checkout lines a deploy is judged by, folded into one: any block stops the deploy. */
export function doctorCheck(all: readonly DoctorCheck[]): DeployCheck {
  const label = "npm run doctor";
  const checks = all.filter((check) => !LOCAL_ONLY_CHECKS.includes(check.id));
  const blocks = checks.filter((check) => check.status === "block");
  const warns = checks.filter((check) => check.status === "warn").length;
  if (blocks.length > 0) {
    return line("doctor", label, "block", `${blocks.length} ${blocks.length === 1 ? "line blocks" : "lines block"} runs: ${listNames(blocks.map((check) => check.label))}`, "npm run doctor names each one's fix");
  }
  return line("doctor", label, warns > 0 ? "warn" : "ok", `nothing in the checkout blocks runs${warns ? `; ${warns} ${warns === 1 ? "warning" : "warnings"}` : ""}`, "npm run doctor lists them");
}

/**
 * A deploy step that failed with an error wrangler printed and this script
 * knows: its line and fix, else undefined (the step's own output says it).
 * 10136 is R2's "enable R2" refusal of a bucket binding on an account where
 * R2 is enabled (workers-sdk#15610): the R2 check passed, so the fix is on
 * Cloudflare's side, not in a config here.
 */
export function stepFailureCheck(step: { id: string; label: string }, result: RunResult, account: Account | undefined): DeployCheck | undefined {
  const said = `${result.stderr}\n${result.stdout}`;
  if (/\[code: 10136\]/.test(said)) {
    const bucket = /R2 binding error for bucket '([^']+)'/.exec(said)?.[1];
    const r2 = account ? `https://dash.cloudflare.com/${account.id}/r2/overview` : "the dashboard's R2 page";
    return line(
      "r2-binding",
      step.label,
      "block",
      `Cloudflare refused the R2 binding${bucket ? ` for ${bucket}` : ""} with "Please enable R2" [code 10136], a refusal some accounts get with R2 enabled (workers-sdk#15610)`,
      `check that R2 is enabled at ${r2} and that npx wrangler r2 bucket list answers; if it is, no setting here changes it: ask Cloudflare support to look at the account's R2 enablement, naming error 10136 and workers-sdk#15610, then run npm run deploy again`
    );
  }
  return undefined;
}
