/**
 * The agent Worker's entry: the AgentThink RPC entrypoint that callers (the
 * webhook app, scripts) bind to, and the default fetch that serves the HTTP
 * surface. Both are thin: the operations live in `service.ts`, the routes in
 * `http/`. Durable Object classes are re-exported for the runtime.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { routeAgentRequest } from "agents";
import { createService } from "./service";
import { handleDevRoute } from "./http/dev-routes";
import { gate } from "./http/gate";
import { accessIdentity } from "./http/access";
import { handleAgentRoute } from "./http/agent-routes";
import { handleApiRoute, handleHealthRoute } from "./http/api-routes";
import { workerHealth } from "./health/worker-health";
import { handleReproRoute } from "./http/repro-routes";
import { importGrantKey } from "./repro/grant";
import { renderFirstView } from "./http/first-view";
import { handleSpaRoute, type AssetsFetcher } from "./http/spa";
import { commandCenter } from "./command-center";
import { createLogger } from "./run/log";
import { notFound } from "./http/responses";
import { primeWarmPool } from "./warm-pool";
import { listSkills, skillSource } from "./run/skills";
import type { CancelResult, DispatchResult, ResetSessionResult, SubmissionStatus } from "./shared/dispatch";
import type { PullRequestRecordResult } from "./shared/command-center-events";
import { guardConsole, type GuardableConsole } from "./run/console-guard";

// Once per isolate: what any library prints inside this Worker's objects is
// redacted of the run tokens they hold (src/run/console-guard.ts).
guardConsole(console as unknown as GuardableConsole);

export { ThinkAgent } from "./agent";
export { WorkspaceAgent } from "./workspace-agent";
export { Sandbox } from "./sandbox";
export { WarmPool } from "./warm-pool";
export { CommandCenterAgent } from "./command-center";
// The worker-shell backend's Dynamic Worker calls back into the workspace
// through WorkspaceServiceProxy; the container host routes the container's
// outbound HTTP through WorkspaceProxy (ctx.exports).
export { WorkspaceProxy, WorkspaceServiceProxy } from "@cloudflare/computer";
// Every HTTP(S) request of an issue's sandbox (both shells) goes through the
// egress gateway; the WorkspaceAgent reaches it through ctx.exports. A
// container's requests reach the WorkspaceAgent through SandboxEgressProxy,
// which names the container they came from (the Sandbox registers it).
export { SandboxEgress } from "./egress/sandbox-egress";
export { SandboxEgressProxy } from "./egress/sandbox-proxy";

export class AgentThink extends WorkerEntrypoint<Env> {
  /** Submit a durable turn for an issue and return at once. See docs/contracts.md. */
  async dispatch(input: unknown): Promise<DispatchResult> {
    return await createService(this.env).dispatch(input);
  }

  async getSubmissionStatus(input: unknown): Promise<SubmissionStatus | null> {
    return await createService(this.env).getSubmissionStatus(input);
  }

  /** Stop the running and queued turns; each ends aborted and gives back its container. */
  async cancel(input: unknown): Promise<CancelResult> {
    return await createService(this.env).cancel(input);
  }

  async resetSession(input: unknown): Promise<ResetSessionResult> {
    return await createService(this.env).resetSession(input);
  }

  /** One of the App's pull requests opened, merged or closed (the webhook app's `pull_request` delivery), for its repository's record. */
  async recordPullRequest(input: unknown): Promise<PullRequestRecordResult> {
    return await createService(this.env).recordPullRequest(input);
  }
}

let grantKey: Promise<CryptoKey> | undefined;

/** The command center's grant key, imported once per isolate (a failure is retried on the next request). */
function reproGrantKey(env: Env): Promise<CryptoKey> {
  grantKey ??= commandCenter(env)
    .then((center) => center.reproGrantKey())
    .then(importGrantKey)
    .catch((error: unknown) => {
      grantKey = undefined;
      throw error;
    });
  return grantKey;
}

/** One request through the gate and the routes; `/`'s inline snapshot is this same path's answer. */
async function serve(incoming: Request, env: Env): Promise<Response> {
  const service = createService(env);
  const log = createLogger({ worker: "agent-think" });
  // Every request is decided on its canonical path, and every route below
  // serves that same canonical request (src/http/route-policy.ts).
  const admitted = await gate(incoming, {
    localDev: env.LOCAL_DEV === "1",
    access: env,
    onRefused: (reason, path) => log("request:refused", { path, reason })
  });
  if (!admitted.ok) return admitted.response;
  const { request, segments } = admitted;
  return (
    (await handleDevRoute(request, {
      localDev: env.LOCAL_DEV === "1",
      dispatch: (input) => service.dispatch(input),
      messages: (session) => service.messages(session),
      status: (session, submissionId) => service.getSubmissionStatus({ session, submissionId }),
      skills: () => listSkills(skillSource(env.SKILLS_BUCKET))
    })) ??
    (await handleApiRoute(request, {
      snapshot: async (options) => (await commandCenter(env)).snapshot(options),
      threadDetail: async (session) => (await commandCenter(env)).threadDetail(session),
      repositories: async () => (await commandCenter(env)).repositories(),
      continueRun: (session, operator) => service.continueRun(session, operator),
      operator: (admittedRequest) => accessIdentity(admittedRequest, env),
      onError: (error) => log("continue:failed", { error: error instanceof Error ? error.message : String(error) })
    })) ??
    (await handleHealthRoute(request, { health: () => workerHealth(env) })) ??
    (await handleReproRoute(request, segments, {
      bucket: env.REPROS,
      grantKey: () => reproGrantKey(env),
      now: () => Date.now()
    })) ??
    (await handleAgentRoute(request, segments, {
      knowsSession: async (session) => (await commandCenter(env)).hasThread(session),
      route: (allowed) => routeAgentRequest(allowed, env)
    })) ??
    (await handleSpaRoute(request, {
      assets: env.ASSETS as AssetsFetcher | undefined,
      // Through the gate again: what `/` carries is what the API would answer this caller.
      answer: (snapshotRequest) => serve(snapshotRequest, env),
      renderFirstView: (json) =>
        renderFirstView(json, {
          now: Date.now(),
          onError: (error) => log("first-view:failed", { error: error instanceof Error ? error.message : String(error) })
        })
    })) ??
    notFound()
  );
}

export default {
  async fetch(incoming, env) {
    return serve(incoming, env);
  },

  /** Every minute: keep one warm container ready (a no-op without containers). */
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(primeWarmPool(env));
  }
} satisfies ExportedHandler<Env>;
