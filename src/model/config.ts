/**
 * Which model a run uses, and how its requests authenticate, decided from
 * configuration alone. Dispatch and Continue refuse on its errors
 * (src/service.ts), the model is built from its answer (index.ts), and the
 * health report describes it (health.ts).
 *
 * - `MODEL_PROVIDER=gateway`, or unset with a gateway configured: the
 *   OpenAI Responses API through Cloudflare AI Gateway, falling back to
 *   Anthropic through the same gateway.
 * - `MODEL_PROVIDER=scripted`, or unset with `LOCAL_DEV=1` and no gateway:
 *   the offline scripted model.
 *
 * A gateway's requests authenticate in one of two modes (`AI_GATEWAY_KEYS`):
 * - `stored`: the gateway stores the provider keys (BYOK). Requests carry
 *   only `cf-aig-authorization`, so CLOUDFLARE_AIG_TOKEN is required: BYOK
 *   works only through an authenticated gateway.
 * - `request`: each request carries its provider's key (OPENAI_API_KEY,
 *   ANTHROPIC_API_KEY, both required: the chain uses both providers), and
 *   `cf-aig-authorization` when CLOUDFLARE_AIG_TOKEN is set.
 * - empty: `request` when a provider key is set, else `stored`.
 *
 * Every configuration that cannot work is an error naming the variable and
 * its fix, so a production Worker never quietly runs the scripted model or
 * accepts runs that fail at their first model call. An empty secret is
 * unset; one of only whitespace is an error (a paste gone wrong, not a
 * choice). Pure; errors never hold a secret's value.
 */
export type ModelEnv = {
  MODEL_PROVIDER?: string;
  LOCAL_DEV?: string;
  AI_GATEWAY_ACCOUNT_ID?: string;
  AI_GATEWAY_ID?: string;
  AI_GATEWAY_BASE_URL?: string;
  AI_GATEWAY_KEYS?: string;
  CLOUDFLARE_AIG_TOKEN?: string;
  OPENAI_API_KEY?: string;
  ANTHROPIC_API_KEY?: string;
  OPENAI_MODEL?: string;
  ANTHROPIC_MODEL?: string;
};

/** How gateway requests authenticate; see the header. */
export type GatewayAuth =
  | { keys: "stored"; gatewayToken: string }
  | { keys: "request"; gatewayToken?: string; openaiApiKey: string; anthropicApiKey: string };

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
const refuse = (problem: string, fix: string): ModelConfigRefusal => ({ ok: false, error: `${problem}: ${fix}`, fix });

export function resolveModelConfig(env: ModelEnv): ModelConfigResult {
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
    return refuse("model is not configured", `set ${missing.join(", ")} (or MODEL_PROVIDER=scripted for the offline model)`);
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

  if (chosen !== undefined && chosen !== "stored" && chosen !== "request") {
    return refuse(
      `AI_GATEWAY_KEYS must be "stored", "request" or empty, not "${chosen}"`,
      'set AI_GATEWAY_KEYS to "stored" (keys stored in the gateway), "request" (keys sent with each request) or leave it empty'
    );
  }
  const anyKey = openaiApiKey !== undefined || anthropicApiKey !== undefined;
  const keys = chosen ?? (anyKey ? "request" : "stored");

  if (keys === "stored") {
    if (token) return { ok: true, auth: { keys: "stored", gatewayToken: token } };
    if (chosen === undefined) {
      return refuse(
        "the model has no credentials",
        `set CLOUDFLARE_AIG_TOKEN (provider keys stored in the gateway), or ${BOTH_KEYS}`
      );
    }
    return refuse(
      "AI_GATEWAY_KEYS=stored needs CLOUDFLARE_AIG_TOKEN, as stored keys (BYOK) work only through an authenticated gateway",
      "set CLOUDFLARE_AIG_TOKEN to the gateway's token"
    );
  }
  if (openaiApiKey && anthropicApiKey) {
    return { ok: true, auth: { keys: "request", ...(token ? { gatewayToken: token } : {}), openaiApiKey, anthropicApiKey } };
  }
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
