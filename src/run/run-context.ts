/**
 * The run context: who the current run is for, the token it may use, and
 * the App's bot it acts as.
 *
 * It is the only place an installation token is stored, with when it
 * expires. Each dispatch replaces it, so a queued turn uses the newest
 * (short-lived) token. The transcript, the envelope and the logs never carry
 * the token. When to renew it is RunToken's concern (run-token.ts). Pure:
 * storage is a narrow interface the Durable Object fills with `ctx.storage`.
 */
import { ciFailuresSchema, type BotIdentity, type CiFailures, type DispatchInput, type PullRequestRef, type RepoVisibility, type RunTier } from "../shared/dispatch";

export type RunContext = {
  repo: string;
  issueNumber: number;
  issueTitle?: string;
  /** The hex SHA-256 of the issue's body as the mention's payload had it (the dispatch's), to tell a body edited since. */
  issueBodySha256?: string;
  requestedBy?: { login: string; avatarUrl?: string };
  commentId?: number;
  /** The repository's visibility as the webhook reported it; a reproduction is public only for "public". */
  repoVisibility?: RepoVisibility;
  /** The pull request the mention was on (the dispatch's `pullRequest`), which the envelope describes. */
  pullRequest?: PullRequestRef;
  /** The latest dispatch's instruction, which a continuation carries on. */
  instruction: string;
  /** `reporter`: the latest dispatch came from the issue's author under the reporter tier, so its runs are read-only with the default egress allowlist (write-policy.ts, prepare.ts); absent, a maintainer's. */
  tier?: RunTier;
  /** A CI follow-up's failing checks (the dispatch's `ci`); the turn reads its own submission's, like `tier`. */
  ci?: CiFailures;
  installationToken: string;
  /** When `installationToken` expires, in ms since the epoch (see `tokenExpiry`). */
  tokenExpiresAt?: number;
  /**
   * The App's bot as GitHub named it (the dispatch's, then the latest token
   * broker answer's); absent when neither said, when bot-identity.ts falls
   * back on configuration.
   */
  bot?: BotIdentity;
  updatedAt: number;
};

/** GitHub's documented lifetime of an installation token. */
export const INSTALLATION_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

/**
 * When a token received at `receivedAt` expires: `expiresAt` (ISO 8601) when
 * its sender knew it, else one lifetime after it arrived.
 */
export function tokenExpiry(receivedAt: number, expiresAt?: string): number {
  const known = expiresAt === undefined ? Number.NaN : Date.parse(expiresAt);
  return Number.isNaN(known) ? receivedAt + INSTALLATION_TOKEN_LIFETIME_MS : known;
}

/** The run context a dispatch makes, received at `now`: what it said, and when its token expires. */
export function runContextFrom(input: DispatchInput, now: number): RunContext {
  return {
    repo: input.repo,
    issueNumber: input.issueNumber,
    issueTitle: input.issueTitle,
    ...(input.issueBodySha256 ? { issueBodySha256: input.issueBodySha256 } : {}),
    requestedBy: input.requestedBy,
    repoVisibility: input.repoVisibility,
    commentId: input.commentId,
    instruction: input.instruction,
    installationToken: input.installationToken,
    tokenExpiresAt: tokenExpiry(now, input.installationTokenExpiresAt),
    bot: input.bot,
    ...(input.pullRequest ? { pullRequest: input.pullRequest } : {}),
    ...(input.tier ? { tier: input.tier } : {}),
    ...(input.ci ? { ci: input.ci } : {}),
    updatedAt: now
  };
}

/**
 * The run context a turn is prepared with: the latest one, but with the
 * tier and the CI failures of the turn's own submission (its metadata), so
 * a later dispatch that replaced the context neither widens a queued
 * reporter-tier turn nor narrows a maintainer's, and gives no turn another
 * dispatch's CI output.
 */
export function runContextForTurn(run: RunContext, metadata: Record<string, unknown> | undefined): RunContext {
  const { tier: _latest, ci: _latestCi, ...rest } = run;
  const ci = ciFailuresSchema.safeParse(metadata?.ci);
  return { ...rest, ...(metadata?.tier === "reporter" ? { tier: "reporter" as const } : {}), ...(ci.success ? { ci: ci.data } : {}) };
}

/** When the run's token expires; a context stored without the expiry counts from its last update. */
export function runTokenExpiresAt(run: Pick<RunContext, "tokenExpiresAt" | "updatedAt">): number {
  return run.tokenExpiresAt ?? run.updatedAt + INSTALLATION_TOKEN_LIFETIME_MS;
}

export interface RunContextStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

const KEY = "agent-think:run-context";

export class RunContextStore {
  readonly #storage: RunContextStorage;
  constructor(storage: RunContextStorage) {
    this.#storage = storage;
  }
  get(): Promise<RunContext | undefined> {
    return this.#storage.get<RunContext>(KEY);
  }
  put(context: RunContext): Promise<void> {
    return this.#storage.put(KEY, context);
  }
  /**
   * Make `token`, expiring at `expiresAt` (ISO 8601, when known), the run's
   * token (a continuation, a `stop` comment, a refresh); null without a run.
   * The bot that came with it, when one did, becomes the run's; without one
   * the run keeps the bot it had.
   */
  async setToken(token: string, now: number, expiresAt?: string, bot?: BotIdentity): Promise<RunContext | null> {
    const run = await this.get();
    if (!run) return null;
    const next: RunContext = {
      ...run,
      installationToken: token,
      tokenExpiresAt: tokenExpiry(now, expiresAt),
      ...(bot ? { bot } : {}),
      updatedAt: now
    };
    await this.put(next);
    return next;
  }

  async clear(): Promise<void> {
    await this.#storage.delete(KEY);
  }
}
