/**
 * The model, twice: as a deploy of this checkout would resolve it, and as
 * `npm start` would with the local secrets file. Both ask the Worker's own
 * rules (resolveModelConfig, modelHealth in src/model/) with the vars they
 * would see, so this file knows nothing of gateway modes.
 *
 * A deploy's secrets are invisible from a checkout. The deployed line tries
 * the secrets `.env_example` lists, taken as put, and names the smallest
 * sets that make the model resolve ("put X, or Y and Z, with wrangler
 * secret put"): a reminder, never a block. It blocks on what the vars
 * themselves get wrong, whatever is put, no gateway at all (the template)
 * included: resolveModelConfig refuses every run of such a deploy.
 *
 * The local line blocks only when a local secrets file exists, since that
 * is the sign that `npm start` is used here. Pure; values are never shown.
 */
import { HEALTH_LABELS } from "../../../src/health/labels";
import { modelHealth } from "../../../src/model/health";
import type { ModelEnv } from "../../../src/model/config";
import { line, listNames, varsOf, type DoctorCheck, type LocalVars, type WorkerConfig } from "./types";

const LABEL = HEALTH_LABELS.model;
/** A stand-in value for a secret taken as put; it never leaves this module. */
const PUT = "put-with-wrangler-secret-put";
/** Subsets of the listed secrets are tried; more names than this are not a model's. */
const MAX_SECRET_NAMES = 8;

/** Read by the model config with no entry in wrangler.jsonc (a local gateway for tests): not a stray in .dev.vars. */
const UNLISTED_VARS = ["AI_GATEWAY_BASE_URL"];

const blank = (value: string | undefined) => (value ?? "").trim() === "";

export function deployedModelCheck(input: { agent: WorkerConfig; agentSecrets: readonly string[] }): DoctorCheck {
  const vars: Record<string, string> = { ...varsOf(input.agent), LOCAL_DEV: "" };
  const asIs = modelHealth(vars as ModelEnv);
  if (asIs.status !== "block") return asIs;
  const sets = smallestSecretSets(vars, input.agentSecrets.slice(0, MAX_SECRET_NAMES));
  if (sets.length === 0) {
    const withAll = modelHealth({ ...vars, ...Object.fromEntries(input.agentSecrets.map((name) => [name, PUT])) } as ModelEnv);
    return { ...withAll, detail: `wrangler.jsonc: ${withAll.detail}` };
  }
  const put = sets.map((set) => listNames(set)).join(", or ");
  const resolved = modelHealth({ ...vars, ...Object.fromEntries(sets[0]!.map((name) => [name, PUT])) } as ModelEnv);
  return line(
    "model",
    LABEL,
    resolved.status,
    `the gateway chain (${vars.OPENAI_MODEL}, falling back to ${vars.ANTHROPIC_MODEL}) once ${put} ${sets[0]!.length > 1 || sets.length > 1 ? "are" : "is"} put with wrangler secret put; ` +
      "a checkout cannot see secrets (--url asks the deployed Worker)",
    resolved.fix
  );
}

/**
 * The model `npm start` runs: wrangler.jsonc's vars, then the local secrets
 * file (wrangler dev lets it override them), with LOCAL_DEV=1. Also names
 * what the file sets that the Worker never reads, such as a misspelt
 * secret.
 */
export function localModelCheck(input: { agent: WorkerConfig; agentSecrets: readonly string[]; agentLocal: LocalVars | null }): DoctorCheck {
  const label = "Local model (npm start)";
  const { agentLocal } = input;
  const vars = varsOf(input.agent);
  const health = modelHealth({ ...vars, ...(agentLocal?.vars ?? {}), LOCAL_DEV: "1" } as ModelEnv);
  const file = agentLocal?.file ?? ".dev.vars";
  if (health.status === "block") {
    return line(
      "local-model",
      label,
      agentLocal ? "block" : "warn",
      `${agentLocal ? `with ${file}` : "with no .dev.vars"}, npm start would refuse every run: ${health.detail}`,
      `${health.fix ?? "fix the model settings"} (in ${file}; .env_example lists the secrets)`
    );
  }
  const setsSecrets = input.agentSecrets.filter((name) => !blank(agentLocal?.vars[name]));
  const strays = Object.keys(agentLocal?.vars ?? {}).filter((name) => !(name in vars) && !input.agentSecrets.includes(name) && !UNLISTED_VARS.includes(name));
  const what = health.detail.replace(/\.$/, "");
  if (strays.length > 0) {
    return line(
      "local-model",
      label,
      "warn",
      `${file} sets ${listNames(strays)}, which is neither a var in wrangler.jsonc nor a secret in .env_example; npm start runs ${what}`,
      `check the spelling against .env_example, or remove ${strays.length > 1 ? "them" : "it"}`
    );
  }
  if (!agentLocal) return line("local-model", label, "ok", `no .dev.vars; npm start runs ${what}`);
  return line(
    "local-model",
    label,
    "ok",
    `${file}${setsSecrets.length ? ` sets ${listNames(setsSecrets)}` : " sets no secret"}; npm start runs ${what}`
  );
}

/** The smallest sets of `names` that, taken as put, make the model resolve; none when no set does. */
function smallestSecretSets(vars: Record<string, string>, names: readonly string[]): string[][] {
  const found: string[][] = [];
  const subsets = Array.from({ length: 2 ** names.length - 1 }, (_, index) => names.filter((_, bit) => (index + 1) & (1 << bit)));
  subsets.sort((a, b) => a.length - b.length);
  for (const subset of subsets) {
    if (found.some((smaller) => smaller.every((name) => subset.includes(name)))) continue;
    const env = { ...vars, ...Object.fromEntries(subset.map((name) => [name, PUT])) };
    if (modelHealth(env as ModelEnv).status !== "block") found.push(subset);
  }
  return found;
}
