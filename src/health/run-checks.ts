/**
 * Runs the health checks side by side and turns them into the report
 * `GET /api/health` answers: each check gets its own deadline, and one that
 * throws or misses it becomes a `block` line naming what went wrong, so the
 * report always has every check and never throws. Every string of the
 * report is redacted of the secret values the caller names and of anything
 * shaped like a GitHub token before it leaves. Pure: the checks and the
 * clock are passed in.
 */
import { healthReport, type HealthCheck, type HealthCheckId, type HealthReport } from "../shared/health";
import { redactDeep, redactSecrets } from "../run/redact";

/** How long a check that calls a binding (broker, bucket, pool) waits for it. */
export const HEALTH_PROBE_TIMEOUT_MS = 2_500;
/** The backstop for a whole check: its probe's deadline, plus time to judge the answer. */
export const HEALTH_CHECK_TIMEOUT_MS = 3_000;

const MAX_ERROR_CHARS = 300;

export type HealthProbe = {
  id: HealthCheckId;
  label: string;
  run(): HealthCheck | Promise<HealthCheck>;
};

export type RunChecksOptions = {
  now(): number;
  /** Values that must not appear in the report (the Worker's secrets). */
  secrets: readonly string[];
  timeoutMs?: number;
};

export class HealthTimeoutError extends Error {
  override readonly name = "HealthTimeoutError";
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
  }
}

/** `promise`, or a HealthTimeoutError after `ms`. The timer is cleared either way. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HealthTimeoutError(what, ms)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** An error's message, one line, bounded and redacted. */
export function errorText(error: unknown, secrets: readonly string[] = []): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.replace(/\s+/g, " ").trim() || (error instanceof Error ? error.name : "unknown error");
  const redacted = redactSecrets(line, secrets);
  return redacted.length > MAX_ERROR_CHARS ? `${redacted.slice(0, MAX_ERROR_CHARS - 1)}…` : redacted;
}

export async function runHealthChecks(probes: readonly HealthProbe[], options: RunChecksOptions): Promise<HealthReport> {
  const timeoutMs = options.timeoutMs ?? HEALTH_CHECK_TIMEOUT_MS;
  const checks = await Promise.all(
    probes.map(async (probe): Promise<HealthCheck> => {
      try {
        return await withTimeout(Promise.resolve().then(() => probe.run()), timeoutMs, `the ${probe.label} check`);
      } catch (error) {
        return {
          id: probe.id,
          label: probe.label,
          status: "block",
          detail: `the check failed: ${errorText(error, options.secrets)}`,
          fix: `see docs/health.md (${probe.id})`
        };
      }
    })
  );
  return redactDeep(healthReport(checks, options.now()), options.secrets);
}
