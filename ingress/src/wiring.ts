/**
 * Binds the Worker's environment into the plain dependencies the webhook
 * route and the token broker take: configuration, the signature check, the
 * claim object, the KV marker, GitHub through Octokit, and the agent
 * Worker's `dispatch` over the AGENT_THINK service binding. The only module
 * besides index.ts and comment-claim.ts that touches bindings.
 */
import { Webhooks } from "@octokit/webhooks";
import type { DispatchInput, DispatchResult } from "../../src/shared/dispatch";
import { claimName } from "./comment-claim";
import { readConfig, type IngressConfig } from "./config";
import { installationClient, mintRepoToken, type RepoRef } from "./github/app-client";
import { markerKey, MARKER_TTL_SECONDS } from "./http/start-run";
import type { WebhookDeps } from "./http/webhook";
import type { BrokerDeps } from "./token-broker";
import { createLogger, type Logger } from "./log";

/** The agent Worker's RPC surface this Worker uses (the generated Env types it as a bare Service). */
export type AgentDispatcher = { dispatch(input: DispatchInput): Promise<DispatchResult> };

export function ingressLogger(env: Env): Logger {
  const secrets = [env.GITHUB_WEBHOOK_SECRET, env.GITHUB_APP_PRIVATE_KEY].filter((secret): secret is string => !!secret);
  return createLogger({ worker: "agent-think-ingress" }, secrets);
}

export function brokerDeps(env: Env, log: Logger): BrokerDeps {
  const config = () => readConfig(env);
  return { config, log, mint: (repo) => mintToken(env, config(), repo, log) };
}

export function webhookDeps(env: Env, ctx: ExecutionContext, log: Logger): WebhookDeps {
  const config = () => readConfig(env);
  const webhookSecret = env.GITHUB_WEBHOOK_SECRET ?? "";
  return {
    config,
    webhookSecret,
    log,
    verify: (payload, signature) => verifierFor(webhookSecret).verify(payload, signature),
    claim: (commentId, deliveryId) => env.COMMENT_CLAIMS.getByName(claimName(commentId)).claim(deliveryId),
    markHandled: (marker) =>
      env.EVENT_STATE.put(markerKey(marker.commentId), JSON.stringify(marker), { expirationTtl: MARKER_TTL_SECONDS }),
    mintToken: (repo) => mintToken(env, config(), repo, log),
    github: (token) => installationClient(token, config().apiUrl, log),
    dispatch: (input) => (env.AGENT_THINK as unknown as AgentDispatcher).dispatch(input),
    waitUntil: (promise) => ctx.waitUntil(promise),
    now: () => Date.now()
  };
}

function mintToken(env: Env, config: IngressConfig, repo: RepoRef, log: Logger) {
  return mintRepoToken({ appId: env.GITHUB_APP_ID ?? "", privateKey: env.GITHUB_APP_PRIVATE_KEY ?? "", apiUrl: config.apiUrl }, repo, log);
}

let verifier: { secret: string; webhooks: Webhooks } | undefined;

/** One Webhooks instance per secret, kept for the isolate's life. */
function verifierFor(secret: string): Webhooks {
  if (verifier?.secret !== secret) verifier = { secret, webhooks: new Webhooks({ secret }) };
  return verifier.webhooks;
}
