/**
 * The test Worker: the real Worker plus one seam. GatewayThinkAgent is the
 * real ThinkAgent configured for the AI Gateway chain, so the model-chain
 * tests drive real turns against MSW-served providers.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { RECOVERY_EXHAUSTED_MESSAGE, ThinkAgent } from "../src/agent";

export { default, AgentThink, ThinkAgent, WorkspaceAgent, Sandbox, WarmPool, CommandCenterAgent, WorkspaceProxy, WorkspaceServiceProxy } from "../src/index";

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

/** Stands in for the webhook app's AgentThinkTokenBroker (GITHUB_AUTH). */
export class TestTokenBroker extends WorkerEntrypoint<Env> {
  static minted: string[] = [];
  async mintInstallationToken(repo: string): Promise<{ token: string; expiresAt: string }> {
    TestTokenBroker.minted.push(repo);
    return { token: `ghs_testMinted_${repo.replace(/\W/g, "_")}`, expiresAt: new Date(Date.now() + 3_600_000).toISOString() };
  }
}

/** Where the reporting agents post: MSW answers it in test/reporting.test.ts. */
export const TEST_GITHUB_API_URL = "https://github.test/api/v3";

/** The real ThinkAgent, posting its reactions and comments to a GitHub that MSW plays. */
export class ReportingThinkAgent extends ThinkAgent {
  protected override githubApiUrl() {
    return TEST_GITHUB_API_URL;
  }
}

/** The same, giving up on a turn after one recovery, so an eviction can exhaust it. */
export class FragileThinkAgent extends ReportingThinkAgent {
  override chatRecovery = { maxAttempts: 1, terminalMessage: RECOVERY_EXHAUSTED_MESSAGE, onExhausted: () => {} };
}
