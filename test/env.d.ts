declare namespace Cloudflare {
  interface Env {
    GatewayThinkAgent: DurableObjectNamespace<import("./worker").GatewayThinkAgent>;
  }
}
