// Bindings only the bench Worker has (see bench/wrangler.jsonc). Optional,
// because the agent Worker's own `Env` (which ThinkAgent is typed with) must
// still satisfy `Cloudflare.Env`; bench/worker.ts requires them in `BenchEnv`.
declare namespace Cloudflare {
  interface Env {
    BareThinkAgent?: DurableObjectNamespace<import("./worker").BareThinkAgent>;
    BareWorkspace?: DurableObjectNamespace<import("./worker").BareWorkspace>;
    BareEventSink?: DurableObjectNamespace<import("./worker").BareEventSink>;
    AGENT_THINK?: Service<typeof import("./worker").AgentThink>;
  }
}
