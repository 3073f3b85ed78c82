/**
 * The sandbox network's line: how the egress gateway lets the sandbox out
 * beyond GitHub (src/run/host-allowlist.ts). The allowlist is ok, with how
 * many hosts the operator added; an EGRESS_ALLOW entry that is no host or
 * names many owners' hosts (a public suffix, such as `*.github.io`), or an
 * EGRESS that is no mode, warns (the allowlist still holds); EGRESS=open
 * warns and is marked unsafe, which the banner shows in red: the operator
 * opted out of the allowlist, and every run's sandbox may send what it
 * holds anywhere (GitHub's rules still hold). The private registries' settings: registries.ts. Pure.
 */
import { DEFAULT_ALLOW, parseAllowSetting } from "../run/host-allowlist";
import { egressOpen } from "../egress/grant";
import type { HealthCheck } from "../shared/health";
import { HEALTH_LABELS } from "./labels";
import { registriesPart } from "./registries";

const LABEL = HEALTH_LABELS.egress;
const MODES = ["", "allowlist", "open"];

type EgressEnv = { EGRESS?: string; EGRESS_ALLOW?: string; REGISTRY_SECRETS?: string; REGISTRY_REPOS?: string };

/** `secretSet`: whether the Worker has a secret of that name (the private registries' part). */
export function egressHealth(env: EgressEnv, secretSet: (name: string) => boolean = () => false): HealthCheck {
  const registries = registriesPart(env, secretSet);
  const mode = (env.EGRESS ?? "").trim().toLowerCase();
  const allow = parseAllowSetting(env.EGRESS_ALLOW);
  if (egressOpen(env.EGRESS)) {
    return {
      id: "egress",
      label: LABEL,
      status: "warn",
      unsafe: true,
      detail: "EGRESS=open: a run's sandbox may reach any host, so code a run builds can send what it reads anywhere (GitHub's rules still hold: no credential in the sandbox, pushes only to the run's branch)",
      fix: 'set EGRESS to "" and list the hosts runs need in EGRESS_ALLOW, or in a repository\'s network.allow'
    };
  }
  if (!MODES.includes(mode)) {
    return {
      id: "egress",
      label: LABEL,
      status: "warn",
      detail: `EGRESS=${JSON.stringify(env.EGRESS)} is not a mode, so the allowlist holds`,
      fix: 'set EGRESS to "" (the allowlist) or "open"'
    };
  }
  if (allow.errors.length > 0) {
    return {
      id: "egress",
      label: LABEL,
      status: "warn",
      detail: `EGRESS_ALLOW: ${allow.errors.slice(0, 3).join("; ")}${allow.errors.length > 3 ? ` (and ${allow.errors.length - 3} more)` : ""}; the other entries hold`,
      fix: 'write EGRESS_ALLOW as host names, or "*." and a domain of one owner (not a public suffix such as *.github.io or *.co.uk: list the exact host), separated by commas or spaces'
    };
  }
  if (registries.problems.length > 0) {
    return {
      id: "egress",
      label: LABEL,
      status: "warn",
      detail: `${registries.problems.slice(0, 3).join("; ")}${registries.problems.length > 3 ? ` (and ${registries.problems.length - 3} more)` : ""}; runs whose repositories name it get a refusal, not a credential`,
      fix: "set each secret REGISTRY_SECRETS names, and write REGISTRY_SECRETS as owner/name:SECRET and REGISTRY_REPOS as owner/name:owner/other (owner/* for every repository of an owner)"
    };
  }
  const added = allow.entries.length === 0 ? "no hosts from EGRESS_ALLOW" : `EGRESS_ALLOW's ${allow.entries.length} (${allow.entries.slice(0, 5).join(", ")}${allow.entries.length > 5 ? ", …" : ""})`;
  return {
    id: "egress",
    label: LABEL,
    status: "ok",
    detail: `allowlist: GitHub by the run's policy, ${DEFAULT_ALLOW.length} package and download hosts (read-only), ${added}, and each repository's network.allow${registries.summary ? `; ${registries.summary}` : ""}`
  };
}
