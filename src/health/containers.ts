/**
 * The containers line: whether this deploy has a container engine (CONTAINERS_ENABLED) and,
 * when it does, what the warm pool holds. Off blocks a deploy (both skills clone, build and
 * push in the container) and warns in local dev; an empty pool or a stop being retried warns;
 * a pool that does not answer blocks. Local dev with CONTAINERS_ENABLED=1 but no container
 * (src/pool/engine.ts) warns with the cause. docs/health.md. The caller passes the pool's
 * `stats()` (src/warm-pool.ts) and the engine's answer.
 */
import type { HealthCheck } from "../shared/health";
import { HEALTH_LABELS } from "./labels";
import type { PoolStats } from "../pool/pool-types";
import { NO_CONTAINER_ENGINE_FIX } from "../pool/engine";
import { errorText, HEALTH_PROBE_TIMEOUT_MS, withTimeout } from "./run-checks";

const LABEL = HEALTH_LABELS.containers;

export async function containersHealth(
  pool: { enabled: false; engine?: "absent" } | { enabled: true; stats(): Promise<PoolStats> },
  options: { localDev: boolean; timeoutMs?: number; secrets?: readonly string[] }
): Promise<HealthCheck> {
  if (!pool.enabled && pool.engine === "absent") {
    return {
      id: "containers",
      label: LABEL,
      status: "warn",
      detail:
        'no container engine: CONTAINERS_ENABLED is "1", but this wrangler dev runs the Sandbox without a container (dev.enable_containers is false in wrangler.jsonc), so runs use the worker shell and skip the clone, as under npm start',
      fix: NO_CONTAINER_ENGINE_FIX
    };
  }
  if (!pool.enabled) {
    return options.localDev
      ? {
          id: "containers",
          label: LABEL,
          status: "warn",
          detail: "off: local dev has no container engine, so container commands answer that the backend is unavailable",
          fix: "run a deploy (or wrangler dev with Docker and CONTAINERS_ENABLED=1) for container commands"
        }
      : {
          id: "containers",
          label: LABEL,
          status: "block",
          detail: "CONTAINERS_ENABLED is not \"1\": every container command fails, and both skills clone, build and push in the container",
          fix: 'set CONTAINERS_ENABLED to "1" in wrangler.jsonc and deploy with the Sandbox container'
        };
  }
  let stats: PoolStats;
  try {
    stats = await withTimeout(pool.stats(), options.timeoutMs ?? HEALTH_PROBE_TIMEOUT_MS, "the warm pool");
  } catch (error) {
    return {
      id: "containers",
      label: LABEL,
      status: "block",
      detail: `the warm pool does not answer: ${errorText(error, options.secrets)}`,
      fix: "check the WarmPool Durable Object binding and migration in wrangler.jsonc, then redeploy"
    };
  }
  const counts = `${stats.warm} warm of ${stats.target}, ${stats.assigned} held by runs`;
  if (stats.retiring > 0) {
    return {
      id: "containers",
      label: LABEL,
      status: "warn",
      detail: `${counts}; ${stats.retiring} released container(s) not stopped yet (retried every minute)`,
      fix: "if this stays, look for warm-pool stop errors in the Worker's logs"
    };
  }
  if (stats.warm < stats.target) {
    return {
      id: "containers",
      label: LABEL,
      status: "warn",
      detail: `${counts}: the next run's first container command waits for a container to start`,
      fix: "the cron trigger primes the pool every minute; if this stays, check that triggers.crons is deployed"
    };
  }
  return { id: "containers", label: LABEL, status: "ok", detail: counts };
}
