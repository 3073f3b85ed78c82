/**
 * Each health check's short name, in one place: the checks use it for their
 * own line, and run-checks.ts for the line of a check that failed to run.
 * The model's line comes from src/model/health.ts and says "Model" too.
 */
import type { HealthCheckId } from "../shared/health";

export const HEALTH_LABELS: Record<HealthCheckId, string> = {
  model: "Model",
  github: "GitHub API",
  "allowed-repos": "Allowed repositories",
  "token-broker": "Token broker",
  installations: "App installations",
  skills: "Skills bucket",
  repros: "Reproductions bucket",
  containers: "Containers",
  costs: "Costs",
  egress: "Sandbox network",
  access: "Cloudflare Access",
  "public-url": "Public URL",
  "local-dev": "Local dev"
};
