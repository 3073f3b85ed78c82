/**
 * Which model a run uses (the gateway chain or the scripted model), and how
 * its requests authenticate (the gateway's token; stored or request keys),
 * decided from configuration alone. Dispatch and Continue refuse on its
 * errors (src/service.ts), index.ts builds the model from its answer, and
 * health.ts describes it. REASONING_EFFORT and MODELS_ALLOWED are checked
 * here too. Every configuration that cannot work is an error naming the
 * variable and its fix, never a secret's value. Pure. The rules:
 * docs/model-setup.md.
 */
import { resolveAllowedModels } from "./allowed-models";
import { parseReasoningEffort } from "./reasoning-effort";

export type ModelEnv = {
  MODEL_PROVIDER?: string;
  LOCAL_DEV?: string;
  AI_GATEWAY_ACCOUNT_ID?: string;
  AI_GATEWAY_ID?: string;
  AI_GATEWAY_BASE_URL?: string;
  AI_GATEWAY_KEYS?: string;
  AI_GATEWAY_AUTH?: string;
  CLOUDFLARE_AIG_TOKEN?: string;
  OPENAI_API_KEY?: string;
  ANTHROPIC_API_KEY?: string;
  OPENAI_MODEL?: string;
  ANTHROPIC_MODEL?: string;
  /** How hard OpenAI reasons, per skill (reasoning-effort.ts). */
  REASONING_EFFORT?: string;
  /** The models a repository's `model:` may pick, beyond OPENAI_MODEL and ANTHROPIC_MODEL (allowed-models.ts). */
  MODELS_ALLOWED?: string;
};

/** How gateway requests authenticate; see the header. No `gatewayToken` only under AI_GATEWAY_AUTH=off. */
export type GatewayAuth =
  | { keys: "stored"; gatewayToken: string }
  | { keys: "request"; gatewayToken?: string; openaiApiKey: string; anthropicApiKey: string };

/** The one value of AI_GATEWAY_AUTH that lets requests go without the gateway's token. */
export const GATEWAY_AUTH_OFF = "off";

export type GatewayModelConfig = {
  kind: "gateway";
  /** `https://gateway.ai.cloudflare.com/v1/<account>/<gateway>` */
  gatewayUrl: string;
  auth: GatewayAuth;
  openai: { model: string };
  anthropic: { model: string };
};

export type ModelConfig = GatewayModelConfig | { kind: "scripted" };

/** `error` says what is wrong and how to fix it; `fix` is the how alone, for the health report. */
export type ModelConfigRefusal = { ok: false; error: string; fix: string };
export type ModelConfigResult = { ok: true; config: ModelConfig } | ModelConfigRefusal;

const DEFAULT_GATEWAY_BASE_URL = "https://gateway.ai.cloudflare.com/v1";
const SECRETS = [
  ["CLOUDFLARE_AIG_TOKEN", "the gateway's token"],
  ["OPENAI_API_KEY", "the OpenAI key"],
  ["ANTHROPIC_API_KEY", "the Anthropic key"]
] as const;
const BOTH_KEYS = "OPENAI_API_KEY and ANTHROPIC_API_KEY";

const present = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
const TOKEN_FIX = "set CLOUDFLARE_AIG_TOKEN to the gateway's token (docs/model-setup.md)";

/** AI_GATEWAY_AUTH as set: `required` (empty), `off`, or a value that is neither, named only if it is a short word. */
export function gatewayAuthSetting(env: Pick<ModelEnv, "AI_GATEWAY_AUTH">): "required" | "off" | { bad: string } {
  const value = present(env.AI_GATEWAY_AUTH);
  if (value === undefined) return "required";
  if (value.toLowerCase() === GATEWAY_AUTH_OFF) return "off";
  return { bad: /^[A-Za-z0-9_-]{1,16}$/.test(value) ? `"${value}"` : `a value of ${value.length} characters` };
}
const refuse = (problem: string, fix: string): ModelConfigRefusal => ({ ok: false, error: `${problem}: ${fix}`, fix });

export function resolveModelConfig(env: ModelEnv): ModelConfigResult {
  // Checked in every mode: the scripted model ignores it, but a bad value is named before a real model relies on it.
  const reasoning = parseReasoningEffort(env.REASONING_EFFORT);
  if (!reasoning.ok) return reasoning;
  const allowed = resolveAllowedModels(env);
  if (!allowed.ok) return allowed;
  const provider = present(env.MODEL_PROVIDER);
  const account = present(env.AI_GATEWAY_ACCOUNT_ID);
  const gateway = present(env.AI_GATEWAY_ID);

  if (provider === "scripted") return { ok: true, config: { kind: "scripted" } };
  if (provider !== undefined && provider !== "gateway") {
    return {
      ok: false,
      error: `MODEL_PROVIDER must be "gateway" or "scripted", not "${provider}"`,
      fix: 'set MODEL_PROVIDER to "gateway" or "scripted", or leave it empty'
    };
  }
  // Half a gateway (an id without its account, or the reverse) is a mistake to name, not local dev.
  if (provider === undefined && account === undefined && gateway === undefined && env.LOCAL_DEV === "1") {
    return { ok: true, config: { kind: "scripted" } };
  }
  const missing = [
    account ? null : "AI_GATEWAY_ACCOUNT_ID",
    gateway ? null : "AI_GATEWAY_ID",
    present(env.OPENAI_MODEL) ? null : "OPENAI_MODEL",
    present(env.ANTHROPIC_MODEL) ? null : "ANTHROPIC_MODEL"
  ].filter((name): name is string => name !== null);
  if (missing.length > 0) {
    return refuse("model is not configured", `set ${missing.join(", ")} (docs/model-setup.md; MODEL_PROVIDER=scripted runs only the offline demonstration)`);
  }
  for (const [name, what] of SECRETS) {
    const value = env[name];
    if (value !== undefined && value !== "" && value.trim() === "") {
      return refuse(`${name} is blank (only whitespace)`, `set ${name} to ${what}, or leave it empty`);
    }
  }
  const auth = resolveAuth(env);
  if (!auth.ok) return auth;
  const base = (present(env.AI_GATEWAY_BASE_URL) ?? DEFAULT_GATEWAY_BASE_URL).replace(/\/+$/, "");
  return {
    ok: true,
    config: {
      kind: "gateway",
      gatewayUrl: `${base}/${encodeURIComponent(account!)}/${encodeURIComponent(gateway!)}`,
      auth: auth.auth,
      openai: { model: env.OPENAI_MODEL!.trim() },
      anthropic: { model: env.ANTHROPIC_MODEL!.trim() }
    }
  };
}

function resolveAuth(env: ModelEnv): { ok: true; auth: GatewayAuth } | ModelConfigRefusal {
  const token = present(env.CLOUDFLARE_AIG_TOKEN);
  const openaiApiKey = present(env.OPENAI_API_KEY);
  const anthropicApiKey = present(env.ANTHROPIC_API_KEY);
  const chosen = present(env.AI_GATEWAY_KEYS);
  const authSetting = gatewayAuthSetting(env);

  if (typeof authSetting === "object") {
    return refuse(
      `AI_GATEWAY_AUTH must be empty (the gateway's token required) or "off", not ${authSetting.bad}`,
      'set AI_GATEWAY_AUTH to "" with CLOUDFLARE_AIG_TOKEN set to the gateway\'s token, or to "off" for a gateway whose authentication is off'
    );
  }
  if (chosen !== undefined && chosen !== "stored" && chosen !== "request") {
    return refuse(
      `AI_GATEWAY_KEYS must be "stored", "request" or empty, not "${chosen}"`,
      'set AI_GATEWAY_KEYS to "stored" (keys stored in the gateway), "request" (keys sent with each request) or leave it empty'
    );
  }
  const authOff = authSetting === "off";
  const anyKey = openaiApiKey !== undefined || anthropicApiKey !== undefined;
  const keys = chosen ?? (anyKey ? "request" : "stored");

  if (keys === "stored") {
    if (token) return { ok: true, auth: { keys: "stored", gatewayToken: token } };
    if (chosen === undefined && authOff) {
      return refuse(
        "the model has no credentials: AI_GATEWAY_AUTH=off sends no gateway token, and no provider key is set",
        `set ${BOTH_KEYS}, sent with each request`
      );
    }
    if (chosen === undefined) {
      return refuse("the model has no credentials", `set CLOUDFLARE_AIG_TOKEN alone for keys stored in the gateway, or with ${BOTH_KEYS}`);
    }
    return refuse(
      `AI_GATEWAY_KEYS=stored needs CLOUDFLARE_AIG_TOKEN, as stored keys (BYOK) work only through an authenticated gateway${authOff ? ", whatever AI_GATEWAY_AUTH says" : ""}`,
      TOKEN_FIX
    );
  }
  if (!openaiApiKey || !anthropicApiKey) {
    const absent = [openaiApiKey ? null : "OPENAI_API_KEY", anthropicApiKey ? null : "ANTHROPIC_API_KEY"].filter(
      (name): name is string => name !== null
    );
    const why =
      chosen === "request"
        ? "AI_GATEWAY_KEYS=request sends each provider its key"
        : `${openaiApiKey ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY"} is set, so requests carry provider keys`;
    return refuse(
      `${why}, and ${absent.join(" and ")} ${absent.length > 1 ? "are" : "is"} not set`,
      `set ${absent.join(" and ")}, or AI_GATEWAY_KEYS=stored with CLOUDFLARE_AIG_TOKEN for keys stored in the gateway`
    );
  }
  if (token) return { ok: true, auth: { keys: "request", gatewayToken: token, openaiApiKey, anthropicApiKey } };
  if (authOff) return { ok: true, auth: { keys: "request", openaiApiKey, anthropicApiKey } };
  return refuse(
    "CLOUDFLARE_AIG_TOKEN is not set, and AI Gateway refuses requests without it (new gateways always require authentication)",
    `${TOKEN_FIX}, or AI_GATEWAY_AUTH=off if the gateway's authentication is off`
  );
}
