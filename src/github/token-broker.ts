/**
 * Fresh installation tokens from the webhook app's AgentThinkTokenBroker
 * (the GITHUB_AUTH service binding): the agent Worker holds no App
 * credentials, so a continuation, a run whose token is about to expire, or
 * a post after the run's token expired asks the broker. The broker also
 * names the App's bot (login and id, as GitHub gave them), which becomes
 * the run's with the token; an older broker that names none leaves the
 * run's as it was.
 */
import { z } from "zod";
import { botIdentitySchema, parseInput } from "../shared/dispatch";
import type { MintedToken } from "../run/run-token";

/** What the broker mints: the bot's write token, a read-only one, or one that may only comment and react (a reporter run's posts). */
export type BrokerAccess = "write" | "read" | "report";

type TokenBroker = {
  mintInstallationToken(
    repo: string,
    options?: { access: Exclude<BrokerAccess, "write">; repositories?: string[] }
  ): Promise<{ token: string; expiresAt?: string; bot?: unknown }>;
};

/** The broker's bot, checked as a dispatch's is: a malformed one is an error naming `bot.login` or `bot.id`, never ignored. */
const brokerBotSchema = z.object({ bot: botIdentitySchema.optional() });

/**
 * A fresh installation token for `repo` and, when the broker says, when it
 * expires and who the App's bot is; `access` "read" asks for a read-only
 * one (the container of a run that may write nothing, src/run/read-token.ts;
 * a reporter run), "report" for one that may only comment and react on
 * issues (a reporter run's posts). Local dev runs without the webhook app,
 * so there a broker that cannot be reached means no GitHub access (an empty
 * token with no expiry, which the local GitHub stand-in accepts) rather than
 * a failure.
 */
export async function mintInstallationToken(
  env: Pick<Env, "GITHUB_AUTH" | "LOCAL_DEV">,
  repo: string,
  access: BrokerAccess = "write",
  also: readonly string[] = []
): Promise<MintedToken> {
  let answer: Awaited<ReturnType<TokenBroker["mintInstallationToken"]>>;
  try {
    const broker = env.GITHUB_AUTH as unknown as TokenBroker;
    // The write token is asked with no options, as every broker has always taken it.
    if (access === "write") answer = await broker.mintInstallationToken(repo);
    // `repositories`: other repositories of the owner a read token also reads (a `git` registry entry).
    else answer = await broker.mintInstallationToken(repo, access === "read" && also.length > 0 ? { access, repositories: [...also] } : { access });
  } catch (error) {
    if (env.LOCAL_DEV === "1") return { token: "" };
    throw error;
  }
  const { token, expiresAt } = answer;
  const { bot } = parseInput(brokerBotSchema, { bot: answer.bot ?? undefined }, "bot");
  return { token, ...(typeof expiresAt === "string" ? { expiresAt } : {}), ...(bot ? { bot } : {}) };
}
