/**
 * The Access line: whether the Worker verifies Cloudflare Access
 * (src/http/access.ts), from the two settings alone. Both set: on, naming
 * the team (the AUD tag is not shown). Neither: off, which is how local dev
 * runs and a warning anywhere else. Exactly one: the Worker refuses to guess
 * and answers 500 to everything but public reproductions, this report
 * included, so that line blocks; `npm run doctor` is where an operator
 * sees it. Pure.
 */
import type { HealthCheck } from "../shared/health";
import { HEALTH_LABELS } from "./labels";
import { normalizeTeamDomain, type AccessConfig } from "../http/access";

const LABEL = HEALTH_LABELS.access;

export function accessHealth(config: AccessConfig, options: { localDev: boolean }): HealthCheck {
  const team = config.CF_ACCESS_TEAM_DOMAIN?.trim() ?? "";
  const aud = config.CF_ACCESS_AUD?.trim() ?? "";
  if (team !== "" && aud !== "") {
    return { id: "access", label: LABEL, status: "ok", detail: `on: every request but public reproductions needs an Access token from ${normalizeTeamDomain(team)}` };
  }
  if (team === "" && aud === "") {
    return options.localDev
      ? { id: "access", label: LABEL, status: "ok", detail: "off, as local dev runs (only loopback hosts are answered)" }
      : {
          id: "access",
          label: LABEL,
          status: "warn",
          detail: "off: the dashboard, /api/* (Continue included) and /agents/* are open to anyone who reaches the Worker",
          fix: "put an Access application in front of the Worker and set CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD"
        };
  }
  const missing = team === "" ? "CF_ACCESS_TEAM_DOMAIN" : "CF_ACCESS_AUD";
  return {
    id: "access",
    label: LABEL,
    status: "block",
    detail: `half-configured: ${missing} is empty, so the Worker answers 500 to everything but public reproductions`,
    fix: "set both CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD, or neither"
  };
}
