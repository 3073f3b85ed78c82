/**
 * The test Worker: the real Worker plus one seam. GatewayThinkAgent is the
 * real ThinkAgent configured for the AI Gateway chain, so the model-chain
 * tests drive real turns against MSW-served providers.
 */
import { ThinkAgent } from "../src/agent";

export { default, AgentThink, ThinkAgent, WorkspaceAgent, Sandbox, WarmPool, WorkspaceProxy, WorkspaceServiceProxy } from "../src/index";

export const TEST_GATEWAY_ENV = {
  MODEL_PROVIDER: "gateway",
  AI_GATEWAY_ACCOUNT_ID: "test-account",
  AI_GATEWAY_ID: "test-gateway",
  CLOUDFLARE_AIG_TOKEN: "aig-test-token-0000",
  OPENAI_MODEL: "gpt-5.5-test",
  ANTHROPIC_MODEL: "claude-test"
};

export class GatewayThinkAgent extends ThinkAgent {
  protected override modelEnv() {
    return { ...this.env, ...TEST_GATEWAY_ENV };
  }
}
