/**
 * Fresh installation tokens from the webhook app's AgentThinkTokenBroker
 * (the GITHUB_AUTH service binding): the agent Worker holds no App
 * credentials, so a continuation, a run whose token is about to expire, or
 * a post after the run's token expired asks the broker.
 */
import type { MintedToken } from "../run/run-token";

type TokenBroker = { mintInstallationToken(repo: string): Promise<{ token: string; expiresAt?: string }> };

/**
 * A fresh installation token for `repo` and, when the broker says, when it
 * expires. Local dev runs without the webhook app, so there a broker that
 * cannot be reached means no GitHub access (an empty token with no expiry,
 * which the local GitHub stand-in accepts) rather than a failure.
 */
export async function mintInstallationToken(env: Pick<Env, "GITHUB_AUTH" | "LOCAL_DEV">, repo: string): Promise<MintedToken> {
  try {
    const { token, expiresAt } = await (env.GITHUB_AUTH as unknown as TokenBroker).mintInstallationToken(repo);
    return typeof expiresAt === "string" ? { token, expiresAt } : { token };
  } catch (error) {
    if (env.LOCAL_DEV === "1") return { token: "" };
    throw error;
  }
}
