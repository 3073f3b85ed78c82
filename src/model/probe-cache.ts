/**
 * Keeps the gateway probe's answers per isolate, keyed by a digest of the
 * configuration (no secret kept): a success PROBE_ANSWER_TTL_MS, anything
 * else PROBE_RETRY_TTL_MS; callers asking while a probe runs share it. Used
 * by the health report (src/health/worker-health.ts); why these times:
 * docs/model-setup.md. Pure: the clock is passed in.
 */
import type { GatewayModelConfig } from "./config";
import { mask, type ProbeAnswer } from "./probe";

export const PROBE_ANSWER_TTL_MS = 10 * 60_000;
export const PROBE_RETRY_TTL_MS = 60_000;
/** Answers kept at most; configurations per isolate are few. */
const MAX_ENTRIES = 16;

export type CachedProbe = { answer: ProbeAnswer; askedAt: number; cached: boolean };

type Entry = { promise: Promise<ProbeAnswer>; askedAt: number; settled?: { answer: ProbeAnswer; expiresAt: number } };

/** How long an answer holds: a success, which cost a call, long; anything else, which cost nothing and may be fixed any moment, briefly. */
export function ttlOf(answer: ProbeAnswer): number {
  return answer.kind === "answered" ? PROBE_ANSWER_TTL_MS : PROBE_RETRY_TTL_MS;
}

export async function probeKey(config: GatewayModelConfig): Promise<string> {
  const { auth } = config;
  const parts = [config.gatewayUrl, config.openai.model, auth.keys, auth.gatewayToken ?? "", auth.keys === "request" ? auth.openaiApiKey : ""];
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(parts)));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function createProbeCache(now: () => number = () => Date.now()) {
  const entries = new Map<string, Entry>();
  return {
    async get(config: GatewayModelConfig, probe: () => Promise<ProbeAnswer>): Promise<CachedProbe> {
      const key = await probeKey(config);
      const held = entries.get(key);
      if (held && (!held.settled || held.settled.expiresAt > now())) {
        const answer = await held.promise;
        return { answer, askedAt: held.askedAt, cached: true };
      }
      const askedAt = now();
      const promise = probe().catch((error: unknown): ProbeAnswer => ({ kind: "failed", error: mask(error instanceof Error ? error.message : String(error)) }));
      const entry: Entry = { askedAt, promise };
      entries.delete(key);
      entries.set(key, entry);
      while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      const answer = await entry.promise;
      entry.settled = { answer, expiresAt: now() + ttlOf(answer) };
      return { answer, askedAt, cached: false };
    }
  };
}
