/**
 * The test Worker: the real Worker plus one seam. GatewayThinkAgent is the
 * real ThinkAgent configured for the AI Gateway chain (stored keys, unless a
 * test gives its session provider keys), so the model-chain tests drive real
 * turns against MSW-served providers. The Enterprise agents
 * are the real ThinkAgent and WorkspaceAgent configured as a deploy for a
 * GitHub Enterprise Server would be (test/enterprise-host.test.ts).
 * ProductionThinkAgent is the real ThinkAgent outside local dev with no
 * BOT_LOGIN, as production runs (test/bot-identity.test.ts).
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { RECOVERY_EXHAUSTED_MESSAGE, ThinkAgent } from "../src/agent";
import { WorkspaceAgent } from "../src/workspace-agent";
import type { AppStatus } from "../src/shared/app-status";
import type { BotIdentity } from "../src/shared/dispatch";

export {
  default,
  AgentThink,
  ThinkAgent,
  WorkspaceAgent,
  Sandbox,
  WarmPool,
  CommandCenterAgent,
  WorkspaceProxy,
  WorkspaceServiceProxy,
  SandboxEgress,
  SandboxEgressProxy
} from "../src/index";

export const TEST_GATEWAY_ENV = {
  MODEL_PROVIDER: "gateway",
  AI_GATEWAY_ACCOUNT_ID: "test-account",
  AI_GATEWAY_ID: "test-gateway",
  CLOUDFLARE_AIG_TOKEN: "aig-test-token-0000",
  OPENAI_MODEL: "gpt-5.5-test",
  ANTHROPIC_MODEL: "claude-test"
};

export class GatewayThinkAgent extends ThinkAgent {
  /** What a test adds to TEST_GATEWAY_ENV for one session (provider keys, a key mode), set before its first turn. */
  static readonly modelEnvFor = new Map<string, Record<string, string>>();
  /** Sessions whose agent reads and reports on the GitHub MSW plays (TEST_GITHUB_API_URL), as ReportingThinkAgent does. */
  static readonly withGitHub = new Set<string>();
  protected override modelEnv() {
    return { ...this.env, ...TEST_GATEWAY_ENV, ...GatewayThinkAgent.modelEnvFor.get(this.name) };
  }
  protected override githubApiUrl() {
    return GatewayThinkAgent.withGitHub.has(this.name) ? TEST_GITHUB_API_URL : super.githubApiUrl();
  }
}

/** The App's bot as the test broker names it with every token: the stand-in's login, with the id GitHub would give. */
export const TEST_BROKER_BOT: BotIdentity = { login: "agent-think[bot]", id: 9001 };

/** Stands in for the webhook app's AgentThinkTokenBroker (GITHUB_AUTH). */
export class TestTokenBroker extends WorkerEntrypoint<Env> {
  static minted: string[] = [];
  /**
   * A read-only token (`{ access: "read" }`) is `ghs_testReadOnly_<repo>`, recorded as `read:<repo>`; an issues-only
   * one for the Worker's posts (`{ access: "report" }`) is `ghs_testReport_<repo>`, recorded as `report:<repo>`.
   */
  async mintInstallationToken(repo: string, options?: { access?: "read" | "write" | "report" }): Promise<{ token: string; expiresAt: string; bot: BotIdentity }> {
    const access = options?.access === "read" || options?.access === "report" ? options.access : undefined;
    TestTokenBroker.minted.push(access ? `${access}:${repo}` : repo);
    const token = `ghs_test${access === "read" ? "ReadOnly" : access === "report" ? "Report" : "Minted"}_${repo.replace(/\W/g, "_")}`;
    return { token, expiresAt: new Date(Date.now() + 3_600_000).toISOString(), bot: TEST_BROKER_BOT };
  }

  /** The webhook app's App check, as it answers for a working App whose handle is its slug (ingress/src/app-check.ts). */
  async appStatus(): Promise<AppStatus> {
    return { ok: true, slug: "agent-think", name: "agent-think", mentionHandle: "@agent-think", handleSet: false, checkedAt: new Date().toISOString() };
  }
}

/** Where the reporting agents post: MSW answers it in test/reporting.test.ts. */
export const TEST_GITHUB_API_URL = "https://github.test/api/v3";

/** The real ThinkAgent, posting its reactions and comments to a GitHub that MSW plays. */
export class ReportingThinkAgent extends ThinkAgent {
  protected override githubApiUrl() {
    return TEST_GITHUB_API_URL;
  }

  /** An issue's reporter session runs under this class too. */
  protected override issueAgents(): Env["ThinkAgent"] {
    return (this.env as unknown as { ReportingThinkAgent: Env["ThinkAgent"] }).ReportingThinkAgent;
  }
}

/** The same, giving up on a turn after one recovery, so an eviction can exhaust it. */
export class FragileThinkAgent extends ReportingThinkAgent {
  override chatRecovery = { maxAttempts: 1, terminalMessage: RECOVERY_EXHAUSTED_MESSAGE, onExhausted: () => {} };
}

/** The GitHub Enterprise Server the Enterprise agents are configured for; MSW plays its API in test/enterprise-host.test.ts. */
export const TEST_ENTERPRISE_API_URL = "https://ghe.example.com/api/v3";

type EnterpriseBindings = { EnterpriseThinkAgent: Env["ThinkAgent"]; EnterpriseWorkspaceAgent: Env["WorkspaceAgent"] };

/**
 * The env a deploy for that Enterprise host would give the issue's agents:
 * its GITHUB_API_URL, and each other as the ThinkAgent and WorkspaceAgent
 * they reach by binding. Everything else is the test Worker's.
 */
function enterpriseEnv(env: Env): Env {
  const bindings = env as Env & EnterpriseBindings;
  return {
    ...env,
    GITHUB_API_URL: TEST_ENTERPRISE_API_URL,
    ThinkAgent: bindings.EnterpriseThinkAgent,
    WorkspaceAgent: bindings.EnterpriseWorkspaceAgent
  };
}

/** The real ThinkAgent of a deploy for TEST_ENTERPRISE_API_URL. */
export class EnterpriseThinkAgent extends ThinkAgent {
  constructor(...[ctx, env]: ConstructorParameters<typeof ThinkAgent>) {
    super(ctx, enterpriseEnv(env));
  }
}

/** The real WorkspaceAgent of a deploy for TEST_ENTERPRISE_API_URL. */
export class EnterpriseWorkspaceAgent extends WorkspaceAgent {
  constructor(...[ctx, env]: ConstructorParameters<typeof WorkspaceAgent>) {
    super(ctx, enterpriseEnv(env));
  }
}

/** The real ThinkAgent as production runs it: not local dev, and no BOT_LOGIN (a run's bot comes from its dispatch or the broker). */
export class ProductionThinkAgent extends ThinkAgent {
  constructor(...[ctx, env]: ConstructorParameters<typeof ThinkAgent>) {
    const { BOT_LOGIN: _none, ...rest } = env as Env & { BOT_LOGIN?: string };
    super(ctx, { ...rest, LOCAL_DEV: "" } as Env);
  }
}
