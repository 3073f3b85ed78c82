/**
 * The App's own identity, learned from GitHub (`GET /app` for the slug,
 * `GET /users/<slug>[bot]` for the bot's id), so the agent's commits and
 * comments are by the App GitHub knows, not by a configured name. Kept in
 * the isolate and KV for IDENTITY_TTL_SECONDS; the own-bot gate reads only
 * the isolate's copy, so nothing is asked before the webhook answers.
 * BOT_LOGIN is only compared. A failure is an AppIdentityError with a
 * public message; there is no default. docs/ingress.md, "The App's identity".
 */
import { z } from "zod";
import { botIdentitySchema, type BotIdentity } from "../../../src/shared/dispatch";
import type { Logger } from "../log";
import { GitHubOctokit } from "./octokit";
import { clientOptions, describeGitHubError, statusOf, type AppCredentials } from "./app-client";
import { appInfo, forgetAppInfo } from "./app-info";

/**
 * How long a learned identity is trusted. An App can be renamed, which
 * changes its slug and so its bot's login (the id stays): an hour bounds
 * how long commits and comments would still name the old login, while
 * costing at most two GitHub calls an hour.
 */
export const IDENTITY_TTL_SECONDS = 60 * 60;
export const identityKey = (appId: string) => `app-identity:${appId.trim()}`;

export class AppIdentityError extends Error {
  override readonly name = "AppIdentityError";
  readonly code = "identity";
}

/** KV, narrowed to what the cache needs. */
export type IdentityStore = {
  get(key: string): Promise<string | null>;
  put(key: string, value: string, ttlSeconds: number): Promise<void>;
};

export type IdentityDeps = {
  credentials: AppCredentials;
  store: IdentityStore;
  log: Logger;
  now(): number;
  /** BOT_LOGIN as config.ts reads it (lowercase), or "" when unset. */
  configuredLogin: string;
};

/** What KV holds: the identity, the API it came from, and when it was learned (ms). */
const storedSchema = botIdentitySchema.extend({ apiUrl: z.string(), learnedAt: z.number() });
type Learned = z.infer<typeof storedSchema>;

/** This isolate's copies, by App id and API URL; plain data only (never a promise another request made). */
const learned = new Map<string, Learned>();
const isolateKey = (appId: string, apiUrl: string) => `${appId.trim()} ${apiUrl}`;
const fresh = (entry: Learned, now: number) => entry.learnedAt <= now && now - entry.learnedAt < IDENTITY_TTL_SECONDS * 1000;

/** The identity this isolate already learned for the App, if it is still fresh; never asks anyone. */
export function knownAppIdentity(appId: string, apiUrl: string, now: number): BotIdentity | undefined {
  const entry = learned.get(isolateKey(appId, apiUrl));
  return entry && fresh(entry, now) ? { login: entry.login, id: entry.id } : undefined;
}

/** Forgets this isolate's copies (the tests' fresh isolate). */
export function forgetAppIdentities(): void {
  learned.clear();
  forgetAppInfo();
}

/** The App's bot from this isolate, else KV; never asks GitHub (the mention handle's default reads its slug). */
export async function keptAppIdentity(deps: Pick<IdentityDeps, "credentials" | "store" | "log" | "now">): Promise<BotIdentity | undefined> {
  const { credentials } = deps;
  const now = deps.now();
  const entry = knownAppIdentity(credentials.appId, credentials.apiUrl, now) ?? (await fromStore(identityKey(credentials.appId), deps, now));
  return entry && { login: entry.login, id: entry.id };
}

/**
 * The App's bot: from this isolate, else KV, else GitHub (then kept in
 * both). `installationToken` is used only for `GET /users/<slug>[bot]`.
 */
export async function appIdentity(installationToken: string, deps: IdentityDeps): Promise<BotIdentity> {
  const { credentials, log } = deps;
  const now = deps.now();
  const known = knownAppIdentity(credentials.appId, credentials.apiUrl, now);
  if (known) return known;

  const key = identityKey(credentials.appId);
  let entry = await fromStore(key, deps, now);
  if (entry === undefined) {
    entry = { ...(await askGitHub(installationToken, deps)), apiUrl: credentials.apiUrl, learnedAt: now };
    log("identity:learned", { login: entry.login, id: entry.id });
    try {
      await deps.store.put(key, JSON.stringify(entry), IDENTITY_TTL_SECONDS);
    } catch (error) {
      // Only the cache failed: the identity is good, and the next isolate asks again.
      log("identity:cache-failed", { error: error instanceof Error ? error.message : String(error) });
    }
  }
  learned.set(isolateKey(credentials.appId, credentials.apiUrl), entry);
  if (deps.configuredLogin !== "" && deps.configuredLogin !== entry.login.toLowerCase()) {
    log("identity:mismatch", { configured: deps.configuredLogin, github: entry.login, using: entry.login });
  }
  return { login: entry.login, id: entry.id };
}

async function fromStore(key: string, deps: Pick<IdentityDeps, "credentials" | "store" | "log">, now: number): Promise<Learned | undefined> {
  let text: string | null;
  try {
    text = await deps.store.get(key);
  } catch (error) {
    deps.log("identity:cache-failed", { error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
  if (text === null) return undefined;
  let parsed: ReturnType<typeof storedSchema.safeParse>;
  try {
    parsed = storedSchema.safeParse(JSON.parse(text));
  } catch {
    return undefined;
  }
  // Another API's App, or one past its hour, is asked again.
  if (!parsed.success || parsed.data.apiUrl !== deps.credentials.apiUrl || !fresh(parsed.data, now)) return undefined;
  return parsed.data;
}

async function askGitHub(installationToken: string, deps: IdentityDeps): Promise<BotIdentity> {
  const { credentials, log } = deps;
  const app = await appInfo(credentials, log, deps.now());
  if (!app.ok) throw new AppIdentityError(app.error);
  const { slug } = app;
  const login = `${slug}[bot]`;

  const octokit = new GitHubOctokit({ ...clientOptions(credentials.apiUrl, log, { retryBaseMs: credentials.retryBaseMs }), auth: installationToken });
  let user: { login?: unknown; id?: unknown; type?: unknown };
  try {
    ({ data: user } = await octokit.rest.users.getByUsername({ username: login }));
  } catch (error) {
    if (statusOf(error) === 404) {
      throw new AppIdentityError(`GitHub has no user ${login} (GET /users/${login}): check that GITHUB_API_URL is the GitHub the App is registered on`);
    }
    throw new AppIdentityError(`${describeGitHubError(error)} to GET /users/${login}: check GITHUB_API_URL and GitHub's status, then retry`);
  }
  const identity = botIdentitySchema.safeParse({ login: user.login, id: user.id });
  if (user.type !== "Bot" || !identity.success || identity.data.login.toLowerCase() !== login.toLowerCase()) {
    throw new AppIdentityError(`GitHub's answer to GET /users/${login} is not the App's bot user (type Bot, that login, a numeric id)`);
  }
  return identity.data;
}
