/**
 * Binds the Worker's environment into the plain dependencies the webhook
 * route and the token broker take: configuration, the signature check, the
 * claim object, the KV marker, cached permissions, GitHub through Octokit,
 * the App's identity, a repository's `.github/agent-think.yml`, and the
 * agent Worker's `dispatch` and `recordPullRequest`. The only module
 * besides index.ts and comment-claim.ts that touches bindings. Which token
 * a delivery mints and when: docs/ingress.md, "Tokens", "The reporter tier".
 */
import { Webhooks } from "@octokit/webhooks";
import type { DispatchInput, DispatchResult } from "../../src/shared/dispatch";
import type { PullRequestEvent, PullRequestRecordResult } from "../../src/shared/command-center-events";
import { budgetNoticeKey } from "../../src/shared/monthly-budget";
import { claimName } from "./comment-claim";
import { readConfig, type IngressConfig } from "./config";
import {
  BEFORE_ANSWER,
  installationClient,
  mintRepoToken,
  type AppCredentials,
  type CallPatience,
  type RepoRef,
  type MintAccess,
  type RepoToken,
  TokenMintError
} from "./github/app-client";
import { appIdentity, keptAppIdentity, knownAppIdentity } from "./github/app-identity";
import { appInfo } from "./github/app-info";
import type { AppCheckDeps } from "./app-check";
import { MARKER_TTL_SECONDS, type HandledMarker } from "./http/accepted";
import { markerKey, type TriggerRef } from "./trigger";
import type { WebhookDeps } from "./http/webhook";
import { ciClaimName, ciMarkerKey } from "./http/ci-event";
import type { BrokerDeps } from "./token-broker";
import { createLogger, type Logger } from "./log";
import { lookupPermission, type PermissionCache } from "./permission";
import { MAX_REPO_CONFIG_BYTES, REPO_CONFIG_PATH } from "./repo-triggers";
import { REPORTER_CLAIM_RETENTION_MS, reporterBudgetNoticeClaim, reporterBusyNoticeClaim, reporterNoticeClaim, reporterRunClaim } from "./reporter-tier";

/** The agent Worker's RPC surface this Worker uses (the generated Env types it as a bare Service). */
export type AgentDispatcher = {
  dispatch(input: DispatchInput): Promise<DispatchResult>;
  recordPullRequest(input: PullRequestEvent): Promise<PullRequestRecordResult>;
};

export function ingressLogger(env: Env): Logger {
  const secrets = [env.GITHUB_WEBHOOK_SECRET, env.GITHUB_APP_PRIVATE_KEY].filter((secret): secret is string => !!secret);
  return createLogger({ worker: "agent-think-ingress" }, secrets);
}

export function brokerDeps(env: Env, log: Logger): BrokerDeps {
  const config = () => readConfig(env);
  return { config, log, mint: (repo, access, also) => mintToken(env, config(), repo, log, undefined, access, undefined, also), identity: (token) => identity(env, config(), token, log) };
}

export function webhookDeps(env: Env, ctx: ExecutionContext, log: Logger): WebhookDeps {
  const config = () => readConfig(env);
  const webhookSecret = env.GITHUB_WEBHOOK_SECRET ?? "";
  const mint = oncePerRepository((repo, installationId, patience) => mintToken(env, config(), repo, log, installationId, undefined, patience));
  const mintRead = oncePerRepository((repo, installationId, patience) => mintToken(env, config(), repo, log, installationId, "read", patience));
  const cache: PermissionCache = kvStore(env);
  // A mint refused before the answer is not tried again before it: the config read would spend GitHub's seconds on it.
  let refusedBeforeAnswer: string | undefined;
  const ask = (installationId: number | undefined) => async (repo: RepoRef, login: string) => {
    let token: RepoToken;
    try {
      token = await mint(repo, installationId, BEFORE_ANSWER);
    } catch (error) {
      refusedBeforeAnswer = error instanceof Error ? error.message : String(error);
      const noToken = new Error(`no installation token to ask with: ${error instanceof Error ? error.message : String(error)}`);
      // An installation that refuses the bot's full set may still grant the report's: it can ask who this is, so a
      // maintainer's mention is claimed and its failed mint reported after the answer (start-run.ts).
      if (!(error instanceof TokenMintError && error.code === "not_installed")) throw noToken;
      token = await mintToken(env, config(), repo, log, installationId, "report", BEFORE_ANSWER).catch(() => Promise.reject(noToken));
    }
    log.addSecret(token.token);
    return installationClient(token.token, config().apiUrl, log, config().retryBaseMs).collaboratorPermission(repo, login);
  };
  return {
    config,
    webhookSecret,
    log,
    verify: (payload, signature) => verifierFor(webhookSecret).verify(payload, signature),
    claim: (ref, deliveryId) => env.COMMENT_CLAIMS.getByName(claimName(ref)).claim(deliveryId),
    markHandled: (marker) =>
      env.EVENT_STATE.put(markerKey(markerRef(marker)), JSON.stringify(marker), { expirationTtl: MARKER_TTL_SECONDS }),
    // Before the answer, with the token the permission check minted (or minted now, as patiently): one try each.
    repoConfigFile: async (repo, installationId) => {
      if (refusedBeforeAnswer !== undefined) throw new Error(`no installation token to read with: ${refusedBeforeAnswer}`);
      const token = await mint(repo, installationId, BEFORE_ANSWER);
      log.addSecret(token.token);
      return await installationClient(token.token, config().apiUrl, log, config().retryBaseMs).fileOnDefaultBranch(repo, REPO_CONFIG_PATH, MAX_REPO_CONFIG_BYTES);
    },
    // The reporter tier's: a token already minted for the permission check, else the run's read-only one, as patiently.
    reporterConfigFile: async (repo, installationId) => {
      if (refusedBeforeAnswer !== undefined) throw new Error(`no installation token to read with: ${refusedBeforeAnswer}`);
      const token = await (mint.kept(repo) ?? mintRead(repo, installationId, BEFORE_ANSWER));
      log.addSecret(token.token);
      return await installationClient(token.token, config().apiUrl, log, config().retryBaseMs).fileOnDefaultBranch(repo, REPO_CONFIG_PATH, MAX_REPO_CONFIG_BYTES);
    },
    // A CI follow-up's gate: the pull request as GitHub describes it, with the token minted for the run, one try within 3 s.
    pullBeforeAnswer: async (repo, number, installationId) => {
      const token = await mint(repo, installationId, BEFORE_ANSWER);
      log.addSecret(token.token);
      return await installationClient(token.token, config().apiUrl, log, config().retryBaseMs, BEFORE_ANSWER).pullRequest(repo, number);
    },
    claimCiFix: (repo, issueNumber, headSha, deliveryId, limit) => env.COMMENT_CLAIMS.getByName(ciClaimName(repo, issueNumber)).claimCiFix(headSha, deliveryId, limit),
    markCi: (marker) =>
      env.EVENT_STATE.put(ciMarkerKey(marker.repo, marker.issueNumber, marker.headSha), JSON.stringify(marker), { expirationTtl: MARKER_TTL_SECONDS }),
    download: (url, init) => fetch(url, init),
    permission: (repo, login, installationId) => lookupPermission(repo, login, { cache, ask: ask(installationId), log, now: () => Date.now() }),
    mintToken: mint,
    mintReportToken: (repo, installationId) => mintToken(env, config(), repo, log, installationId, "report"),
    mintReadToken: mintRead,
    mintCiReadToken: (repo, installationId) => mintToken(env, config(), repo, log, installationId, "ci"),
    claimSetupReport: (repo) => env.COMMENT_CLAIMS.getByName(setupReportClaim(repo, Date.now())).claim("setup-report"),
    claimReporterRun: (repo, issueNumber, at, holder) => dailyClaim(env, reporterRunClaim(repo, issueNumber, at), holder),
    releaseReporterRun: (repo, issueNumber, at, holder) => env.COMMENT_CLAIMS.getByName(reporterRunClaim(repo, issueNumber, at)).release(holder),
    claimReporterNotice: (repo, issueNumber, at) => dailyClaim(env, reporterNoticeClaim(repo, issueNumber, at), "reporter-notice"),
    claimReporterBusyNotice: (repo, issueNumber, at) => dailyClaim(env, reporterBusyNoticeClaim(repo, issueNumber, at), "reporter-busy-notice"),
    claimReporterBudgetNotice: (repo, at) => dailyClaim(env, reporterBudgetNoticeClaim(repo, at), "reporter-budget-notice"),
    claimBudgetNotice: (repo, issueNumber, at) =>
      env.COMMENT_CLAIMS.getByName(budgetNoticeClaim(repo, issueNumber, at)).claim("budget-notice", BUDGET_NOTICE_RETENTION_MS),
    github: (token) => installationClient(token, config().apiUrl, log, config().retryBaseMs),
    identity: (token) => identity(env, config(), token, log),
    knownBotLogin: () => knownAppIdentity(env.GITHUB_APP_ID ?? "", config().apiUrl, Date.now())?.login,
    appSlug: () => appSlug(env, config(), log),
    dispatch: (input) => (env.AGENT_THINK as unknown as AgentDispatcher).dispatch(input),
    recordPullRequest: (event) => (env.AGENT_THINK as unknown as AgentDispatcher).recordPullRequest(event),
    waitUntil: (promise) => ctx.waitUntil(promise),
    now: () => Date.now()
  };
}

/**
 * The claim that lets one failed-mint report a clock hour (UTC) through for
 * a repository: CommentClaim's atomic first-wins, under a name no comment
 * has (`setup-report:<owner>/<name>:<YYYY-MM-DDTHH>`).
 */
export const setupReportClaim = (repo: RepoRef, now: number) => `setup-report:${repo.owner}/${repo.name}:${new Date(now).toISOString().slice(0, 13)}`.toLowerCase();

/**
 * The claim that lets one monthly-budget notice a calendar month (UTC)
 * through for an issue (`budget-notice:<YYYY-MM>:<owner>/<name>#<n>`), kept
 * longer than the longest month so it outlives the month it names.
 */
export const budgetNoticeClaim = (repo: RepoRef, issueNumber: number, at: number) =>
  `budget-notice:${budgetNoticeKey(`${repo.owner}/${repo.name}`, issueNumber, at)}`;
export const BUDGET_NOTICE_RETENTION_MS = 32 * 24 * 60 * 60 * 1000;

/** A UTC day's first-wins for the reporter tier (reporter-tier.ts names them): CommentClaim, kept past the day it names. */
const dailyClaim = (env: Env, name: string, what: string) => env.COMMENT_CLAIMS.getByName(name).claim(what, REPORTER_CLAIM_RETENTION_MS);

/** Which comment, review comment, review or issue event a marker is about (exactly one of them is set). */
function markerRef(marker: HandledMarker): TriggerRef {
  if (marker.issueEvent !== undefined) return { kind: marker.issueEvent, repo: marker.repo, issueNumber: marker.issueNumber, deliveryId: marker.deliveryId };
  if (marker.reviewId !== undefined) return { kind: "review", id: marker.reviewId };
  if (marker.reviewCommentId !== undefined) return { kind: "review_comment", id: marker.reviewCommentId };
  return { kind: "comment", id: marker.commentId ?? 0 };
}

export function appCheckDeps(env: Env, log: Logger): AppCheckDeps {
  return { config: () => readConfig(env), credentials: (config) => credentials(env, config), log, now: () => Date.now() };
}

/**
 * How long `GET /app` may take before the webhook answers: only a cold
 * isolate with no identity in KV asks (once an hour at most), and it shares
 * GitHub's ten seconds with the mint and the permission check.
 */
const SLUG_BEFORE_ANSWER = { retries: 0, timeoutMs: 1_000 } as const;

/** The App's slug: the identity kept in the isolate or KV names it (`<slug>[bot]`), else `GET /app`. */
async function appSlug(env: Env, config: IngressConfig, log: Logger) {
  const kept = await keptAppIdentity({ credentials: credentials(env, config), store: kvStore(env), log, now: () => Date.now() });
  if (kept) return { ok: true as const, slug: kept.login.replace(/\[bot\]$/i, "") };
  return await appInfo(credentials(env, config), log, Date.now(), SLUG_BEFORE_ANSWER);
}

/** EVENT_STATE with a TTL on each write: the permission and identity caches. */
const kvStore = (env: Env) => ({
  get: (key: string) => env.EVENT_STATE.get(key),
  put: (key: string, value: string, ttlSeconds: number) => env.EVENT_STATE.put(key, value, { expirationTtl: ttlSeconds })
});

const credentials = (env: Env, config: IngressConfig): AppCredentials => ({
  appId: env.GITHUB_APP_ID ?? "",
  privateKey: env.GITHUB_APP_PRIVATE_KEY ?? "",
  apiUrl: config.apiUrl,
  retryBaseMs: config.retryBaseMs
});

function mintToken(env: Env, config: IngressConfig, repo: RepoRef, log: Logger, installationId?: number, access?: MintAccess, patience?: CallPatience, also?: readonly string[]) {
  return mintRepoToken(credentials(env, config), repo, log, installationId, access, patience, also);
}

function identity(env: Env, config: IngressConfig, token: string, log: Logger) {
  return appIdentity(token, {
    credentials: credentials(env, config),
    store: kvStore(env),
    log,
    now: () => Date.now(),
    configuredLogin: config.botLogin
  });
}

type Mint = (repo: RepoRef, installationId?: number, patience?: CallPatience) => Promise<RepoToken>;
/** `kept(repo)`: the mint already asked for `repo`, if any (a failed one is not kept). */
type KeptMint = Mint & { kept(repo: RepoRef): Promise<RepoToken> | undefined };

/**
 * `mint`, called at most once per repository (a failed mint is not kept, so
 * it is tried again), with the first caller's patience. One delivery names
 * one installation, so the repository is the key.
 */
function oncePerRepository(mint: Mint): KeptMint {
  const minted = new Map<string, Promise<RepoToken>>();
  const keyOf = (repo: RepoRef) => `${repo.owner}/${repo.name}`.toLowerCase();
  const once: Mint = (repo, installationId, patience) => {
    const key = keyOf(repo);
    let token = minted.get(key);
    if (token === undefined) {
      token = mint(repo, installationId, patience);
      minted.set(key, token);
      token.catch(() => minted.delete(key));
    }
    return token;
  };
  return Object.assign(once, { kept: (repo: RepoRef) => minted.get(keyOf(repo)) });
}

let verifier: { secret: string; webhooks: Webhooks } | undefined;

/** One Webhooks instance per secret, kept for the isolate's life. */
function verifierFor(secret: string): Webhooks {
  if (verifier?.secret !== secret) verifier = { secret, webhooks: new Webhooks({ secret }) };
  return verifier.webhooks;
}
