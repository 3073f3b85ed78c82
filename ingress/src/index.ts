/**
 * The webhook app's entry (agent-think-ingress): the default fetch serves
 * `POST /webhooks/github` (http/webhook.ts), and AgentThinkTokenBroker is
 * the RPC entrypoint the agent Worker binds to for fresh installation
 * tokens (token-broker.ts) and for the App check its health report shows
 * (app-check.ts). Both are thin: wiring.ts builds their
 * dependencies from the environment. CommentClaim is re-exported for the
 * runtime.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { errorMessage } from "./http/run-fields";
import { respond } from "./http/responses";
import { handleWebhook } from "./http/webhook";
import type { AppStatus } from "../../src/shared/app-status";
import { checkApp } from "./app-check";
import { mintForRepo, type BrokeredToken } from "./token-broker";
import { appCheckDeps, brokerDeps, ingressLogger, webhookDeps } from "./wiring";

export { CommentClaim } from "./comment-claim";

export class AgentThinkTokenBroker extends WorkerEntrypoint<Env> {
  /**
   * A short-lived installation token for one allowlisted repository the App
   * is installed on, with the App's bot; `{ access: "read" }` for a
   * read-only one (the container of a run that may write nothing, a
   * reporter run), `{ access: "report" }` for one that may only comment
   * and react (the agent Worker's posts for a reporter run).
   */
  async mintInstallationToken(repo: string, options?: { access?: "write" | "read" | "report"; repositories?: string[] }): Promise<BrokeredToken> {
    const log = ingressLogger(this.env);
    return await mintForRepo(repo, brokerDeps(this.env, log), options);
  }

  /**
   * Whether the App's credentials work (`GET /app` as the App, kept a
   * minute: app-check.ts), its slug and name, and the handle mentions use;
   * never a token or a key. The agent Worker's health report asks it.
   */
  async appStatus(): Promise<AppStatus> {
    return await checkApp(appCheckDeps(this.env, ingressLogger(this.env)));
  }
}

export default {
  async fetch(request, env, ctx) {
    const log = ingressLogger(env);
    try {
      return (await handleWebhook(request, webhookDeps(env, ctx, log))) ?? new Response("not found", { status: 404 });
    } catch (error) {
      log("delivery:error", { error: errorMessage(error) });
      return respond(500, "internal_error");
    }
  }
} satisfies ExportedHandler<Env>;
