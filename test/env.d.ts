// The test worker's extra binding (see test/wrangler.jsonc), declared on both
// names the generated types use for the environment.
type GatewayThinkAgentNamespace = DurableObjectNamespace<import("./worker").GatewayThinkAgent>;
declare namespace Cloudflare {
  interface Env {
    GatewayThinkAgent: GatewayThinkAgentNamespace;
  }
}
interface Env {
  GatewayThinkAgent: GatewayThinkAgentNamespace;
}
