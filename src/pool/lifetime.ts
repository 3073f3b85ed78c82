/**
 * A container's hard lifetime: how long any one Sandbox may run, whoever
 * holds it (CONTAINER_MAX_LIFETIME_MS; blank or malformed is the default, a
 * value below the floor is raised to it). The Sandbox enforces it with its
 * own alarm; the pool uses it to retire an aging warm container. Used by
 * src/sandbox.ts and src/warm-pool.ts. Pure: the clock is a parameter;
 * setting the alarm and stopping are the Sandbox's. docs/containers.md.
 */

/** 4 hours: the default when the variable is blank or malformed. */
export const DEFAULT_CONTAINER_MAX_LIFETIME_MS = 4 * 60 * 60 * 1000;
/** 10 minutes: the shortest lifetime accepted (the pool retires warm ones at half of it; the cron runs every minute). */
export const MIN_CONTAINER_MAX_LIFETIME_MS = 10 * 60 * 1000;
/** A stop at the end of the lifetime that failed is tried again this much later. */
export const LIFETIME_STOP_RETRY_MS = 60 * 1000;

/** `CONTAINER_MAX_LIFETIME_MS` as milliseconds: the default when blank or not a positive decimal integer, at least the floor. */
export function containerMaxLifetimeMs(raw: string | undefined): number {
  const text = (raw ?? "").trim();
  if (!/^\d+$/.test(text)) return DEFAULT_CONTAINER_MAX_LIFETIME_MS;
  const ms = Number(text);
  if (!Number.isSafeInteger(ms) || ms <= 0) return DEFAULT_CONTAINER_MAX_LIFETIME_MS;
  return Math.max(ms, MIN_CONTAINER_MAX_LIFETIME_MS);
}

/** When a Sandbox first launched its container; its lifetime never restarts (a reconcile or restart does not extend it). */
export type LifetimeRecord = { startedAt: number };

/** What the Sandbox's alarm should do: stop the container now, or wait until `at` (an alarm that fired early). */
export type LifetimeDecision = { action: "stop"; overdueMs: number } | { action: "wait"; at: number };

export function lifetimeDeadline(record: LifetimeRecord, lifetimeMs: number): number {
  return record.startedAt + lifetimeMs;
}

export function lifetimeDecision(record: LifetimeRecord, lifetimeMs: number, now: number): LifetimeDecision {
  const deadline = lifetimeDeadline(record, lifetimeMs);
  return now >= deadline ? { action: "stop", overdueMs: now - deadline } : { action: "wait", at: deadline };
}
