/**
 * `npm run deploy`'s checks (scripts/lib/deploy/checks.ts), each verdict
 * from a recorded answer: `docker info` as this machine's Docker CLI
 * answers with no daemon, `wrangler whoami --json` as wrangler 4 prints it
 * (logged out: recorded here; logged in: its JSON shape from wrangler's
 * source), the Cloudflare API's envelope for subscriptions, R2 buckets and
 * the workers.dev subdomain as Cloudflare documents them, and `wrangler
 * secret list`'s JSON. Every check is shown failing at least once.
 */
import { describe, expect, it } from "vitest";
import { dashboardCheck, dockerChecks, doctorCheck, ingressSecretsCheck, loginCheck, modelSecretsCheck, planCheck, r2Check, registrySecretsCheck, stepFailureCheck, subdomainCheck } from "../../scripts/lib/deploy/checks";
import type { ApiAnswer } from "../../scripts/lib/deploy/cloudflare";
import type { RunResult } from "../../scripts/lib/deploy/runner";

const ok = (stdout: string): RunResult => ({ code: 0, stdout, stderr: "" });
const failed = (stderr: string, code = 1, stdout = ""): RunResult => ({ code, stdout, stderr });
const ACCOUNT = { id: "0123456789abcdef0123456789abcdef", name: "Acme" };
const answered = (result: unknown, status = 200): ApiAnswer => ({ kind: "answered", status, success: true, result, errors: [] });
const refused = (status: number, code: number, message: string): ApiAnswer => ({ kind: "answered", status, success: false, result: null, errors: [{ code, message }] });

/** `docker info --format '{{json .}}'` on this machine: a client, no daemon (exit 1; the server part of the JSON empty). */
const DOCKER_NO_DAEMON = failed("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n", 1, '{"ID":"","ServerVersion":"","OSType":"","Architecture":"","ClientInfo":{"Version":"28.2.2","Os":"linux","Arch":"amd64"}}\n');
const DOCKER_UP = ok('{"ID":"7TRN","ServerVersion":"28.2.2","OSType":"linux","Architecture":"x86_64","ClientInfo":{"Version":"28.2.2"}}\n');

describe("Docker", () => {
  it("blocks when the CLI is not installed, naming the install and WRANGLER_DOCKER_BIN", () => {
    const [check] = dockerChecks({ bin: "docker", info: { code: null, stdout: "", stderr: "spawn docker ENOENT", missing: true }, hostArch: "x64" });
    expect(check).toMatchObject({ id: "docker", status: "block", detail: expect.stringContaining("docker is not installed"), fix: expect.stringContaining("WRANGLER_DOCKER_BIN") });
  });

  it("blocks when the daemon does not answer, quoting docker's reason", () => {
    const checks = dockerChecks({ bin: "docker", info: DOCKER_NO_DAEMON, hostArch: "x64" });
    expect(checks).toEqual([expect.objectContaining({ status: "block", detail: expect.stringContaining('"Cannot connect to the Docker daemon at unix:///var/run/docker.sock'), fix: expect.stringContaining("start the Docker daemon") })]);
  });

  it("blocks an answer with server errors or no server version", () => {
    expect(dockerChecks({ bin: "podman", info: ok('{"ServerErrors":["permission denied"]}'), hostArch: "x64" })[0]).toMatchObject({ status: "block", detail: expect.stringContaining("permission denied") });
    expect(dockerChecks({ bin: "docker", info: ok("not json"), hostArch: "x64" })[0]).toMatchObject({ status: "block" });
  });

  it("is ok when the daemon answers, and adds the emulation note on an arm64 host", () => {
    expect(dockerChecks({ bin: "docker", info: DOCKER_UP, hostArch: "x64" })).toEqual([expect.objectContaining({ status: "ok", detail: "the daemon answers (Docker 28.2.2, linux/x86_64)" })]);
    const arm = dockerChecks({ bin: "docker", info: ok('{"ServerVersion":"28.2.2","OSType":"linux","Architecture":"aarch64"}'), hostArch: "arm64" });
    expect(arm.map((check) => check.status)).toEqual(["ok", "warn"]);
    expect(arm[1]).toMatchObject({ id: "docker-arch", detail: expect.stringContaining("built under emulation") });
  });
});

describe("the Cloudflare login", () => {
  const whoami = (accounts: Array<{ id: string; name: string }>) => ok(`${JSON.stringify({ loggedIn: true, authType: "OAuth Token", email: "ops@acme.test", accounts, tokenPermissions: ["account:read"] })}\n`);

  it("blocks when wrangler is not logged in (as recorded here: {\"loggedIn\":false}, exit 1)", () => {
    const { check, account } = loginCheck({ whoami: failed("", 1, '\n{"loggedIn":false}\n') });
    expect(check).toMatchObject({ status: "block", detail: "not logged in: nothing can be deployed", fix: expect.stringContaining("npx wrangler login") });
    expect(account).toBeUndefined();
    expect(loginCheck({ whoami: failed("✘ [ERROR] fetch failed\n") }).check).toMatchObject({ status: "block", detail: expect.stringContaining("fetch failed") });
  });

  it("names the one account it deploys to", () => {
    const { check, account } = loginCheck({ whoami: whoami([ACCOUNT]) });
    expect(check).toMatchObject({ status: "ok", detail: `OAuth Token as ops@acme.test; account Acme (${ACCOUNT.id})` });
    expect(account).toEqual(ACCOUNT);
  });

  it("blocks several accounts without CLOUDFLARE_ACCOUNT_ID, and an id none of them has; takes the one named", () => {
    const two = whoami([ACCOUNT, { id: "fedcba9876543210fedcba9876543210", name: "Side" }]);
    expect(loginCheck({ whoami: two }).check).toMatchObject({ status: "block", fix: "set CLOUDFLARE_ACCOUNT_ID to the id of the one to deploy to" });
    expect(loginCheck({ whoami: two, accountId: ACCOUNT.id })).toMatchObject({ check: { status: "ok" }, account: ACCOUNT });
    expect(loginCheck({ whoami: two, accountId: "ffffffffffffffffffffffffffffffff" }).check).toMatchObject({ status: "block", detail: expect.stringContaining("is not among") });
    expect(loginCheck({ whoami: whoami([]) }).check).toMatchObject({ status: "block", detail: expect.stringContaining("sees no account") });
  });
});

describe("the account's plan", () => {
  it("says it cannot tell when the credential may not read billing (wrangler's login has no billing scope)", () => {
    expect(planCheck(refused(403, 9109, "Unauthorized to access requested resource"), ACCOUNT)).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/^cannot tell: the credential may not read the account's billing \(Unauthorized to access requested resource \[code 9109\]\)/),
      fix: expect.stringContaining("Billing Read")
    });
    expect(planCheck({ kind: "failed", error: "ENOTFOUND" }, ACCOUNT)).toMatchObject({ status: "warn", detail: expect.stringContaining("cannot tell") });
  });

  it("is ok with a Workers Paid subscription, warns without one, blocks one that is not in force", () => {
    const paid = answered([{ id: "sub1", state: "Paid", rate_plan: { id: "workers_paid", public_name: "Workers Paid" } }]);
    expect(planCheck(paid, ACCOUNT)).toMatchObject({ status: "ok", detail: "Workers Paid (Paid)" });
    expect(planCheck(answered([{ id: "sub2", state: "Paid", rate_plan: { id: "r2_paid", public_name: "R2 Paid" } }]), ACCOUNT)).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("no Workers Paid among the account's subscriptions (R2 Paid)"),
      fix: expect.stringContaining(`https://dash.cloudflare.com/${ACCOUNT.id}/workers/plans`)
    });
    expect(planCheck(answered([{ id: "sub1", state: "Cancelled", rate_plan: { public_name: "Workers Paid" } }]), ACCOUNT)).toMatchObject({ status: "block", detail: expect.stringContaining("is Cancelled") });
  });

  it("is not asked without a login", () => {
    expect(planCheck(null, undefined)).toMatchObject({ status: "warn", detail: "not asked: no Cloudflare login" });
  });
});

describe("R2", () => {
  const buckets = ["agent-think-skills", "agent-think-repros"];

  it("blocks an account without R2 (code 10042), naming where to enable it", () => {
    expect(r2Check(refused(403, 10042, "Please enable R2 through the Cloudflare Dashboard."), ACCOUNT, buckets)).toMatchObject({
      status: "block",
      detail: expect.stringContaining("R2 is not enabled on Acme"),
      fix: expect.stringContaining(`https://dash.cloudflare.com/${ACCOUNT.id}/r2/overview`)
    });
  });

  it("is ok once enabled, saying which bucket the deploy will create", () => {
    expect(r2Check(answered({ buckets: [{ name: "agent-think-skills", creation_date: "2026-11-01T00:00:00.000Z" }] }), ACCOUNT, buckets)).toMatchObject({
      status: "ok",
      detail: "enabled; agent-think-skills exists; the agent Worker's deploy creates agent-think-repros"
    });
    expect(r2Check(answered({ buckets: [] }), ACCOUNT, buckets).detail).toBe("enabled; no bucket yet; the agent Worker's deploy creates agent-think-skills and agent-think-repros");
  });

  it("cannot tell when refused or unreachable", () => {
    expect(r2Check(refused(403, 10000, "Authentication error"), ACCOUNT, buckets)).toMatchObject({ status: "warn", detail: expect.stringContaining("cannot tell") });
    expect(r2Check({ kind: "failed", error: "ECONNRESET" }, ACCOUNT, buckets)).toMatchObject({ status: "warn", detail: expect.stringContaining("ECONNRESET") });
  });
});

describe("a deploy step's known failure", () => {
  const step = { id: "agent", label: "npx wrangler deploy" };
  // As wrangler prints it (workers-sdk#15610), after the API's failed upload.
  const refused10136 = [
    "✘ [ERROR] A request to the Cloudflare API (/accounts/0123/workers/scripts/agent-think/versions) failed.",
    "",
    "  R2 binding error for bucket 'agent-think-skills': Please enable R2 through the Cloudflare Dashboard. [code: 10136]",
    ""
  ].join("\n");

  it("names error 10136 with R2 enabled as Cloudflare's, with where to look and whom to ask", () => {
    expect(stepFailureCheck(step, { code: 1, stdout: "", stderr: refused10136 }, ACCOUNT)).toEqual({
      id: "r2-binding",
      label: "npx wrangler deploy",
      status: "block",
      detail: `Cloudflare refused the R2 binding for agent-think-skills with "Please enable R2" [code 10136], a refusal some accounts get with R2 enabled (workers-sdk#15610)`,
      fix: `check that R2 is enabled at https://dash.cloudflare.com/${ACCOUNT.id}/r2/overview and that npx wrangler r2 bucket list answers; if it is, no setting here changes it: ask Cloudflare support to look at the account's R2 enablement, naming error 10136 and workers-sdk#15610, then run npm run deploy again`
    });
  });

  it("reads it from stdout too, and without the bucket's name or an account", () => {
    const found = stepFailureCheck(step, { code: 1, stdout: "Please enable R2 through the Cloudflare Dashboard. [code: 10136]", stderr: "" }, undefined);
    expect(found).toMatchObject({ status: "block", detail: expect.stringMatching(/^Cloudflare refused the R2 binding with /), fix: expect.stringContaining("the dashboard's R2 page") });
  });

  it("leaves any other failure to the step's own output", () => {
    expect(stepFailureCheck(step, { code: 1, stdout: "", stderr: "✘ [ERROR] Please enable R2 through the Cloudflare Dashboard. [code: 10042]" }, ACCOUNT)).toBeUndefined();
    expect(stepFailureCheck(step, { code: 1, stdout: "", stderr: "" }, ACCOUNT)).toBeUndefined();
  });
});

describe("the workers.dev subdomain", () => {
  const names = { agent: "agent-think", ingress: "agent-think-ingress" };

  it("blocks an account with none (code 10007), unless both configs name routes", () => {
    const none = refused(404, 10007, "workers.api.error.not_found");
    expect(subdomainCheck(none, ACCOUNT, { agent: false, ingress: false }, names)).toMatchObject({ status: "block", fix: expect.stringContaining(`https://dash.cloudflare.com/${ACCOUNT.id}/workers/onboarding`) });
    expect(subdomainCheck(none, ACCOUNT, { agent: true, ingress: true }, names)).toMatchObject({ status: "ok", detail: "not needed: both configs name routes" });
  });

  it("names both Workers' addresses", () => {
    expect(subdomainCheck(answered({ subdomain: "acme" }), ACCOUNT, { agent: false, ingress: false }, names)).toMatchObject({
      status: "ok",
      detail: "acme.workers.dev: https://agent-think.acme.workers.dev and https://agent-think-ingress.acme.workers.dev"
    });
    expect(subdomainCheck(refused(403, 10000, "Authentication error"), ACCOUNT, { agent: false, ingress: true }, names)).toMatchObject({ status: "warn" });
  });
});

describe("the Workers' secrets", () => {
  const REQUIRED = ["GITHUB_WEBHOOK_SECRET", "GITHUB_APP_ID", "GITHUB_APP_PRIVATE_KEY"];
  const list = (...names: string[]) => ok(JSON.stringify(names.map((name) => ({ name, type: "secret_text" })), null, "  "));
  /** What wrangler 4 says for a Worker that does not exist yet (its secret list command's own message). */
  const NOT_FOUND = failed('✘ [ERROR] Worker "agent-think-ingress" not found.\n\nIf this is a new Worker, run `wrangler deploy` first to create it.\n');

  it("is ok when the webhook app has every required secret, and blocks each one missing with its put command", () => {
    expect(ingressSecretsCheck(list(...REQUIRED), REQUIRED, "ingress/wrangler.jsonc")).toMatchObject({ status: "ok" });
    expect(ingressSecretsCheck(list("GITHUB_APP_ID"), REQUIRED, "ingress/wrangler.jsonc")).toMatchObject({
      status: "block",
      detail: expect.stringContaining("GITHUB_WEBHOOK_SECRET and GITHUB_APP_PRIVATE_KEY are not put on the webhook app"),
      fix: "npx wrangler secret put GITHUB_WEBHOOK_SECRET -c ingress/wrangler.jsonc; npx wrangler secret put GITHUB_APP_PRIVATE_KEY -c ingress/wrangler.jsonc < app.private-key.pem"
    });
  });

  it("takes a Worker not created yet as one with no secret, and warns when wrangler's answer says nothing", () => {
    expect(ingressSecretsCheck(NOT_FOUND, REQUIRED, "ingress/wrangler.jsonc")).toMatchObject({ status: "block", detail: expect.stringContaining("(not created yet)") });
    expect(ingressSecretsCheck(failed("✘ [ERROR] fetch failed"), REQUIRED, "ingress/wrangler.jsonc")).toMatchObject({ status: "warn", detail: expect.stringContaining("fetch failed") });
  });

  it("judges the agent Worker's secrets by the Worker's own model rule, with LOCAL_DEV off", () => {
    const gateway = { AI_GATEWAY_ACCOUNT_ID: "account", AI_GATEWAY_ID: "gateway", OPENAI_MODEL: "gpt-5.5", ANTHROPIC_MODEL: "claude-opus-4-5", AI_GATEWAY_KEYS: "stored" };
    expect(modelSecretsCheck(list("CLOUDFLARE_AIG_TOKEN"), gateway)).toMatchObject({ status: "ok", detail: expect.stringContaining("with CLOUDFLARE_AIG_TOKEN put") });
    expect(modelSecretsCheck(list(), gateway)).toMatchObject({ status: "block", detail: expect.stringContaining("with no secret put, the agent Worker would refuse every run"), fix: expect.stringContaining("CLOUDFLARE_AIG_TOKEN") });
    expect(modelSecretsCheck(list("CLOUDFLARE_AIG_TOKEN"), { ...gateway, AI_GATEWAY_ID: "" })).toMatchObject({ status: "block", detail: expect.stringContaining("AI_GATEWAY_ID") });
    expect(modelSecretsCheck(null, gateway)).toMatchObject({ status: "warn", detail: "not asked: no Cloudflare login" });
  });

  it("checks each secret REGISTRY_SECRETS names is put on the agent Worker", () => {
    const vars = { REGISTRY_SECRETS: "acme/*:NPM_TOKEN acme/widgets:ARTIFACTS_LOGIN" };
    expect(registrySecretsCheck(list("NPM_TOKEN", "ARTIFACTS_LOGIN"), vars)).toMatchObject({ status: "ok", detail: expect.stringContaining("2 registry secrets (ARTIFACTS_LOGIN, NPM_TOKEN)") });
    expect(registrySecretsCheck(list("NPM_TOKEN"), vars)).toMatchObject({
      status: "warn",
      detail: "REGISTRY_SECRETS names ARTIFACTS_LOGIN, which is not set on this Worker (npx wrangler secret put ARTIFACTS_LOGIN): runs whose repositories name it get a refusal, not a credential"
    });
    expect(registrySecretsCheck(null, {})).toMatchObject({ status: "ok", detail: expect.stringContaining("give no repository a private registry") });
    expect(registrySecretsCheck(null, vars)).toMatchObject({ status: "warn", detail: "not asked: no Cloudflare login" });
    expect(registrySecretsCheck(failed("✘ [ERROR] fetch failed"), vars)).toMatchObject({ status: "warn", detail: expect.stringContaining("cannot tell") });
  });
});

describe("the dashboard and the doctor", () => {
  it("reports the build before it, and blocks a build that left no dist/client/index.html", () => {
    expect(dashboardCheck({ builtAt: null, after: "before-build" })).toMatchObject({ status: "ok", detail: expect.stringContaining("not built yet") });
    expect(dashboardCheck({ builtAt: new Date(0), after: "before-build" })).toMatchObject({ status: "ok", detail: expect.stringContaining("dist/client is built (1970-01-01T00:00:00.000Z)") });
    expect(dashboardCheck({ builtAt: null, after: "after-build" })).toMatchObject({ status: "block" });
  });

  it("folds the doctor's lines into one that blocks when any does", () => {
    const block = { id: "access", label: "Cloudflare Access", status: "block" as const, detail: "x", fix: "y" };
    const warn = { id: "egress", label: "Sandbox network", status: "warn" as const, detail: "x", fix: "y" };
    expect(doctorCheck([block, warn])).toMatchObject({ status: "block", detail: "1 line blocks runs: Cloudflare Access" });
    expect(doctorCheck([warn])).toMatchObject({ status: "warn", detail: "nothing in the checkout blocks runs; 1 warning" });
    expect(doctorCheck([])).toMatchObject({ status: "ok" });
    // What npm start and npm run dev:ingress would run is no concern of a deploy.
    expect(doctorCheck([{ ...block, id: "local-ingress-secrets" }, { ...warn, id: "local-model" }])).toMatchObject({ status: "ok" });
  });
});
