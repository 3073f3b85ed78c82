/**
 * The reproductions line: whether REPROS, the bucket publish_reproduction
 * writes and /repro/<id>/ serves, is bound and answers a one-key listing.
 * Without it a run can reproduce but not publish the page, so it blocks.
 * Nothing is written. The caller passes the bucket as a narrow interface.
 */
import type { HealthCheck } from "../shared/health";
import { HEALTH_LABELS } from "./labels";
import { REPRO_PREFIX } from "../shared/buckets";
import { errorText, HEALTH_PROBE_TIMEOUT_MS, withTimeout } from "./run-checks";

export type ReprosBucket = { list(options: { prefix: string; limit: number }): Promise<unknown> };

const LABEL = HEALTH_LABELS.repros;

export async function reprosHealth(bucket: ReprosBucket | undefined, options: { timeoutMs?: number; secrets?: readonly string[] } = {}): Promise<HealthCheck> {
  if (bucket === undefined || typeof bucket.list !== "function") {
    return {
      id: "repros",
      label: LABEL,
      status: "block",
      detail: "REPROS is not bound: publish_reproduction cannot publish a page",
      fix: "create the agent-think-repros bucket (wrangler r2 bucket create) and bind it as REPROS in wrangler.jsonc"
    };
  }
  try {
    await withTimeout(bucket.list({ prefix: REPRO_PREFIX, limit: 1 }), options.timeoutMs ?? HEALTH_PROBE_TIMEOUT_MS, "REPROS");
  } catch (error) {
    return {
      id: "repros",
      label: LABEL,
      status: "block",
      detail: `REPROS could not be listed: ${errorText(error, options.secrets)}`,
      fix: "create the bucket REPROS names in wrangler.jsonc (wrangler r2 bucket create)"
    };
  }
  return { id: "repros", label: LABEL, status: "ok", detail: "REPROS is bound and answers" };
}
