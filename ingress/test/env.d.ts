// The test worker's extra bindings (see wrangler.jsonc and vitest.config.ts),
// declared on both names the generated types use for the environment.
type TestOnlyBindings = {
  TOKEN_BROKER: Service<import("../src/index").AgentThinkTokenBroker>;
  /** The App's public key (SPKI, base64), to verify the JWTs the Worker signs. */
  TEST_APP_PUBLIC_KEY: string;
};
declare namespace Cloudflare {
  interface Env extends TestOnlyBindings {}
}
interface Env extends TestOnlyBindings {}

// Vite's `?raw` import: the file's text (GitHub's published webhook examples).
declare module "*?raw" {
  const text: string;
  export default text;
}
