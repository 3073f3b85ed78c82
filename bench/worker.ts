/**
 * The bench Worker: the real agent Worker, unchanged, plus the baseline and
 * the bench routes (see routes.ts) that bench/run.ts times under
 * `wrangler dev --local`.
 *
 * Our side goes through `env.AGENT_THINK`, a service binding to this Worker's
 * own AgentThink entrypoint: the RPC a webhook app makes. The bare side is
 * what Think itself costs: `getAgentByName` plus one `submitMessages` on a
 * Think subclass that overrides nothing but the model (the same scripted
 * model, so both sides also run the same kind of turn in the background).
 */
import { Think } from "@cloudflare/think";
import { getAgentByName } from "agents";
import type { LanguageModel, UIMessage } from "ai";
import worker from "../src/index";
import { ScriptedModel } from "../src/model/scripted";
import { handleBenchRoute, type BareSubmitInput } from "./routes";

export { AgentThink, ThinkAgent, WorkspaceAgent, Sandbox, WarmPool, WorkspaceProxy, WorkspaceServiceProxy } from "../src/index";

/** The bench Worker's environment: the agent Worker's plus the bench bindings (env.d.ts). */
type BenchEnv = Env & Required<Pick<Cloudflare.Env, "BareThinkAgent" | "AGENT_THINK">>;

export class BareThinkAgent extends Think<Env> {
  override getModel(): LanguageModel {
    return new ScriptedModel();
  }
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
    return (
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
