/**
 * `npm run doctor`'s checks of a checkout (scripts/lib/doctor/), each over
 * in-memory configs: the line for a checkout that deploys, then what makes
 * it warn and what makes it block, with the fix it names. Reading a
 * checkout from disk and the command line are doctor-cli.test.ts.
 */
import { describe, expect, it } from "vitest";
import { checkoutChecks } from "../../scripts/lib/doctor/checks";
import { ciFixReposCheck } from "../../scripts/lib/doctor/ci-fix";
import {
  accessCheck,
  containersCheck,
  localDevCheck,
  localIngressSecretsCheck,
  publicUrlCheck,
  reprosCheck,
  secretsCheck,
  skillsCheck
} from "../../scripts/lib/doctor/deploy";
import { flagsCheck } from "../../scripts/lib/doctor/flags";
import { deployedModelCheck, localModelCheck } from "../../scripts/lib/doctor/model";
import type { Checkout } from "../../scripts/lib/doctor/types";
import { allowlistCheck, bindingsCheck, botLoginCheck, compatibilityDateCheck, githubCheck, webhookSettingsCheck } from "../../scripts/lib/doctor/wiring";

/** A checkout that deploys, with every template value filled in: every line ok. */
function good(): Checkout {
  return {
    root: "/checkout",
    agent: {
      name: "agent-think",
      main: "src/index.ts",
      compatibility_date: "2026-10-15",
      compatibility_flags: ["nodejs_compat"],
      services: [{ binding: "GITHUB_AUTH", service: "agent-think-ingress", entrypoint: "AgentThinkTokenBroker" }],
      r2_buckets: [
        { binding: "SKILLS_BUCKET", bucket_name: "agent-think-skills" },
        { binding: "REPROS", bucket_name: "agent-think-repros" }
      ],
      containers: [{ class_name: "Sandbox" }],
      vars: {
        PUBLIC_BASE_URL: "https://agent-think.acme.workers.dev",
        AI_GATEWAY_ACCOUNT_ID: "account",
        AI_GATEWAY_ID: "gateway",
        AI_GATEWAY_KEYS: "",
        OPENAI_MODEL: "gpt-5.5",
        ANTHROPIC_MODEL: "claude-opus-4-5",
        MODEL_PROVIDER: "",
        GITHUB_API_URL: "https://api.github.com",
        CONTAINERS_ENABLED: "1",
        CONTAINER_INSTANCE_TYPE: "standard-2",
        CF_ACCESS_TEAM_DOMAIN: "acme.cloudflareaccess.com",
        CF_ACCESS_AUD: "aud-tag",
        ALLOWED_REPOS: "acme/widgets",
        LOCAL_DEV: ""
      }
    },
    ingress: {
      name: "agent-think-ingress",
      main: "src/index.ts",
      compatibility_date: "2026-10-15",
      compatibility_flags: ["nodejs_compat"],
      services: [{ binding: "AGENT_THINK", service: "agent-think", entrypoint: "AgentThink" }],
      vars: { GITHUB_API_URL: "https://api.github.com", MENTION_HANDLE: "@agent-think", ALLOWED_REPOS: "acme/widgets", MAX_BODY_BYTES: "1048576" },
      secrets: { required: ["GITHUB_WEBHOOK_SECRET", "GITHUB_APP_ID", "GITHUB_APP_PRIVATE_KEY"] }
    },
    agentExports: ["ThinkAgent", "AgentThink", "default"],
    ingressExports: ["CommentClaim", "AgentThinkTokenBroker"],
    agentFlags: { experimental: [], unknown: [] },
    ingressFlags: { experimental: [], unknown: [] },
    agentSecrets: ["CLOUDFLARE_AIG_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"],
    ingressSecrets: ["GITHUB_WEBHOOK_SECRET", "GITHUB_APP_ID", "GITHUB_APP_PRIVATE_KEY"],
    agentLocal: { file: ".dev.vars", vars: { CLOUDFLARE_AIG_TOKEN: "aig-canary-0123456789" } },
    ingressLocal: null,
    skills: { ok: true, skills: ["address-review", "open-pr", "reproduce"] }
  };
}

/** `good()` with some of the agent's and the webhook app's vars changed. */
function withVars(agent: Record<string, string>, ingress: Record<string, string> = {}): Checkout {
  const checkout = good();
  checkout.agent.vars = { ...checkout.agent.vars, ...agent };
  checkout.ingress.vars = { ...checkout.ingress.vars, ...ingress };
  return checkout;
}

describe("a checkout that deploys", () => {
  it("has every line ok, each with its own id, and no fix on any", () => {
    const checks = checkoutChecks(good());
    expect(checks.filter((check) => check.status !== "ok")).toEqual([]);
    expect(new Set(checks.map((check) => check.id)).size).toBe(checks.length);
    expect(checks.filter((check) => "fix" in check)).toEqual([]);
  });
});

describe("the two Workers against each other", () => {
  it("blocks service bindings that do not name the other Worker and its entrypoint", () => {
    expect(bindingsCheck(good())).toMatchObject({ status: "ok", detail: expect.stringContaining("agent-think-ingress#AgentThinkTokenBroker") });

    const renamed = good();
    renamed.ingress.name = "acme-ingress";
    expect(bindingsCheck(renamed)).toMatchObject({
      status: "block",
      detail: expect.stringContaining("wrangler.jsonc's GITHUB_AUTH names agent-think-ingress#AgentThinkTokenBroker, not acme-ingress#AgentThinkTokenBroker"),
      fix: expect.stringContaining('{ "service": "acme-ingress", "entrypoint": "AgentThinkTokenBroker" }')
    });

    const noEntrypoint = good();
    noEntrypoint.ingress.services = [{ binding: "AGENT_THINK", service: "agent-think" }];
    expect(bindingsCheck(noEntrypoint).detail).toContain("AGENT_THINK names agent-think (no entrypoint), not agent-think#AgentThink");

    const unbound = good();
    unbound.agent.services = [];
    expect(bindingsCheck(unbound)).toMatchObject({ status: "block", detail: expect.stringContaining("wrangler.jsonc has no GITHUB_AUTH service binding") });

    const unexported = good();
    unexported.ingressExports = ["CommentClaim"];
    expect(bindingsCheck(unexported)).toMatchObject({ status: "block", detail: expect.stringContaining("the webhook app's main module does not export AgentThinkTokenBroker") });
  });

  it("wants one GitHub for both: different ones block, an empty agent value warns, one that names no GitHub blocks", () => {
    expect(githubCheck(good())).toMatchObject({ status: "ok", label: "GitHub API", detail: expect.stringContaining("github.com") });
    const enterprise = withVars({ GITHUB_API_URL: "https://ghe.acme.com/api/v3" }, { GITHUB_API_URL: "https://ghe.acme.com/api/v3/" });
    expect(githubCheck(enterprise)).toMatchObject({ status: "ok", detail: expect.stringContaining("ghe.acme.com") });

    expect(githubCheck(withVars({}, { GITHUB_API_URL: "https://ghe.acme.com/api/v3" }))).toMatchObject({
      status: "block",
      detail: expect.stringContaining("tokens minted on one GitHub are used on the other"),
      fix: "set the same GITHUB_API_URL in wrangler.jsonc and ingress/wrangler.jsonc"
    });
    expect(githubCheck(withVars({ GITHUB_API_URL: "" }))).toMatchObject({ status: "warn", detail: expect.stringContaining("runs post nothing to GitHub") });
    expect(githubCheck(withVars({ GITHUB_API_URL: "https://github.com" }))).toMatchObject({ status: "block", detail: expect.stringMatching(/^wrangler\.jsonc: /) });
    expect(githubCheck(withVars({ GITHUB_API_URL: "http://127.0.0.1:8790" }, { GITHUB_API_URL: "http://127.0.0.1:8790" }))).toMatchObject({
      status: "block",
      detail: expect.stringContaining("loopback")
    });
    expect(githubCheck(withVars({}, { GITHUB_API_URL: "" }))).toMatchObject({ status: "block", detail: expect.stringContaining("the webhook app cannot mint tokens") });
  });

  it("warns of two compatibility dates, blocks a config without one", () => {
    expect(compatibilityDateCheck(good())).toMatchObject({ status: "ok", detail: "both on 2026-10-15" });
    const dates = good();
    dates.ingress.compatibility_date = "2026-01-01";
    expect(compatibilityDateCheck(dates)).toMatchObject({ status: "warn", fix: "set the same compatibility_date in both configs" });
    delete dates.agent.compatibility_date;
    expect(compatibilityDateCheck(dates)).toMatchObject({ status: "block", detail: "wrangler.jsonc sets no compatibility_date" });
  });

  it("blocks an allowlist empty in both configs (every mention ignored), and one either Worker cannot parse", () => {
    expect(allowlistCheck(good())).toMatchObject({ status: "ok", detail: "both Workers allow acme/widgets" });
    expect(allowlistCheck(withVars({ ALLOWED_REPOS: "" }, { ALLOWED_REPOS: " , " }))).toMatchObject({
      status: "block",
      detail: "ALLOWED_REPOS is empty in both configs: the webhook app ignores every repository and the agent Worker refuses every run",
      fix: expect.stringContaining("wrangler.jsonc and ingress/wrangler.jsonc")
    });
    expect(allowlistCheck(withVars({}, { ALLOWED_REPOS: "acme" }))).toMatchObject({
      status: "block",
      detail: expect.stringMatching(/^ingress\/wrangler\.jsonc: ALLOWED_REPOS must be a comma-separated list/)
    });
    expect(allowlistCheck(withVars({ ALLOWED_REPOS: "acme/widgets, gadgets" }))).toMatchObject({
      status: "block",
      detail: expect.stringMatching(/^wrangler\.jsonc: ALLOWED_REPOS must be a comma-separated list of owner\/name, and "gadgets" is not one/)
    });
  });

  it("compares the two Workers' lists without case: a repository only one of them allows blocks (refused, or ignored)", () => {
    expect(allowlistCheck(withVars({ ALLOWED_REPOS: "Acme/Widgets , acme/gadgets" }, { ALLOWED_REPOS: "acme/gadgets,ACME/widgets" }))).toMatchObject({
      status: "ok",
      detail: "both Workers allow acme/gadgets, acme/widgets"
    });
    expect(allowlistCheck(withVars({ ALLOWED_REPOS: "" }))).toMatchObject({
      status: "block",
      detail: "the webhook app allows acme/widgets, which the agent Worker's ALLOWED_REPOS (wrangler.jsonc) leaves empty: its mentions are accepted, then the agent Worker refuses their runs"
    });
    expect(allowlistCheck(withVars({ ALLOWED_REPOS: "acme/widgets" }, { ALLOWED_REPOS: "acme/widgets, acme/gadgets" }))).toMatchObject({
      status: "block",
      detail: expect.stringMatching(/^the webhook app allows acme\/gadgets, which the agent Worker's ALLOWED_REPOS \(wrangler\.jsonc\) lacks/)
    });
    expect(allowlistCheck(withVars({ ALLOWED_REPOS: "acme/widgets, acme/gadgets" }))).toMatchObject({
      status: "block",
      detail: "the agent Worker allows acme/gadgets, which the webhook app's ALLOWED_REPOS (ingress/wrangler.jsonc) lacks: mentions there are ignored",
      fix: 'set the same ALLOWED_REPOS, "owner/name,owner/other", in wrangler.jsonc and ingress/wrangler.jsonc'
    });
    expect(allowlistCheck(withVars({}, { ALLOWED_REPOS: "" }))).toMatchObject({ status: "block", detail: expect.stringContaining("leaves empty: mentions there are ignored") });
  });

  it("takes CI_FIX_REPOS the same in both configs, as the Workers parse it: empty, a list or \"*\"", () => {
    expect(ciFixReposCheck(good())).toEqual({ id: "ci-fix-repos", label: "CI follow-up repositories", status: "ok", detail: "empty in both: no CI follow-ups, whatever a repository's file asks" });
    expect(ciFixReposCheck(withVars({ CI_FIX_REPOS: "Acme/Widgets" }, { CI_FIX_REPOS: "acme/widgets " }))).toMatchObject({
      status: "ok",
      detail: "both accept CI follow-ups on acme/widgets (npm run doctor -- --remote says whether their CI can reach secrets)"
    });
    expect(ciFixReposCheck(withVars({ CI_FIX_REPOS: "*" }, { CI_FIX_REPOS: "*" }))).toMatchObject({ status: "ok", detail: expect.stringMatching(/^"\*" in both: CI follow-ups wherever/) });
  });

  it("warns when CI_FIX_REPOS differs between the two Workers' configs", () => {
    expect(ciFixReposCheck(withVars({ CI_FIX_REPOS: "acme/widgets" }))).toEqual({
      id: "ci-fix-repos",
      label: "CI follow-up repositories",
      status: "warn",
      detail: "CI_FIX_REPOS differs: wrangler.jsonc accepts acme/widgets, ingress/wrangler.jsonc none: a follow-up one Worker accepts, the other refuses or never starts",
      fix: 'set the same CI_FIX_REPOS in wrangler.jsonc and ingress/wrangler.jsonc: owner/name entries of ALLOWED_REPOS, "*", or empty'
    });
    expect(ciFixReposCheck(withVars({ CI_FIX_REPOS: "acme/widgets" }, { CI_FIX_REPOS: "*" })).detail).toMatch(/wrangler\.jsonc accepts acme\/widgets, ingress\/wrangler\.jsonc "\*" \(every allowed repository\)/);
  });

  it("warns when CI_FIX_REPOS names a repository ALLOWED_REPOS does not list, or does not parse", () => {
    expect(ciFixReposCheck(withVars({ CI_FIX_REPOS: "acme/widgets, acme/gadgets" }, { CI_FIX_REPOS: "acme/gadgets,acme/widgets" }))).toEqual({
      id: "ci-fix-repos",
      label: "CI follow-up repositories",
      status: "warn",
      detail: "CI_FIX_REPOS names acme/gadgets, which ALLOWED_REPOS in wrangler.jsonc and ingress/wrangler.jsonc does not list: no run, follow-up or not, starts there",
      fix: "take it out of CI_FIX_REPOS, or add it to ALLOWED_REPOS in both configs"
    });
    expect(ciFixReposCheck(withVars({ CI_FIX_REPOS: "widgets" }, { CI_FIX_REPOS: "widgets" }))).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/^wrangler\.jsonc: CI_FIX_REPOS .*"widgets" is not one; ingress\/wrangler\.jsonc: CI_FIX_REPOS .*: the agent Worker accepts no CI follow-up/)
    });
  });

  it("blocks a webhook app setting its own config refuses, once", () => {
    expect(webhookSettingsCheck(good())).toMatchObject({ status: "ok", detail: "mention @agent-think; deliveries up to 1048576 bytes" });
    expect(webhookSettingsCheck(withVars({}, { MENTION_HANDLE: "" }))).toMatchObject({
      status: "ok",
      detail: "mention the App's own @<slug> (MENTION_HANDLE unset); deliveries up to 1048576 bytes"
    });
    expect(webhookSettingsCheck(withVars({}, { MENTION_HANDLE: "@ two words" }))).toMatchObject({ status: "block", detail: expect.stringContaining("MENTION_HANDLE") });
    expect(webhookSettingsCheck(withVars({}, { MAX_BODY_BYTES: "12" }))).toMatchObject({ status: "block", detail: expect.stringContaining("MAX_BODY_BYTES") });
    // The allowlist and the URL have lines of their own.
    expect(webhookSettingsCheck(withVars({}, { ALLOWED_REPOS: "acme", GITHUB_API_URL: "" })).status).toBe("ok");
  });

  it("warns of a BOT_LOGIN left set in either config, blocks one that is no bot login", () => {
    expect(botLoginCheck(good()).status).toBe("ok");
    expect(botLoginCheck(withVars({}, { BOT_LOGIN: "agent-think[bot]" }))).toMatchObject({ status: "warn", detail: expect.stringContaining("ingress/wrangler.jsonc") });
    expect(botLoginCheck(withVars({ BOT_LOGIN: "agent-think[bot]" }, { BOT_LOGIN: "agent-think[bot]" })).detail).toContain("wrangler.jsonc and ingress/wrangler.jsonc");
    expect(botLoginCheck(withVars({ BOT_LOGIN: "agent-think" }))).toMatchObject({ status: "block", detail: expect.stringContaining("must end in [bot]") });
  });
});

describe("compatibility flags", () => {
  it("blocks what workerd calls experimental or unknown, naming the config", () => {
    expect(flagsCheck(good())).toMatchObject({ status: "ok", detail: expect.stringContaining("nodejs_compat") });
    const experimental = good();
    experimental.agent.compatibility_flags = ["nodejs_compat", "enable_abortsignal_rpc"];
    experimental.agentFlags = { experimental: ["enable_abortsignal_rpc"], unknown: [] };
    experimental.ingressFlags = { experimental: [], unknown: ["nodejs_compatt"] };
    expect(flagsCheck(experimental)).toMatchObject({
      status: "block",
      detail: expect.stringContaining("wrangler.jsonc: enable_abortsignal_rpc is experimental; ingress/wrangler.jsonc: nodejs_compatt is not a compatibility flag"),
      fix: expect.stringContaining("remove the flag")
    });
  });

  it("warns of a flag workerd accepts that has no recorded reason, or when workerd could not judge", () => {
    const unrecorded = good();
    unrecorded.ingress.compatibility_flags = ["nodejs_compat", "global_fetch_strictly_public"];
    expect(flagsCheck(unrecorded)).toMatchObject({ status: "warn", detail: expect.stringContaining("ingress/wrangler.jsonc: global_fetch_strictly_public"), fix: expect.stringContaining("deployable-flags.ts") });
    const failed = good();
    failed.agentFlags = { experimental: [], unknown: [], failure: "workerd: not found" };
    expect(flagsCheck(failed)).toMatchObject({ status: "warn", detail: expect.stringContaining("wrangler.jsonc: workerd: not found") });
  });
});

describe("the model", () => {
  it("names the secrets a deploy must put, as the smallest sets the Worker's rules accept", () => {
    expect(deployedModelCheck(good())).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/once CLOUDFLARE_AIG_TOKEN\b.* (is|are) put with wrangler secret put/)
    });
    expect(deployedModelCheck(withVars({ AI_GATEWAY_KEYS: "stored" })).detail).toContain("once CLOUDFLARE_AIG_TOKEN is put");
    // Whether request keys also need the gateway token is the Worker's rule (resolveModelConfig), not this check's.
    expect(deployedModelCheck(withVars({ AI_GATEWAY_KEYS: "request" })).detail).toMatch(/once (CLOUDFLARE_AIG_TOKEN, )?OPENAI_API_KEY and ANTHROPIC_API_KEY are put/);
  });

  it("blocks the template's empty gateway (the Worker refuses every run) and what no secret could fix", () => {
    expect(deployedModelCheck(withVars({ AI_GATEWAY_ACCOUNT_ID: "", AI_GATEWAY_ID: "" }))).toMatchObject({
      status: "block",
      detail: expect.stringMatching(/^wrangler\.jsonc: model is not configured: set AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID/),
      fix: expect.stringContaining("AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID")
    });
    expect(deployedModelCheck(withVars({ AI_GATEWAY_ID: "" }))).toMatchObject({ status: "block", detail: expect.stringContaining("AI_GATEWAY_ID") });
    expect(deployedModelCheck(withVars({ AI_GATEWAY_KEYS: "byok" }))).toMatchObject({ status: "block", fix: expect.stringContaining("AI_GATEWAY_KEYS") });
    expect(deployedModelCheck(withVars({ MODEL_PROVIDER: "scripted" })).status).toBe("warn");
  });

  it("judges npm start's model with .dev.vars over the vars and LOCAL_DEV=1, never showing a value", () => {
    const line = localModelCheck(good());
    expect(line).toMatchObject({ status: "ok", detail: expect.stringContaining(".dev.vars sets CLOUDFLARE_AIG_TOKEN; npm start runs ") });
    expect(JSON.stringify(line)).not.toContain("aig-canary");

    const scripted = withVars({ AI_GATEWAY_ACCOUNT_ID: "", AI_GATEWAY_ID: "" });
    scripted.agentLocal = null;
    expect(localModelCheck(scripted)).toMatchObject({ status: "ok", detail: expect.stringContaining("no .dev.vars; npm start runs the scripted model") });
  });

  it("blocks a .dev.vars npm start would refuse runs with (a blank token); only warns without one", () => {
    const blank = good();
    blank.agentLocal = { file: ".dev.vars", vars: { CLOUDFLARE_AIG_TOKEN: "   " } };
    expect(localModelCheck(blank)).toMatchObject({ status: "block", detail: expect.stringContaining("CLOUDFLARE_AIG_TOKEN"), fix: expect.stringContaining("in .dev.vars") });

    // A gateway in wrangler.jsonc and no local secrets: npm start would refuse, but nobody may run it here.
    const none = good();
    none.agentLocal = null;
    expect(localModelCheck(none)).toMatchObject({ status: "warn", detail: expect.stringContaining("with no .dev.vars, npm start would refuse every run") });
  });

  it("warns of a .dev.vars name the Worker never reads", () => {
    const typo = withVars({ AI_GATEWAY_ACCOUNT_ID: "", AI_GATEWAY_ID: "" });
    typo.agentLocal = { file: ".dev.vars", vars: { CLOUDFLARE_AI_TOKEN: "x" } };
    expect(localModelCheck(typo)).toMatchObject({ status: "warn", detail: expect.stringContaining(".dev.vars sets CLOUDFLARE_AI_TOKEN, which is neither") });
  });
});

describe("the agent Worker's deploy settings", () => {
  it("blocks LOCAL_DEV=1 in wrangler.jsonc", () => {
    expect(localDevCheck(good()).status).toBe("ok");
    expect(localDevCheck(withVars({ LOCAL_DEV: "1" }))).toMatchObject({ status: "block", fix: expect.stringContaining('set LOCAL_DEV to ""') });
  });

  it("judges Access as a deploy: none blocks with where to set it, ACCESS=off warns as unsafe, half or a bad ACCESS blocks", () => {
    expect(accessCheck(good()).status).toBe("ok");
    // The template: a deploy of it would answer 503 behind Access.
    const template = accessCheck(withVars({ CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "", ACCESS: "" }));
    expect(template).toMatchObject({
      status: "block",
      detail: "wrangler.jsonc sets neither CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD nor ACCESS=off: a deploy would answer 503 to the dashboard, /api/*, /agents/* and private reproductions",
      fix: expect.stringMatching(/^set CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD in wrangler\.jsonc .*; or ACCESS to "off" to deploy without Access \(unsafe/)
    });
    expect(accessCheck(withVars({ CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "", ACCESS: "off" }))).toMatchObject({ status: "warn", unsafe: true });
    expect(accessCheck(withVars({ CF_ACCESS_AUD: "" }))).toMatchObject({ status: "block", detail: expect.stringContaining("CF_ACCESS_AUD is empty") });
    expect(accessCheck(withVars({ ACCESS: "yes" }))).toMatchObject({ status: "block", detail: expect.stringContaining('ACCESS="yes" is not a setting') });
  });

  it("blocks thread links that point nowhere a reader can go: the template's loopback address, localhost, none, no URL", () => {
    expect(publicUrlCheck(good())).toMatchObject({ status: "ok", detail: "https://agent-think.acme.workers.dev/thread/<session>" });
    expect(publicUrlCheck(withVars({ PUBLIC_BASE_URL: "http://127.0.0.1:8787" }))).toMatchObject({ status: "block", detail: expect.stringContaining("loopback"), fix: expect.stringContaining("PUBLIC_BASE_URL") });
    expect(publicUrlCheck(withVars({ PUBLIC_BASE_URL: "http://localhost:8787" }))).toMatchObject({ status: "block", detail: expect.stringContaining("loopback") });
    expect(publicUrlCheck(withVars({ PUBLIC_BASE_URL: "" }))).toMatchObject({ status: "block", detail: expect.stringContaining("is empty") });
    expect(publicUrlCheck(withVars({ PUBLIC_BASE_URL: "agent-think.workers.dev" }))).toMatchObject({ status: "block", detail: expect.stringContaining("not an http(s) URL") });
  });

  it("blocks containers that are off, without their image, or of an unknown size", () => {
    expect(containersCheck(good())).toMatchObject({ status: "ok", detail: "on, standard-2 instances" });
    expect(containersCheck(withVars({ CONTAINERS_ENABLED: "" }))).toMatchObject({ status: "block", fix: 'set CONTAINERS_ENABLED to "1" in wrangler.jsonc' });
    expect(containersCheck(withVars({ CONTAINER_INSTANCE_TYPE: "huge" }))).toMatchObject({ status: "block", detail: expect.stringContaining("CONTAINER_INSTANCE_TYPE must be one of") });
    const imageless = good();
    imageless.agent.containers = [];
    expect(containersCheck(imageless)).toMatchObject({ status: "block", detail: expect.stringContaining("no containers entry for the Sandbox class") });
  });

  it("blocks a skill missing or one seed:r2 would refuse, and a missing bucket binding", () => {
    expect(skillsCheck(good())).toMatchObject({ status: "ok", detail: expect.stringContaining("address-review, open-pr and reproduce") });
    const missing = good();
    missing.skills = { ok: true, skills: ["reproduce"] };
    expect(skillsCheck(missing)).toMatchObject({ status: "block", detail: expect.stringContaining("skills/ lacks address-review/SKILL.md and open-pr/SKILL.md") });
    const invalid = good();
    invalid.skills = { ok: false, problems: ["open-pr/SKILL.md: missing-description: ..."] };
    expect(skillsCheck(invalid)).toMatchObject({ status: "block", detail: expect.stringContaining("npm run seed:r2 would refuse skills/: open-pr/SKILL.md") });
    const unbound = good();
    unbound.agent.r2_buckets = [{ binding: "REPROS", bucket_name: "agent-think-repros" }];
    expect(skillsCheck(unbound)).toMatchObject({ status: "block", detail: expect.stringContaining("no SKILLS_BUCKET") });
    expect(reprosCheck(unbound).status).toBe("ok");
    unbound.agent.r2_buckets = [];
    expect(reprosCheck(unbound)).toMatchObject({ status: "block", detail: expect.stringContaining("publish_reproduction cannot publish") });
  });
});

describe("secrets", () => {
  it("reminds what wrangler deploy insists on, and warns when secrets.required and ingress/.env_example disagree", () => {
    expect(secretsCheck(good())).toMatchObject({ status: "ok", detail: expect.stringContaining("wrangler secret put <NAME> -c ingress/wrangler.jsonc") });
    const unrequired = good();
    unrequired.ingress.secrets = { required: ["GITHUB_APP_ID"] };
    expect(secretsCheck(unrequired)).toMatchObject({ status: "warn", detail: expect.stringContaining("does not list GITHUB_WEBHOOK_SECRET and GITHUB_APP_PRIVATE_KEY in secrets.required") });
    delete unrequired.ingress.secrets;
    expect(secretsCheck(unrequired).status).toBe("warn");
    const unlisted = good();
    unlisted.ingressSecrets = ["GITHUB_WEBHOOK_SECRET", "GITHUB_APP_ID"];
    expect(secretsCheck(unlisted)).toMatchObject({ status: "warn", detail: expect.stringContaining("requires GITHUB_APP_PRIVATE_KEY, which ingress/.env_example does not list") });
  });

  it("blocks a local ingress/.dev.vars without a required secret", () => {
    expect(localIngressSecretsCheck(good()).status).toBe("ok");
    const partial = good();
    partial.ingressLocal = { file: "ingress/.dev.vars", vars: { GITHUB_WEBHOOK_SECRET: "s3cret", GITHUB_APP_ID: "1", GITHUB_APP_PRIVATE_KEY: "" } };
    const line = localIngressSecretsCheck(partial);
    expect(line).toMatchObject({ status: "block", detail: expect.stringContaining("ingress/.dev.vars lacks GITHUB_APP_PRIVATE_KEY"), fix: expect.stringContaining("delete ingress/.dev.vars") });
    expect(JSON.stringify(line)).not.toContain("s3cret");
    partial.ingressLocal.vars.GITHUB_APP_PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----";
    expect(localIngressSecretsCheck(partial).status).toBe("ok");
  });
});
