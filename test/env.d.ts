// The test worker's extra bindings (see test/wrangler.jsonc), declared on both
// names the generated types use for the environment.
type GatewayThinkAgentNamespace = DurableObjectNamespace<import("./worker").GatewayThinkAgent>;
type ReportingThinkAgentNamespace = DurableObjectNamespace<import("./worker").ReportingThinkAgent>;
declare namespace Cloudflare {
  interface Env {
    GatewayThinkAgent: GatewayThinkAgentNamespace;
    ReportingThinkAgent: ReportingThinkAgentNamespace;
    FragileThinkAgent: ReportingThinkAgentNamespace;
  }
}
interface Env {
  GatewayThinkAgent: GatewayThinkAgentNamespace;
  ReportingThinkAgent: ReportingThinkAgentNamespace;
  FragileThinkAgent: ReportingThinkAgentNamespace;
}
// Vite's raw imports: a file's text (the skills' SKILL.md in test/skills.test.ts).
declare module "*.md?raw" {
  const text: string;
  export default text;
}
// An eval case's file, as text (test/fix-proof.test.ts parses it as the harness does).
declare module "*.json?raw" {
  const text: string;
  export default text;
}
