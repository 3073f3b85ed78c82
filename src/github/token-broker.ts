/**
 * Fresh installation tokens from the webhook app's AgentThinkTokenBroker
 * (the GITHUB_AUTH service binding): the agent Worker holds no App
 * credentials, so a continuation or a post after the run's token expired
 * asks the broker.
 */
type TokenBroker = { mintInstallationToken(repo: string): Promise<{ token: string }> };

/**
 * A fresh installation token for `repo`. Local dev runs without the webhook
 * app, so there a broker that cannot be reached means no GitHub access (an
 * empty token, which the local GitHub stand-in accepts) rather than a failure.
 */
export async function mintInstallationToken(env: Pick<Env, "GITHUB_AUTH" | "LOCAL_DEV">, repo: string): Promise<string> {
  try {
    return (await (env.GITHUB_AUTH as unknown as TokenBroker).mintInstallationToken(repo)).token;
  } catch (error) {
    if (env.LOCAL_DEV === "1") return "";
    throw error;
  }
}
