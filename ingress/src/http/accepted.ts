/**
 * What a claimed trigger carries into its background work (`AcceptedComment`),
 * the KV marker that records how it went (`HandledMarker`) and what that work
 * asks of its Worker (`StartRunDeps`). start-run.ts, not-started.ts,
 * reporter-run.ts and run-fields.ts all import this and it imports none of
 * them, so the background work's modules form no circle.
 */
import type { BotIdentity, DispatchInput, DispatchResult, PullRequestRef, RepoVisibility } from "../../../src/shared/dispatch";
import type { InstallationClient, RepoRef, RepoToken } from "../github/app-client";
import type { Logger } from "../log";
import type { ReporterRefusalReason } from "../reporter-tier";
import type { IssueEventKind, TriggerRef } from "../trigger";

/**
 * How long `handled:<kind>:<id>` markers (trigger.ts) are kept: far longer
 * than a delivery is accepted (freshness.ts, 24 hours from the comment), so
 * the record outlives every delivery that could still start its run.
 */
export const MARKER_TTL_SECONDS = 30 * 24 * 60 * 60;

export type AcceptedComment = {
  deliveryId: string;
  /** The one name of the repository (webhook.ts): the token, reactions, comments, marker and dispatch all use it. */
  repo: RepoRef;
  /** The payload's `installation.id`; without it the mint looks the installation up. */
  installationId: number | undefined;
  /** Unknown when the payload said neither `visibility` nor `private`. */
  repoVisibility: RepoVisibility | undefined;
  /** The issue's or pull request's number. */
  issueNumber: number;
  issueTitle: string;
  /** The issue's (or pull request's) body in the payload: null when it has none, undefined when the payload did not say. */
  issueBody: string | null | undefined;
  /** The comment, review comment or review that mentioned the bot. */
  trigger: TriggerRef;
  /** From the payload, or "fetch": a conversation comment's payload names the pull request only (trigger.ts). */
  pullRequest: PullRequestRef | "fetch" | undefined;
  instruction: string;
  requestedBy: { login: string; avatarUrl?: string };
  /** What asked, as the not-started comments name it ("this comment", "this assignment", "this label"). */
  what: string;
  /** What to do to ask again, as those comments say it ("mention `@agent-think` again"). */
  again: string;
  /** Claimed only to be told why nothing starts (the repository's config does not parse): no run, no dispatch. */
  refusal?: { reason: string; body: string };
  /**
   * The issue's author without write access (reporter-tier.ts): a
   * reproduction, dispatched as `tier: "reporter"` if it is the issue's first
   * today, or refused (at most one comment per issue per day).
   */
  reporter?: { run: true } | { run: false; reason: ReporterRefusalReason };
};

export type MarkerState = "claimed" | "dispatched" | "failed" | "refused";

export type HandledMarker = {
  state: MarkerState;
  repo: string;
  issueNumber: number;
  /** Exactly one of the four, by what asked: a comment, a review comment, a review, or an issue event (its action). */
  commentId?: number;
  reviewCommentId?: number;
  reviewId?: number;
  issueEvent?: IssueEventKind;
  deliveryId: string;
  requestedBy: string;
  claimedAt: string;
  updatedAt: string;
  session?: string;
  submissionId?: string;
  reason?: string;
};

/** Writes the delivery's marker in `state`, over what it already says. */
export type Mark = (state: MarkerState, extra?: Partial<HandledMarker>) => Promise<void>;

export type StartRunDeps = {
  log: Logger;
  markHandled(marker: HandledMarker): Promise<void>;
  /** The bot's token for `repo` (TOKEN_PERMISSIONS): a maintainer's run's, and what the webhook app posts for it with. */
  mintToken(repo: RepoRef, installationId?: number): Promise<RepoToken>;
  /**
   * A token for `repo` that may only write issues and read metadata
   * (REPORT_TOKEN_PERMISSIONS): to report a failed mint, and everything
   * posted for a reporter's delivery; never a run's.
   */
  mintReportToken(repo: RepoRef, installationId?: number): Promise<RepoToken>;
  /** A read-only token for `repo` (READ_ONLY_TOKEN_PERMISSIONS): a reporter run's only token (the one the config read minted, if it did). */
  mintReadToken(repo: RepoRef, installationId?: number): Promise<RepoToken>;
  /** True for the first failed-mint report on `repo` in this clock hour (UTC), atomically; false for every later one. */
  claimSetupReport(repo: RepoRef): Promise<boolean>;
  /** True for the issue's first reporter run on `at`'s UTC day, atomically, held by `holder`; false for every later one (until given back). */
  claimReporterRun(repo: RepoRef, issueNumber: number, at: number, holder: string): Promise<boolean>;
  /** Gives that day's claim back if `holder` still holds it, atomically: true if it did. */
  releaseReporterRun(repo: RepoRef, issueNumber: number, at: number, holder: string): Promise<boolean>;
  /** True for the issue's first reporter refusal comment on `at`'s UTC day, atomically. */
  claimReporterNotice(repo: RepoRef, issueNumber: number, at: number): Promise<boolean>;
  /** True for the issue's first "reporter runs busy" comment on `at`'s UTC day, atomically. */
  claimReporterBusyNotice(repo: RepoRef, issueNumber: number, at: number): Promise<boolean>;
  /** True for the repository's first REPORTER_DAILY_BUDGET notice on `at`'s UTC day, atomically. */
  claimReporterBudgetNotice(repo: RepoRef, at: number): Promise<boolean>;
  /** True for the first monthly-budget notice on the issue in `at`'s calendar month (UTC), atomically; false for every later one. */
  claimBudgetNotice(repo: RepoRef, issueNumber: number, at: number): Promise<boolean>;
  github(token: string): InstallationClient;
  /** The App's bot as GitHub names it (cached); throws with a public message, never a default. */
  identity(token: string): Promise<BotIdentity>;
  dispatch(input: DispatchInput): Promise<DispatchResult>;
  waitUntil(promise: Promise<unknown>): void;
  now(): number;
};
