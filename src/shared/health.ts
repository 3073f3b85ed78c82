/**
 * The configuration health report: what `GET /api/health` answers, what the
 * dashboard's banner shows and what `npm run doctor --url` reads. Each check
 * says, without any secret, whether one part of a deploy can work; a check
 * that blocks runs says its fix in one line. Pure types and the summary
 * rule; the checks themselves are in src/health/ (the Worker) and
 * scripts/lib/doctor/ (a checkout).
 */

/** `ok`: works. `warn`: works, but not as a deploy should (e.g. local dev). `block`: runs cannot work until it is fixed. */
export type HealthStatus = "ok" | "warn" | "block";

/** Stable ids: the banner, the doctor and the tests name checks by them. */
export const HEALTH_CHECK_IDS = ["model", "github", "allowed-repos", "token-broker", "installations", "skills", "repros", "containers", "costs", "egress", "access", "public-url", "local-dev"] as const;
export type HealthCheckId = (typeof HEALTH_CHECK_IDS)[number];

export type HealthCheck = {
  id: HealthCheckId;
  /** A short name: "Model", "Token broker". */
  label: string;
  status: HealthStatus;
  /** What was found, in one sentence, never a secret's value. */
  detail: string;
  /** For `warn` and `block`: what to do, in one line, naming the variable or command. */
  fix?: string;
  /** Runs work, but a safety control is off on purpose (EGRESS=open): the banner shows it in red. */
  unsafe?: boolean;
};

export type HealthReport = {
  /** The worst status of any check. */
  status: HealthStatus;
  checks: HealthCheck[];
  /** ISO 8601. */
  generatedAt: string;
};

const RANK: Record<HealthStatus, number> = { ok: 0, warn: 1, block: 2 };

/** The worst of `checks`' statuses (`ok` for none). */
export function worstStatus(checks: readonly Pick<HealthCheck, "status">[]): HealthStatus {
  return checks.reduce<HealthStatus>((worst, check) => (RANK[check.status] > RANK[worst] ? check.status : worst), "ok");
}

export function healthReport(checks: HealthCheck[], now: number): HealthReport {
  return { status: worstStatus(checks), checks, generatedAt: new Date(now).toISOString() };
}
