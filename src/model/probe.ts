/**
 * One real request through the gateway, for the health report: a streamed
 * OpenAI Responses call to the primary model, capped at
 * PROBE_MAX_OUTPUT_TOKENS, sent with the headers a run's requests carry
 * (gatewayHeaders), and read only as far as its status. The answer says who
 * refused it, the gateway or the provider, from the body's shape. Why this
 * request and not another: docs/model-setup.md. Pure apart from the fetch
 * it is given; nothing it returns holds a key.
 */
import type { GatewayModelConfig } from "./config";
import { gatewayHeaders } from "./gateway-fetch";

/** OpenAI's smallest accepted `max_output_tokens`: the most a probe can be billed for. */
export const PROBE_MAX_OUTPUT_TOKENS = 16;
/** The probe's `cf-aig-metadata` session, so the gateway's logs tell it from a run's requests. */
export const PROBE_SESSION = "agent-think-health";

const MAX_BODY_CHARS = 4_096;
const MAX_MESSAGE_CHARS = 160;

export type ProbeAnswer =
  /** A 2xx: the gateway took the token and the provider the key and the model. */
  | { kind: "answered"; status: number; ms: number }
  | { kind: "refused"; status: number; ms: number; by: "gateway" | "provider" | "unknown"; code?: string; message?: string }
  | { kind: "timeout"; ms: number }
  | { kind: "failed"; error: string };

export type ProbeOptions = {
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  now: () => number;
};

/** The request the probe sends: exported so tests and docs name the same thing. */
export function probeRequest(config: GatewayModelConfig): { url: string; init: RequestInit } {
  const built: Record<string, string> = { "content-type": "application/json" };
  if (config.auth.keys === "request") built.authorization = `Bearer ${config.auth.openaiApiKey}`;
  return {
    url: `${config.gatewayUrl}/openai/responses`,
    init: {
      method: "POST",
      headers: gatewayHeaders(built, config.auth, { session: PROBE_SESSION }),
      body: JSON.stringify({ model: config.openai.model, input: "ping", max_output_tokens: PROBE_MAX_OUTPUT_TOKENS, store: false, stream: true })
    }
  };
}

export async function probeGateway(config: GatewayModelConfig, options: ProbeOptions): Promise<ProbeAnswer> {
  const { url, init } = probeRequest(config);
  const started = options.now();
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), options.timeoutMs);
  });
  try {
    const response = await Promise.race([options.fetch(url, { ...init, signal: controller.signal }), deadline]);
    const ms = options.now() - started;
    if (response === "timeout") {
      controller.abort();
      return { kind: "timeout", ms: options.timeoutMs };
    }
    if (response.ok) {
      // The status is the proof; the ≤16 tokens it streams are not read (nor waited for: a cancel may settle late).
      response.body?.cancel().catch(() => undefined);
      return { kind: "answered", status: response.status, ms };
    }
    const body = await Promise.race([readBounded(response), deadline]);
    return { kind: "refused", status: response.status, ms, ...(body === "timeout" ? { by: "unknown" as const } : refusalOf(body)) };
  } catch (error) {
    return { kind: "failed", error: mask(error instanceof Error ? error.message : String(error)) };
  } finally {
    clearTimeout(timer);
  }
}

async function readBounded(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  return text.slice(0, MAX_BODY_CHARS);
}

/**
 * Who refused, from the body: the gateway's own errors are Cloudflare's
 * (`AiGatewayError`, internal code 2009 for a missing or wrong token, or
 * `{ success: false, errors|error: [{ code, message }] }`); a provider's
 * pass through as its own `{ error: { type, code, message } }`.
 */
export function refusalOf(body: string): { by: "gateway" | "provider" | "unknown"; code?: string; message?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { by: "unknown", ...(body.trim() ? { message: mask(body) } : {}) };
  }
  if (!isRecord(parsed)) return { by: "unknown" };
  const cloudflare = [parsed.errors, parsed.error].find((list): list is unknown[] => Array.isArray(list));
  if (parsed.name === "AiGatewayError" || typeof parsed.internalCode === "number" || cloudflare) {
    const first = cloudflare?.find(isRecord);
    const code = typeof parsed.internalCode === "number" ? parsed.internalCode : first?.code;
    const message = typeof parsed.message === "string" ? parsed.message : first?.message;
    return { by: "gateway", ...field("code", code), ...field("message", message) };
  }
  if (isRecord(parsed.error)) {
    const { code, type, message } = parsed.error;
    return { by: "provider", ...field("code", code ?? type), ...field("message", message) };
  }
  return { by: "unknown" };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function field(name: "code" | "message", value: unknown): Record<string, string> {
  if (typeof value === "number") return { [name]: String(value) };
  if (typeof value !== "string" || value.trim() === "") return {};
  return { [name]: mask(value) };
}

/**
 * A provider's message, one line, bounded, with anything key-shaped taken
 * out: OpenAI quotes a refused key's first and last characters
 * ("sk-proj-****abcd"), which is not ours to show.
 */
export function mask(text: string): string {
  const line = text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\S*\*{2,}\S*/g, "[redacted]")
    .replace(/\b(?:sk|pk|rk)-[A-Za-z0-9_*-]{4,}/g, "[redacted]")
    .replace(/\b[A-Za-z0-9_-]{32,}\b/g, "[redacted]");
  return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS - 1)}…` : line;
}
