/**
 * The token broker's line: whether the GITHUB_AUTH service binding reaches
 * the webhook app's AgentThinkTokenBroker, without minting a token. The
 * probe asks for a token for a repository name no GitHub allows; the real
 * broker refuses it (code invalid_repo) before it touches GitHub or the
 * allowlist, and over RPC only its message, prefixed
 * "agent-think-ingress token broker:", survives (ingress/src/token-broker.ts).
 * That refusal proves the binding resolves to the broker. Any other error
 * (binding not resolved, no such entrypoint, no answer in time) means it
 * does not: continuations and token renewals fail, so that blocks in
 * production; local dev runs without the webhook app, so there it warns.
 * A broker that answers with a token (the Workers tests' stand-in) is
 * reachable too; the token is dropped unread. The probe is bounded by a
 * timeout; the caller passes the binding as a narrow interface.
 */
import type { HealthCheck } from "../shared/health";
import { HEALTH_LABELS } from "./labels";
import { errorText, HEALTH_PROBE_TIMEOUT_MS, withTimeout } from "./run-checks";

export type TokenBrokerProbe = { mintInstallationToken(repo: string): Promise<unknown> };

/** Not `owner/name`: the broker refuses it before anything else. */
export const BROKER_PROBE_REPO = "agent-think health probe";
export const BROKER_REFUSAL_PREFIX = "agent-think-ingress token broker:";

const LABEL = HEALTH_LABELS["token-broker"];

export async function tokenBrokerHealth(
  broker: TokenBrokerProbe | undefined,
  options: { localDev: boolean; timeoutMs?: number; secrets?: readonly string[] }
): Promise<HealthCheck> {
  const unreachable = (reason: string): HealthCheck => ({
    id: "token-broker",
    label: LABEL,
    status: options.localDev ? "warn" : "block",
    detail: `${reason}: continuations and token renewals get no token${options.localDev ? " (local dev runs without the webhook app)" : ""}`,
    fix: options.localDev
      ? "npm run dev:ingress beside npm start, if you need the broker locally"
      : 'deploy the webhook app (agent-think-ingress) and bind GITHUB_AUTH to its "AgentThinkTokenBroker" entrypoint'
  });
  if (broker === undefined || typeof broker.mintInstallationToken !== "function") {
    return unreachable("GITHUB_AUTH is not bound");
  }
  try {
    await withTimeout(broker.mintInstallationToken(BROKER_PROBE_REPO), options.timeoutMs ?? HEALTH_PROBE_TIMEOUT_MS, "GITHUB_AUTH");
    return { id: "token-broker", label: LABEL, status: "ok", detail: "GITHUB_AUTH answered a probe for a malformed repository (a stand-in broker: the webhook app's refuses it)" };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message.includes(BROKER_REFUSAL_PREFIX)) {
      return { id: "token-broker", label: LABEL, status: "ok", detail: "GITHUB_AUTH reaches the webhook app's token broker (it refused a malformed probe, as it should)" };
    }
    return unreachable(`GITHUB_AUTH does not reach the token broker (${errorText(error, options.secrets)})`);
  }
}
