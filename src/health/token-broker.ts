/**
 * The token broker's line: whether GITHUB_AUTH reaches the webhook app's
 * AgentThinkTokenBroker, and whether the GitHub App works, by the broker's
 * `appStatus()` (`GET /app` as the App; never a token or key). A handle
 * that is not the App's slug warns; a broker without `appStatus` is reached
 * with the old malformed-repository probe and warned about. The binding
 * comes as a narrow interface; every call has a deadline. Why, and what
 * each answer means: docs/health.md, docs/app-setup.md.
 */
import { appStatusSchema, type AppStatus } from "../shared/app-status";
import type { HealthCheck } from "../shared/health";
import { HEALTH_LABELS } from "./labels";
import { errorText, HEALTH_PROBE_TIMEOUT_MS, withTimeout } from "./run-checks";

/** The broker's RPC surface this line uses; `appStatus` is absent on a plain stand-in and on a webhook app that predates it. */
export type TokenBrokerProbe = { mintInstallationToken(repo: string): Promise<unknown>; appStatus?(): Promise<unknown> };

/** Not `owner/name`: the broker refuses it before anything else. */
export const BROKER_PROBE_REPO = "agent-think health probe";
export const BROKER_REFUSAL_PREFIX = "agent-think-ingress token broker:";
/** What workerd answers for an RPC method the entrypoint does not have. */
const NOT_IMPLEMENTED = /does not implement the method/i;

const LABEL = HEALTH_LABELS["token-broker"];
const SETUP_DOC = "docs/app-setup.md";

type Options = { localDev: boolean; timeoutMs?: number; secrets?: readonly string[] };

export async function tokenBrokerHealth(broker: TokenBrokerProbe | undefined, options: Options): Promise<HealthCheck> {
  const line = (status: HealthCheck["status"], detail: string, fix?: string): HealthCheck => ({ id: "token-broker", label: LABEL, status, detail, ...(fix ? { fix } : {}) });
  const unreachable = (reason: string): HealthCheck =>
    line(
      options.localDev ? "warn" : "block",
      `${reason}: continuations and token renewals get no token${options.localDev ? " (local dev runs without the webhook app)" : ""}`,
      options.localDev
        ? "npm run dev:ingress beside npm start, if you need the broker locally"
        : 'deploy the webhook app (agent-think-ingress) and bind GITHUB_AUTH to its "AgentThinkTokenBroker" entrypoint'
    );
  if (broker === undefined || typeof broker.mintInstallationToken !== "function") return unreachable("GITHUB_AUTH is not bound");
  const timeoutMs = options.timeoutMs ?? HEALTH_PROBE_TIMEOUT_MS;

  let answer: unknown;
  try {
    if (typeof broker.appStatus !== "function") throw new Error("The RPC receiver does not implement the method \"appStatus\".");
    answer = await withTimeout(Promise.resolve().then(() => broker.appStatus!()), timeoutMs, "GITHUB_AUTH");
  } catch (error) {
    if (!NOT_IMPLEMENTED.test(errorText(error))) return unreachable(`GITHUB_AUTH does not reach the token broker (${errorText(error, options.secrets)})`);
    const reached = await reachesBroker(broker, timeoutMs, options.secrets);
    if (reached !== true) return unreachable(`GITHUB_AUTH does not reach the token broker (${reached})`);
    return line(
      "warn",
      "GITHUB_AUTH reaches a token broker that cannot check the GitHub App (it has no appStatus): a wrong App id or key shows only when a run needs a token",
      "redeploy the webhook app (agent-think-ingress) from this checkout"
    );
  }

  const parsed = appStatusSchema.safeParse(answer);
  if (!parsed.success) {
    return line("block", "the token broker's App check answered in a shape this Worker does not read", "deploy both Workers from the same checkout");
  }
  return appLine(parsed.data, options.localDev, line);
}

/** The App check's answer as a line: its failure by code, else the handle against the slug. */
function appLine(app: AppStatus, localDev: boolean, line: (status: HealthCheck["status"], detail: string, fix?: string) => HealthCheck): HealthCheck {
  if (!app.ok) {
    const detail = `the webhook app's GitHub App does not work: ${app.error}`;
    if (app.code === "github") return line("warn", `${detail} (asked again after a minute)`, "check GitHub's status; nothing to change if it answers again");
    const fix =
      app.code === "config" || app.code === "app_auth"
        ? `set the webhook app's GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY to the App's (npx wrangler secret put <NAME> -c ingress/wrangler.jsonc; ${SETUP_DOC})`
        : `set the webhook app's GITHUB_API_URL to the API of the GitHub the App is registered on, and GITHUB_APP_ID to its id (${SETUP_DOC})`;
    return line(localDev ? "warn" : "block", detail, fix);
  }
  const own = `@${app.slug.toLowerCase()}`;
  const handle = app.mentionHandle.toLowerCase();
  if (app.handleSet && handle !== own) {
    return line(
      "warn",
      `the GitHub App ${app.name} (${app.slug}) works, but MENTION_HANDLE is ${handle}: mentions of ${own} are ignored, and ${handle} may notify another GitHub account`,
      `unset MENTION_HANDLE in ingress/wrangler.jsonc (mentions are then ${own}), or set it to ${own} (${SETUP_DOC})`
    );
  }
  return line("ok", `GITHUB_AUTH reaches the webhook app, whose GitHub App ${app.name} (${app.slug}) answers GET /app; runs start on mentions of ${handle}`);
}

/** The old probe: true when the broker refused a malformed repository (or a stand-in answered it), else why not. */
async function reachesBroker(broker: TokenBrokerProbe, timeoutMs: number, secrets: readonly string[] | undefined): Promise<true | string> {
  try {
    // A token a stand-in answers with is dropped unread.
    await withTimeout(Promise.resolve().then(() => broker.mintInstallationToken(BROKER_PROBE_REPO)), timeoutMs, "GITHUB_AUTH");
    return true;
  } catch (error) {
    return errorText(error).includes(BROKER_REFUSAL_PREFIX) ? true : errorText(error, secrets);
  }
}
