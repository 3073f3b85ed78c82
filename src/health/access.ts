/**
 * The Access line: what the Worker makes of Cloudflare Access (src/http/access.ts `accessMode`),
 * from the settings alone. Both set: on (the team named, never the AUD tag). Neither: open in
 * local dev; closed in a deploy (it blocks) unless ACCESS=off, which warns as unsafe. Exactly
 * one, or another ACCESS: blocks. Whenever it blocks, the gate answers this report with that 503
 * or 500 too, so `npm run doctor` is where an operator sees it (docs/health.md). Pure.
 */
import type { HealthCheck } from "../shared/health";
import { HEALTH_LABELS } from "./labels";
import { accessMode, namedSetting, normalizeTeamDomain, type AccessConfig } from "../http/access";

const LABEL = HEALTH_LABELS.access;
const SET_BOTH = "put an Access application in front of the Worker and set CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD";

export function accessHealth(config: AccessConfig, options: { localDev: boolean }): HealthCheck {
  const mode = accessMode(config, options);
  const line = (status: HealthCheck["status"], detail: string, fix?: string): HealthCheck => ({ id: "access", label: LABEL, status, detail, ...(fix ? { fix } : {}) });
  switch (mode.kind) {
    case "verify": {
      const detail = `on: every request but public reproductions needs an Access token from ${normalizeTeamDomain(mode.teamDomain)}`;
      return mode.optOutIgnored
        ? line("warn", `${detail}; ACCESS=off is set too and changes nothing while both are set`, 'set ACCESS to "" (Access is on)')
        : line("ok", detail);
    }
    case "open":
      if (mode.reason === "local-dev") return line("ok", "off, as local dev runs (only loopback hosts are answered)");
      return {
        ...line(
          "warn",
          "ACCESS=off: the dashboard, /api/* (Continue included), /agents/* and private reproductions are open to anyone who reaches the Worker",
          `${SET_BOTH}, then set ACCESS to ""`
        ),
        unsafe: true
      };
    case "not-configured":
      return line(
        "block",
        "not configured: the Worker answers 503 to the dashboard, /api/*, /agents/* and private reproductions (public reproductions stay public)",
        `${SET_BOTH}; or set ACCESS to "off" to serve them without Access (unsafe)`
      );
    case "half-configured":
      return line(
        "block",
        `half-configured: ${mode.missing} is empty, so the Worker answers 500 to everything but public reproductions`,
        "set both CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD, or neither"
      );
    case "bad-setting":
      return line(
        "block",
        `ACCESS=${namedSetting(mode.value)} is not a setting, so the Worker answers 500 to everything but public reproductions`,
        'set ACCESS to "" (Access required outside local dev) or "off"'
      );
  }
}
