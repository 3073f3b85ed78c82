/**
 * The bench Worker: the real agent Worker, unchanged, plus the baselines and
 * the bench routes (routes.ts, shell-routes.ts) that bench/run.ts times under
 * `wrangler dev --local`.
 *
 * Our side goes through `env.AGENT_THINK`, a service binding to this Worker's
 * own AgentThink entrypoint: the RPC a webhook app makes. The bare side is
 * what Think itself costs: `getAgentByName` plus one `submitMessages` on a
 * Think subclass that overrides nothing but the model (the same scripted
 * model, so both sides also run the same kind of turn in the background).
 *
 * Shell commands (shell-routes.ts): our side is WorkspaceAgent.exec, reached
 * with getAgentByName as ThinkAgent's bash tool reaches it; the bare side is
 * BareWorkspace, what @cloudflare/computer itself costs: a Workspace with
 * only the worker-shell backend and its default options, and one RPC method
 * that runs `runtime.exec` and `result()` inside the object.
 *
 * The command center (command-center-routes.ts): the real CommandCenterAgent,
 * seeded and timed through `commandCenter(env, name)`, the stub
 * `GET /api/command-center` uses; the burst (command-center-burst-routes.ts)
 * offers it single `record` calls as ThinkAgents do, with a dashboard's
 * socket opened on its stub. The dashboard is the real one too: the
 * built SPA from ../dist/client (the `assets` block in wrangler.jsonc), the
 * real API routes and agents socket, reached through the agent Worker's own
 * fetch below.
 */
import { Workspace, type WorkspaceStub } from "@cloudflare/computer";
import { WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
import { Think } from "@cloudflare/think";
import { DurableObject } from "cloudflare:workers";
import { Agent, getAgentByName } from "agents";
import { EMPTY_METRICS } from "../src/shared/empty-metrics";
import type { Snapshot } from "../src/shared/command-center";
import type { LanguageModel, UIMessage } from "ai";
import worker from "../src/index";
import { ScriptedModel } from "../src/model/scripted";
import type { WorkspaceAgent } from "../src/workspace-agent";
import type { SubmissionStatus, TranscriptMessage } from "../src/shared/dispatch";
import { commandCenter } from "../src/command-center";
import { BARE_SINK_PREFIX, handleBurstRoute } from "./command-center-burst-routes";
import { handleCommandCenterRoute, type BenchCommandCenter } from "./command-center-routes";
import { handleBenchRoute, type BareSubmitInput } from "./routes";
import { handleShellRoute, type BareExecResult } from "./shell-routes";

export { AgentThink, ThinkAgent, WorkspaceAgent, Sandbox, WarmPool, CommandCenterAgent, WorkspaceProxy, WorkspaceServiceProxy, SandboxEgress } from "../src/index";

/** The bench Worker's environment: the agent Worker's plus the bench bindings (env.d.ts). */
type BenchEnv = Env & Required<Pick<Cloudflare.Env, "BareThinkAgent" | "BareWorkspace" | "BareEventSink" | "AGENT_THINK">>;

export class BareThinkAgent extends Think<Env> {
  override getModel(): LanguageModel {
    return new ScriptedModel();
  }
}

/**
 * The burst's baseline: an Agent that takes each event with one SQL insert
 * and answers, as the command center does minus its registry, metrics and
 * broadcasts: what one `record` call per event costs on this thread.
 */
export class BareEventSink extends Agent<Env> {
  #ready = false;

  async record(event: unknown): Promise<{ applied: true }> {
    if (!this.#ready) {
      this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS events (body TEXT NOT NULL)");
      this.#ready = true;
    }
    this.ctx.storage.sql.exec("INSERT INTO events (body) VALUES (?)", JSON.stringify(event));
    return { applied: true };
  }

  /** The same reads the burst makes of the command center, answered from nothing. */
  async snapshot(): Promise<Snapshot> {
    return { metrics: EMPTY_METRICS, threads: [], total: 0, generatedAt: Date.now() };
  }
}

/** The shell baseline (see the header); the bench's only use of it is `exec`. */
export class BareWorkspace extends DurableObject<Env> {
  readonly #workspace = new Workspace({
    storage: this.ctx.storage,
    backends: [
      new WorkerShellBackend({
        id: "shell",
        loader: this.env.LOADER,
        // The shell calls back through WorkspaceServiceProxy by binding name and id.
        workspace: { binding: "BareWorkspace", id: this.ctx.id.toString() },
        ctx: this.ctx
      })
    ]
  });

  /** What WorkspaceServiceProxy calls for the shell's file access. */
  async __getWorkspaceStub(): Promise<WorkspaceStub> {
    return this.#workspace.stub();
  }

  async exec(command: string, timeoutMs: number): Promise<BareExecResult> {
    using handle = await this.#workspace.runtime.exec(command, { backend: "shell", encoding: "utf8", timeoutMs });
    const { exitCode, stdout, stderr, truncated } = await handle.result();
    return { exitCode, stdout, stderr, ...(truncated ? { truncated } : {}) };
  }
}

/** The ThinkAgent and WorkspaceAgent methods the bench calls (their generated stub types are too deep). */
type IssueAgentStub = {
  submissionStatus(submissionId: string): Promise<SubmissionStatus | null>;
  waitForSubmission(submissionId: string, options: { timeoutMs: number }): Promise<unknown>;
  transcript(): Promise<TranscriptMessage[]>;
};
type WorkspaceAgentStub = Pick<WorkspaceAgent, "exec">;

/** A Workspace's own stub, as either side hands it out over RPC. */
type WorkspaceHost = { __getWorkspaceStub(): Promise<WorkspaceStub> };

/**
 * The files directly in `dir`, read through the Workspace's stub rather than
 * a shell, so the listing adds nothing to `dir` (our wrapper would add its
 * own logs) and a missing `dir` logs no error.
 */
async function listFiles(host: WorkspaceHost, dir: string) {
  using workspace = await host.__getWorkspaceStub();
  if ((await workspace.fs.statOrNull(dir)) === null) return [];
  const entries = await workspace.fs.readdir(dir);
  return entries.filter((entry) => entry.isFile).map(({ name, size }) => ({ name, size }));
}

async function bareSubmit(env: BenchEnv, input: BareSubmitInput) {
  const agent = await getAgentByName(env.BareThinkAgent, input.name);
  const message: UIMessage = { id: `message-${input.idempotencyKey}`, role: "user", parts: [{ type: "text", text: input.text }] };
  const { submissionId } = await agent.submitMessages([message], { idempotencyKey: input.idempotencyKey });
  return { submissionId };
}

async function bareStatus(env: BenchEnv, name: string, submissionId: string): Promise<string | null> {
  const agent = await getAgentByName(env.BareThinkAgent, name);
  const record = (await agent.inspectSubmission(submissionId)) as { status: string } | null;
  return record?.status ?? null;
}

export default {
  async fetch(request, env) {
    if (env.LOCAL_DEV !== "1") return worker.fetch(request, env);
    const issueAgent = async (session: string) =>
      (await getAgentByName(env.ThinkAgent, session)) as unknown as IssueAgentStub;
    return (
      (await handleShellRoute(request, {
        ours: async (workspace, command, timeoutMs) => {
          const agent = (await getAgentByName(env.WorkspaceAgent, workspace)) as unknown as WorkspaceAgentStub;
          return agent.exec({ command, backend: "shell", timeoutMs });
        },
        bare: (workspace, command, timeoutMs) => env.BareWorkspace.getByName(workspace).exec(command, timeoutMs),
        files: async (side, workspace, dir) =>
          listFiles(
            side === "ours"
              ? ((await getAgentByName(env.WorkspaceAgent, workspace)) as unknown as WorkspaceHost)
              : (env.BareWorkspace.getByName(workspace) as unknown as WorkspaceHost),
            dir
          ),
        dispatch: (input) => env.AGENT_THINK.dispatch(input),
        waitForTurn: async (session, submissionId, timeoutMs) => {
          const agent = await issueAgent(session);
          await agent.waitForSubmission(submissionId, { timeoutMs });
          return (await agent.submissionStatus(submissionId))?.status ?? "unknown";
        },
        transcript: async (session) => (await issueAgent(session)).transcript(),
        now: () => Date.now()
      })) ??
      (await handleBurstRoute(request, {
        center: async (name) =>
          name.startsWith(BARE_SINK_PREFIX)
            ? ((await getAgentByName(env.BareEventSink, name)) as unknown as BenchCommandCenter)
            : ((await commandCenter(env, name)) as BenchCommandCenter),
        // As the command-center tests open one: on the stub (the Worker's gate routes only `main`).
        socket: async (name, request) =>
          (await getAgentByName(env.CommandCenterAgent, name)).fetch(
            new Request(`https://agent-think.bench/agents/command-center-agent/${encodeURIComponent(name)}`, request)
          ),
        now: () => Date.now(),
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms))
      })) ??
      (await handleCommandCenterRoute(request, {
        // The same stub GET /api/command-center uses, with the Agent's `state` getter read over RPC.
        center: async (name) => (await commandCenter(env, name)) as BenchCommandCenter,
        now: () => Date.now()
      })) ??
      (await handleBenchRoute(request, {
        ours: (input) => env.AGENT_THINK.dispatch(input),
        bare: (input) => bareSubmit(env, input),
        status: async (side, agent, submissionId) =>
          side === "bare"
            ? bareStatus(env, agent, submissionId)
            : ((await env.AGENT_THINK.getSubmissionStatus({ session: agent, submissionId }))?.status ?? null),
        now: () => Date.now()
      })) ?? worker.fetch(request, env)
    );
  }
} satisfies ExportedHandler<BenchEnv>;
