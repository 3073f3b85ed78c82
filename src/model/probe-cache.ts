/**
 * Keeps the gateway probe's answer for a while, per isolate, so the health
 * report (asked at every dashboard load and by `doctor --url`) does not pay
 * for a model call each time: a 2xx (the one answer that is billed) for
 * PROBE_ANSWER_TTL_MS, anything else (a refusal, a timeout, a 5xx, which no
 * provider bills) for PROBE_RETRY_TTL_MS, so a key fixed in the gateway's
 * dashboard shows within a minute. Callers asking while a probe runs share it. Answers
 * are keyed by a SHA-256 digest of the configuration they were asked with
 * (URL, model, mode, token, key), so a secret put anew is asked at once and
 * the cache holds no secret. Pure: the clock is passed in.
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
