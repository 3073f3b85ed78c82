/**
 * The agent Worker's deploy settings a checkout decides, judged as the
 * Worker's health report judges a deploy (LOCAL_DEV off): local dev,
 * Access, the sandbox's network, thread links, containers, the two buckets
 * and the skills; then
 * the webhook app's secrets, which a checkout can only list. The Worker's
 * own rules are called where they exist (accessHealth, containersEnabled,
 * containerInstance, REQUIRED_SKILLS). Pure: the skills tree and the env
 * files arrive read (checkout.ts).
 */
import { accessHealth } from "../../../src/health/access";
import { accessMode } from "../../../src/http/access";
import { egressHealth } from "../../../src/health/egress";
import { HEALTH_LABELS } from "../../../src/health/labels";
import { REQUIRED_SKILLS } from "../../../src/health/skills";
import { containersEnabled } from "../../../src/pool/errors";
import { containerInstance } from "../../../src/pool/launch-spec";
import { isLoopbackHost } from "../../../src/shared/github-urls";
import { AGENT_CONFIG, INGRESS_CONFIG, line, listNames, varsOf, type DoctorCheck, type LocalVars, type SkillsTree, type WorkerConfig } from "./types";

/** LOCAL_DEV=1 in the deployed config: the Worker would answer only loopback hosts and allow the scripted model. */
export function localDevCheck({ agent }: { agent: WorkerConfig }): DoctorCheck {
  if (varsOf(agent).LOCAL_DEV === "1") {
    return line(
      "local-dev",
      HEALTH_LABELS["local-dev"],
      "block",
      "wrangler.jsonc sets LOCAL_DEV=1: a deploy would refuse every host but loopback, open /dev/* and allow the scripted model",
      'set LOCAL_DEV to "" in wrangler.jsonc (npm start sets it for local runs)'
    );
  }
  return line("local-dev", HEALTH_LABELS["local-dev"], "ok", "off in wrangler.jsonc");
}

/**
 * Access as a deploy of this checkout would run it. The template leaves
 * CF_ACCESS_TEAM_DOMAIN, CF_ACCESS_AUD and ACCESS empty for the operator to
 * fill, and a deploy of it serves nothing behind Access (503), so it blocks
 * here with the fix; ACCESS=off warns as unsafe, as on the health page.
 */
export function accessCheck({ agent }: { agent: WorkerConfig }): DoctorCheck {
  const vars = varsOf(agent);
  const check = accessHealth(vars, { localDev: false });
  if (accessMode(vars, { localDev: false }).kind !== "not-configured") return check;
  return {
    ...check,
    detail: `${AGENT_CONFIG} sets neither CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD nor ACCESS=off: a deploy would answer 503 to the dashboard, /api/*, /agents/* and private reproductions`,
    fix: `set CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD in ${AGENT_CONFIG} to your Access application's team and AUD tag (README, "4. Cloudflare Access"); or ACCESS to "off" to deploy without Access (unsafe: anyone who reaches the Worker reads every run and can continue one)`
  };
}

/**
 * EGRESS, EGRESS_ALLOW, REGISTRY_SECRETS and REGISTRY_REPOS, as the Worker's health report judges
 * them; whether each registry secret is put is `npm run deploy`'s check and the report's.
 */
export function egressCheck({ agent }: { agent: WorkerConfig }): DoctorCheck {
  return egressHealth(varsOf(agent), () => true);
}


/**
 * PUBLIC_BASE_URL: where the links in the issue's comments point. Left at
 * the template's loopback address (or empty, or no URL), every link a
 * deploy posts leads nowhere, so it blocks.
 */
export function publicUrlCheck({ agent }: { agent: WorkerConfig }): DoctorCheck {
  const label = "Thread links";
  const fix = "set PUBLIC_BASE_URL in wrangler.jsonc to the Worker's URL (https://agent-think.<subdomain>.workers.dev or its custom domain)";
  const value = (varsOf(agent).PUBLIC_BASE_URL ?? "").trim();
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // Judged below.
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    return line("public-url", label, "block", `PUBLIC_BASE_URL ${value === "" ? "is empty" : `"${value}" is not an http(s) URL`}: thread and reproduction links are broken`, fix);
  }
  if (isLoopbackHost(url.hostname)) {
    return line("public-url", label, "block", `PUBLIC_BASE_URL is ${url.origin}: the links a deploy posts on issues point at a loopback address`, fix);
  }
  return line("public-url", label, "ok", `${url.origin}/thread/<session>`);
}

/** Both skills clone, build and push in the container: off blocks, as in the Worker's report for a deploy. */
export function containersCheck({ agent }: { agent: WorkerConfig }): DoctorCheck {
  const label = HEALTH_LABELS.containers;
  const vars = varsOf(agent);
  if (!containersEnabled(vars)) {
    return line(
      "containers",
      label,
      "block",
      'CONTAINERS_ENABLED is not "1" in wrangler.jsonc: every container command would fail, and both skills clone, build and push in the container',
      'set CONTAINERS_ENABLED to "1" in wrangler.jsonc'
    );
  }
  if (!(agent.containers ?? []).some((container) => container.class_name === "Sandbox")) {
    return line("containers", label, "block", "wrangler.jsonc has no containers entry for the Sandbox class: no container image is deployed", 'restore the "containers" entry for Sandbox in wrangler.jsonc');
  }
  try {
    return line("containers", label, "ok", `on, ${containerInstance(vars)} instances`);
  } catch (error) {
    return line("containers", label, "block", `${(error as Error).message}: every container command would answer that error`, "set CONTAINER_INSTANCE_TYPE to one of the types named, or leave it empty");
  }
}

/** skills/ as `npm run seed:r2` would upload it, every skill the agent needs among them, and the bucket it goes to. */
export function skillsCheck({ agent, skills }: { agent: WorkerConfig; skills: SkillsTree }): DoctorCheck {
  const label = "Skills";
  if (!(agent.r2_buckets ?? []).some((bucket) => bucket.binding === "SKILLS_BUCKET")) {
    return line("skills", label, "block", "wrangler.jsonc binds no SKILLS_BUCKET: runs have no skills to follow", "add the SKILLS_BUCKET r2_buckets entry to wrangler.jsonc");
  }
  if (!skills.ok) {
    return line("skills", label, "block", `npm run seed:r2 would refuse skills/: ${skills.problems.join("; ")}`, "fix each SKILL.md named, then npm run seed:r2");
  }
  const missing = REQUIRED_SKILLS.filter((name) => !skills.skills.includes(name));
  if (missing.length > 0) {
    return line("skills", label, "block", `skills/ lacks ${listNames(missing.map((name) => `${name}/SKILL.md`))}, which the agent is told to use`, "restore them from the repository, then npm run seed:r2");
  }
  return line("skills", label, "ok", `${listNames(skills.skills)} parse as Think reads them; npm run seed:r2 uploads them (--url says whether the bucket holds them)`);
}

export function reprosCheck({ agent }: { agent: WorkerConfig }): DoctorCheck {
  const label = HEALTH_LABELS.repros;
  const bucket = (agent.r2_buckets ?? []).find((entry) => entry.binding === "REPROS");
  if (!bucket) {
    return line("repros", label, "block", "wrangler.jsonc binds no REPROS bucket: publish_reproduction cannot publish", "add the REPROS r2_buckets entry to wrangler.jsonc");
  }
  return line("repros", label, "ok", `REPROS is ${bucket.bucket_name ?? "bound"}`);
}

/**
 * The webhook app's secrets: a deploy cannot be seen from here, so the line
 * says what `wrangler deploy` will insist on. It warns when the config's
 * `secrets.required` and `ingress/.env_example` disagree, since a secret
 * missing from `secrets.required` can be forgotten without wrangler saying
 * so, and one missing from the example is undocumented.
 */
export function secretsCheck({ ingress, ingressSecrets }: { ingress: WorkerConfig; ingressSecrets: readonly string[] }): DoctorCheck {
  const label = "Webhook app secrets";
  const required = ingress.secrets?.required ?? [];
  const unrequired = ingressSecrets.filter((name) => !required.includes(name));
  const unlisted = required.filter((name) => !ingressSecrets.includes(name));
  if (unrequired.length > 0) {
    return line(
      "secrets",
      label,
      "warn",
      `${INGRESS_CONFIG} does not list ${listNames(unrequired)} in secrets.required: wrangler deploy would not refuse a webhook app without ${unrequired.length > 1 ? "them" : "it"}`,
      `add ${listNames(unrequired)} to secrets.required in ${INGRESS_CONFIG}`
    );
  }
  if (unlisted.length > 0) {
    return line("secrets", label, "warn", `${INGRESS_CONFIG} requires ${listNames(unlisted)}, which ingress/.env_example does not list`, "list every required secret in ingress/.env_example");
  }
  return line(
    "secrets",
    label,
    "ok",
    `wrangler deploy refuses the webhook app until ${listNames(required)} are put (wrangler secret put <NAME> -c ${INGRESS_CONFIG}); a checkout cannot see them`
  );
}

/**
 * ingress/.dev.vars, which `npm run dev:ingress` writes with throwaway
 * values when it is absent. Present but without a required secret, the
 * local webhook app cannot verify or mint: that blocks local runs.
 */
export function localIngressSecretsCheck({ ingress, ingressLocal }: { ingress: WorkerConfig; ingressLocal: LocalVars | null }): DoctorCheck {
  const label = "Local webhook app secrets";
  if (!ingressLocal) return line("local-ingress-secrets", label, "ok", "no ingress/.dev.vars: npm run dev:ingress writes throwaway ones");
  const missing = (ingress.secrets?.required ?? []).filter((name) => (ingressLocal.vars[name] ?? "").trim() === "");
  if (missing.length > 0) {
    return line(
      "local-ingress-secrets",
      label,
      "block",
      `${ingressLocal.file} lacks ${listNames(missing)}: npm run dev:ingress would run a webhook app that cannot verify deliveries or mint tokens`,
      `delete ${ingressLocal.file} (npm run dev:ingress writes fresh throwaway secrets), or add ${missing.length > 1 ? "them" : "it"}`
    );
  }
  return line("local-ingress-secrets", label, "ok", `${ingressLocal.file} sets every required secret`);
}
