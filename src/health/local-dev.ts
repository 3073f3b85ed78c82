/**
 * The local-dev line: `LOCAL_DEV=1` opens /dev/* (dispatch without the
 * webhook app), allows the scripted model and a bot login by default, and
 * answers only loopback hosts. Right for `npm start`, wrong for a deploy,
 * so it always warns. Pure.
 */
import type { HealthCheck } from "../shared/health";
import { HEALTH_LABELS } from "./labels";

const LABEL = HEALTH_LABELS["local-dev"];

export function localDevHealth(env: { LOCAL_DEV?: string }): HealthCheck {
  if (env.LOCAL_DEV !== "1") return { id: "local-dev", label: LABEL, status: "ok", detail: "off: /dev/* is closed" };
  return {
    id: "local-dev",
    label: LABEL,
    status: "warn",
    detail: "LOCAL_DEV=1: /dev/* is open and the scripted model is allowed; never in production",
    fix: 'leave LOCAL_DEV "" in a deploy (only the local scripts set it)'
  };
}
