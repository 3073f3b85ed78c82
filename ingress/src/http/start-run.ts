/**
 * What happens to a comment (or a review comment, a review, or an
 * assignment or a label: trigger.ts) once it is claimed: mark it handled in KV (the
 * record operators read) and answer the webhook with 202. Only then, in the
 * background (`waitUntil`): mint an installation token for its repository
 * only (unless the permission check minted it before the answer), learn
 * the App's own identity (github/app-identity.ts, usually cached), react 👀
 * as the App, and dispatch the run with both (and the digest of the issue's
 * body as the payload had it: issue-body.ts). GitHub
 * waits ten seconds for the answer and never redelivers a late one (a
 * manual redelivery would then be a duplicate), so the answer waits for
 * nothing but the dedup decision: the claim (webhook.ts) and this marker.
 *
 * The marker is written before dispatch, so a failed dispatch is never
 * retried by a redelivery: it is reported instead, with a 😕 (`confused`)
 * reaction (GitHub has no ❌ reaction) and one short comment that says the
 * run did not start and carries no error detail. The marker is updated with
 * the outcome. An instruction longer than the agent accepts is refused the
 * same way, with the limit named, instead of failing inside dispatch. A
 * failed mint is logged (`token:failed`), the marker says `failed`,
 * `reason: token`, and where a token that may write issues can still be
 * had, 😕 and at most one comment an hour per repository say what to check
 * (docs/app-setup.md says when nothing can be posted). An identity GitHub
 * would not give is reported like a failed dispatch (`identity:failed`,
 * marker `reason: identity`): a run is never dispatched without the App's
 * bot. A dispatch refused by MONTHLY_COST_BUDGET gets 😕 and, once per
 * issue per calendar month (`claimBudgetNotice`), a comment saying so
 * (marker `refused`, `reason: monthly_budget`; docs/costs.md). A
 * `continue` the agent refuses, there being no failed run to continue, gets
 * 😕 and a comment with its reason (marker `refused`, `reason:
 * nothing_to_continue`). The reporter tier (reporter-tier.ts): the issue's
 * author refused (marker `refused`, reason `reporters_off`,
 * `not_a_reproduction` or `reporter_daily_limit`) gets 😕 and one polite
 * comment per issue per UTC day; a reporter run is dispatched with `tier:
 * "reporter"` only as the issue's first today (`claimReporterRun`), and one
 * the agent refuses for REPORTER_DAILY_BUDGET gets 😕 and one comment per
 * repository per day (reason `reporter_budget`). An issue event claimed only to be told its repository's config does not parse
 * (`refusal`) gets 😕 and one comment naming the file's errors (marker
 * `refused`, `reason: repo_config_invalid`). An issue event's reactions go
 * on the issue; an unassignment's or a removed label's stop that finds
 * nothing running says nothing.
 */
import {
  isStopInstruction,
  MAX_INSTRUCTION_CHARS,
  type BotIdentity,
  type DispatchInput,
  type DispatchResult,
  type PullRequestRef,
  type RepoVisibility
} from "../../../src/shared/dispatch";
import { isMonthlyBudgetRefusal, monthOf, nextMonthStart } from "../../../src/shared/monthly-budget";
import { continueRefusalText } from "../../../src/shared/continue-refusal";
import { isReporterBudgetRefusal, REPORTER_BUDGET_CODE } from "../../../src/shared/reporter-budget";
import { reporterBudgetBody, reporterRefusalBody, type ReporterRefusalReason } from "../reporter-tier";
import { issueBodySha256 } from "../issue-body";
import { pullRequestSchema } from "../payload";
import { claimName, idField, isIssueEvent, pullRequestRef, type IssueEventKind, type TriggerRef } from "../trigger";
import { describeGitHubError, type InstallationClient, type RepoRef, type RepoToken } from "../github/app-client";
import type { Logger } from "../log";
import { respond } from "./responses";

/**
 * How long `handled:<kind>:<id>` markers (trigger.ts) are kept: far longer
 * than a delivery is accepted (freshness.ts, 24 hours from the comment), so
 * the record outlives every delivery that could still start its run.
 */
export const MARKER_TTL_SECONDS = 30 * 24 * 60 * 60;
export { markerKey } from "../trigger";

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

export type StartRunDeps = {
  log: Logger;
  markHandled(marker: HandledMarker): Promise<void>;
  mintToken(repo: RepoRef, installationId?: number): Promise<RepoToken>;
  /** A token for `repo` that may only write issues and read metadata (REPORT_TOKEN_PERMISSIONS): to report a failed mint, never for a run. */
  mintReportToken(repo: RepoRef, installationId?: number): Promise<RepoToken>;
  /** True for the first failed-mint report on `repo` in this clock hour (UTC), atomically; false for every later one. */
  claimSetupReport(repo: RepoRef): Promise<boolean>;
  /** True for the issue's first reporter run on `at`'s UTC day, atomically; false for every later one. */
  claimReporterRun(repo: RepoRef, issueNumber: number, at: number): Promise<boolean>;
  /** True for the issue's first reporter refusal comment on `at`'s UTC day, atomically. */
  claimReporterNotice(repo: RepoRef, issueNumber: number, at: number): Promise<boolean>;
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

export async function startRun(comment: AcceptedComment, deps: StartRunDeps): Promise<Response> {
  const { log } = deps;
  const where = whereOf(comment);
  const claimedAt = new Date(deps.now()).toISOString();
  const mark = (state: MarkerState, extra: Partial<HandledMarker> = {}) =>
    deps.markHandled({
      state,
      repo: fullName(comment.repo),
      issueNumber: comment.issueNumber,
      ...idField(comment.trigger),
      deliveryId: comment.deliveryId,
      requestedBy: comment.requestedBy.login,
      claimedAt,
      updatedAt: new Date(deps.now()).toISOString(),
      ...extra
    });
  await mark("claimed");

  deps.waitUntil(
    handOver(comment, deps, mark).catch((error: unknown) => log("delivery:error", { ...where, error: errorMessage(error) }))
  );
  log("delivery:accepted", where);
  return respond(202, "accepted");
}

/** After the answer: token, then a refusal, or the App's identity, 👀 and the dispatch; every failure is reported, never thrown. */
async function handOver(
  comment: AcceptedComment,
  deps: StartRunDeps,
  mark: (state: MarkerState, extra?: Partial<HandledMarker>) => Promise<void>
): Promise<void> {
  const { log } = deps;
  const where = whereOf(comment);
  let token: RepoToken;
  try {
    token = await deps.mintToken(comment.repo, comment.installationId);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    log("token:failed", { ...where, code, error: errorMessage(error) });
    await reportMintFailure(comment, code, deps);
    await settle(mark("failed", { reason: "token" }), log, where);
    return;
  }
  log.addSecret(token.token);
  log("token:minted", { ...where, expiresAt: token.expiresAt });
  const github = deps.github(token.token);

  if (comment.refusal) {
    log("delivery:refused", { ...where, reason: comment.refusal.reason });
    const body = `❌ @${comment.requestedBy.login} agent-think did not start a run: ${comment.refusal.body}\n\nNothing is running for ${comment.what}. Fix the file on the default branch, then ${comment.again} to retry.`;
    await notStarted(comment, github, body, deps, () => mark("refused", { reason: comment.refusal!.reason }));
    return;
  }
  if (comment.reporter && !comment.reporter.run) {
    await refuseReporter(comment, comment.reporter.reason, github, deps, mark);
    return;
  }
  if (comment.instruction.length > MAX_INSTRUCTION_CHARS) {
    log("delivery:refused", { ...where, reason: "instruction_too_long", chars: comment.instruction.length });
    const body = `❌ @${comment.requestedBy.login} agent-think did not start a run: the instruction is ${comment.instruction.length.toLocaleString("en-US")} characters and the limit is ${MAX_INSTRUCTION_CHARS.toLocaleString("en-US")}. Put long logs in the issue or a gist and ${comment.again} with a shorter instruction.`;
    await notStarted(comment, github, body, deps, () => mark("refused", { reason: "instruction_too_long" }));
    return;
  }

  let bot: BotIdentity;
  try {
    bot = await deps.identity(token.token);
  } catch (error) {
    log("identity:failed", { ...where, code: (error as { code?: unknown }).code, error: errorMessage(error) });
    const body = `❌ @${comment.requestedBy.login} agent-think could not start a run for ${comment.what}: the GitHub App could not learn its own identity from GitHub. Nothing is running for it. Whoever runs agent-think should check the webhook app's GITHUB_API_URL, GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY (its log says more under \`identity:failed\`); then ${comment.again} to retry.`;
    await notStarted(comment, github, body, deps, () => mark("failed", { reason: "identity" }));
    return;
  }

  // The day's one reporter run for the issue is taken last, so a run that could not even be dispatched spends nothing.
  if (comment.reporter?.run && !(await claimedFirst(() => deps.claimReporterRun(comment.repo, comment.issueNumber, deps.now()), comment, log))) {
    await refuseReporter(comment, "reporter_daily_limit", github, deps, mark);
    return;
  }
  await react(github, comment, "eyes", log);
  await dispatchRun(comment, token, bot, github, deps, mark);
}

async function dispatchRun(
  comment: AcceptedComment,
  token: RepoToken,
  bot: BotIdentity,
  github: InstallationClient,
  deps: StartRunDeps,
  mark: (state: MarkerState, extra?: Partial<HandledMarker>) => Promise<void>
): Promise<void> {
  const { log } = deps;
  const where = whereOf(comment);
  const { avatarUrl } = comment.requestedBy;
  const { repoVisibility } = comment;
  const pullRequest = comment.pullRequest === "fetch" ? await fetchPullRequest(comment, github, log) : comment.pullRequest;
  const bodyDigest = await issueBodySha256(comment.issueBody);
  const input: DispatchInput = {
    repo: fullName(comment.repo),
    issueNumber: comment.issueNumber,
    instruction: comment.instruction,
    installationToken: token.token,
    ...expiryField(token.expiresAt),
    // The agent's 🚀, its links and its once-per-comment dispatch are about issue comments; a review's or a review comment's
    // id is not one (GitHub keeps them apart), so those runs carry theirs in `pullRequest` instead (docs/ingress.md).
    // An assignment or a label has no comment at all: its run is deduplicated by this app's claim alone.
    ...(comment.trigger.kind === "comment" ? { commentId: comment.trigger.id } : {}),
    issueTitle: comment.issueTitle.slice(0, 1024),
    // The body as the mention saw it: the agent flags one edited since (issue-body.ts).
    ...(bodyDigest === undefined ? {} : { issueBodySha256: bodyDigest }),
    requestedBy: { login: comment.requestedBy.login, ...(avatarUrl && /^https?:\/\//.test(avatarUrl) ? { avatarUrl } : {}) },
    ...(repoVisibility ? { repoVisibility } : {}),
    bot,
    ...(pullRequest ? { pullRequest } : {}),
    // The agent holds a reporter run read-only and to REPORTER_DAILY_BUDGET (docs/security.md).
    ...(comment.reporter?.run ? { tier: "reporter" as const } : {})
  };
  let result: DispatchResult;
  try {
    result = await deps.dispatch(input);
  } catch (error) {
    if (isMonthlyBudgetRefusal(error)) {
      log("delivery:refused", { ...where, reason: "monthly_budget", error: errorMessage(error) });
      await reportBudgetRefusal(comment, github, deps, mark);
      return;
    }
    if (isReporterBudgetRefusal(error)) {
      log("delivery:refused", { ...where, reason: REPORTER_BUDGET_CODE, error: errorMessage(error) });
      const first = await claimedFirst(() => deps.claimReporterBudgetNotice(comment.repo, deps.now()), comment, log);
      const body = first ? reporterBudgetBody(comment.requestedBy.login) : undefined;
      await notStarted(comment, github, body, deps, () => mark("refused", { reason: REPORTER_BUDGET_CODE }));
      return;
    }
    // A `continue` with no failed run to continue: the agent's words say why (they name no secret), so the mention is answered.
    const nothingToContinue = continueRefusalText(error);
    if (nothingToContinue !== null) {
      log("delivery:refused", { ...where, reason: "nothing_to_continue", error: errorMessage(error) });
      const body = `@${comment.requestedBy.login} nothing to continue: ${nothingToContinue}`;
      await notStarted(comment, github, body, deps, () => mark("refused", { reason: "nothing_to_continue" }));
      return;
    }
    log("dispatch:failed", { ...where, error: errorMessage(error) });
    const body = `❌ @${comment.requestedBy.login} agent-think could not start a run for ${comment.what}. Nothing is running for it; ${comment.again} to retry.`;
    await notStarted(comment, github, body, deps, () => mark("failed", { reason: "dispatch" }));
    return;
  }
  log("dispatch:done", { ...where, session: result.session, submissionId: result.submissionId, threadUrl: result.threadUrl });
  // A stop with nothing to stop: the agent answers "" (docs/contracts.md), and the issue is told so, once. Not for an
  // unassignment or a removed label: those come as often after a run as during one, and were not asked as a stop.
  const idleStop = isStopInstruction(comment.instruction) && result.submissionId === "";
  if (idleStop && !isIssueEvent(comment.trigger)) await tellNothingToStop(comment, github, log);
  await settle(
    mark("dispatched", { session: result.session, submissionId: result.submissionId, ...(idleStop ? { reason: "nothing_running" } : {}) }),
    log,
    where
  );
}

/** A stop found nothing running: one short comment saying so (the 👀 is already on the comment). Never throws. */
async function tellNothingToStop(comment: AcceptedComment, github: InstallationClient, log: Logger): Promise<void> {
  const marker = `<!-- agent-think-ingress:nothing-to-stop ${htmlMarkerId(comment.trigger)} -->`;
  const body = `@${comment.requestedBy.login} nothing was running on this issue, so there was nothing to stop.`;
  try {
    await github.comment(comment.repo, comment.issueNumber, `${marker}\n${body}`);
    log("stop:nothing-running", { ...whereOf(comment) });
  } catch (error) {
    log("report:failed", { repo: fullName(comment.repo), ...idField(comment.trigger), error: gitHubFailure(error) });
  }
}

/**
 * The agent refused the run because the month's spend reached
 * MONTHLY_COST_BUDGET: 😕 every time, and the comment saying so only for the
 * issue's first refusal this calendar month (UTC), so a busy issue is not
 * answered with the same note per mention. Its words are ours, not the
 * refusal's (which names the figures). Never throws.
 */
async function reportBudgetRefusal(
  comment: AcceptedComment,
  github: InstallationClient,
  deps: StartRunDeps,
  mark: (state: MarkerState, extra?: Partial<HandledMarker>) => Promise<void>
): Promise<void> {
  const at = deps.now();
  const first = await claimedFirst(() => deps.claimBudgetNotice(comment.repo, comment.issueNumber, at), comment, deps.log);
  const resumes = new Date(nextMonthStart(at)).toISOString().slice(0, 10);
  const body = `❌ @${comment.requestedBy.login} agent-think did not start a run: it has spent its cost budget for this month (${monthOf(at)}, UTC). Nothing is running for ${comment.what}. New runs start again on the 1st (${resumes}, 00:00 UTC), or sooner if whoever runs agent-think raises \`MONTHLY_COST_BUDGET\`: ask them. Then ${comment.again} to retry. This note is posted once a month per issue; later mentions this month get only 😕.`;
  await notStarted(comment, github, first ? body : undefined, deps, () => mark("refused", { reason: "monthly_budget" }));
}

/**
 * The issue's author asked for something the reporter tier does not give
 * (not a reproduction, a repository without `reporters: reproduce`, or the
 * issue's second reproduction today): 😕 every time, and the polite
 * refusal only for the issue's first refusal today (UTC). Never throws.
 */
async function refuseReporter(
  comment: AcceptedComment,
  reason: ReporterRefusalReason,
  github: InstallationClient,
  deps: StartRunDeps,
  mark: (state: MarkerState, extra?: Partial<HandledMarker>) => Promise<void>
): Promise<void> {
  deps.log("delivery:refused", { ...whereOf(comment), reason });
  const first = await claimedFirst(() => deps.claimReporterNotice(comment.repo, comment.issueNumber, deps.now()), comment, deps.log);
  await notStarted(comment, github, first ? reporterRefusalBody(comment.requestedBy.login) : undefined, deps, () => mark("refused", { reason }));
}

/** The run did not start: say so on the issue (no body: 😕 only), then mark the comment with why. Nothing here throws. */
async function notStarted(
  comment: AcceptedComment,
  github: InstallationClient,
  body: string | undefined,
  deps: Pick<StartRunDeps, "log">,
  marking: () => Promise<void>
): Promise<void> {
  await reportNotStarted(comment, github, body, deps.log);
  await settle(marking(), deps.log, whereOf(comment));
}

/**
 * What to check when the run's token could not be minted, by the mint's
 * code; undefined where no token can be had to post with (the App's
 * credentials are refused or unusable: docs/app-setup.md).
 */
function mintFailureBody(comment: AcceptedComment, code: unknown): string | undefined {
  const who = `❌ @${comment.requestedBy.login} agent-think could not start a run for ${comment.what}: the GitHub App could not get a token for this repository. Nothing is running for it.`;
  const again = `The webhook app's log says more under \`token:failed\`. Then ${comment.again} to retry. This note is posted at most once an hour per repository.`;
  if (code === "not_installed") {
    return `${who} Whoever runs agent-think should check that the App is installed on \`${fullName(comment.repo)}\` and that the installation has accepted the App's permissions: Issues, Contents and Pull requests (read and write), Metadata (read). ${again}`;
  }
  if (code === "github") return `${who} GitHub failed or did not answer when the webhook app asked for one: whoever runs agent-think should check GitHub's status. ${again}`;
  return undefined;
}

/**
 * A failed mint, on the issue where it can be: a token that may only write
 * issues and read metadata (the report token) puts 😕 on the comment and, once per
 * repository per clock hour (`claimSetupReport`), posts the comment naming
 * what to check. With credentials GitHub refuses (code app_auth or config)
 * nothing can be posted as the App: the log, the marker and the agent's
 * health line are the report. Never throws.
 */
async function reportMintFailure(comment: AcceptedComment, code: unknown, deps: StartRunDeps): Promise<void> {
  const { log } = deps;
  const where = whereOf(comment);
  const body = mintFailureBody(comment, code);
  if (body === undefined) {
    const why = code === "app_auth" || code === "config" ? "the App's credentials were refused, so nothing can be posted as the App" : "no narrower token would help";
    log("report:impossible", { ...where, code, why });
    return;
  }
  let token: RepoToken;
  try {
    token = await deps.mintReportToken(comment.repo, comment.installationId);
  } catch (error) {
    log("report:impossible", { ...where, code, why: "no token that may write issues either", error: errorMessage(error) });
    return;
  }
  log.addSecret(token.token);
  const first = await claimedFirst(() => deps.claimSetupReport(comment.repo), comment, log);
  await reportNotStarted(comment, deps.github(token.token), first ? body : undefined, log);
}

/**
 * Whether this report is the first of its period (`claim`, atomic). A claim
 * that cannot be asked counts as not first: unsure whether the issue was
 * told, only the reaction, rather than a comment per mention.
 */
async function claimedFirst(claim: () => Promise<boolean>, comment: AcceptedComment, log: Logger): Promise<boolean> {
  try {
    return await claim();
  } catch (error) {
    log("report:claim-failed", { ...whereOf(comment), error: errorMessage(error) });
    return false;
  }
}

/** 😕 on the comment and, with a body, one short comment on the issue; each failure is logged, never thrown. */
async function reportNotStarted(comment: AcceptedComment, github: InstallationClient, body: string | undefined, log: Logger): Promise<void> {
  await react(github, comment, "confused", log);
  if (body === undefined) return;
  const marker = `<!-- agent-think-ingress:not-started ${htmlMarkerId(comment.trigger)} -->`;
  try {
    await github.comment(comment.repo, comment.issueNumber, `${marker}\n${body}`);
    log("report:commented", { repo: fullName(comment.repo), issueNumber: comment.issueNumber, ...idField(comment.trigger) });
  } catch (error) {
    log("report:failed", { repo: fullName(comment.repo), ...idField(comment.trigger), error: gitHubFailure(error) });
  }
}

/**
 * On the comment or review comment, or on the issue for an issue event (it
 * has no comment); a review has no reactions on GitHub, so it gets none (the
 * PR conversation's comments say the rest).
 */
async function react(github: InstallationClient, comment: AcceptedComment, content: "eyes" | "confused", log: Logger): Promise<void> {
  const { trigger } = comment;
  if (trigger.kind === "review") return;
  try {
    if (isIssueEvent(trigger)) await github.reactToIssue(comment.repo, comment.issueNumber, content);
    else if (trigger.kind === "review_comment") await github.reactToReviewComment(comment.repo, trigger.id, content);
    else await github.react(comment.repo, trigger.id, content);
  } catch (error) {
    // A missing reaction is cosmetic: the run goes on, and the log says why.
    log("react:failed", { repo: fullName(comment.repo), ...idField(trigger), content, error: gitHubFailure(error) });
  }
}

/**
 * A conversation comment's pull request, head and base included, from
 * GitHub (`GET /repos/{owner}/{repo}/pulls/{number}`). Without GitHub's
 * answer the run still starts, knowing the number only: the agent can ask
 * GitHub itself. Never throws.
 */
async function fetchPullRequest(comment: AcceptedComment, github: InstallationClient, log: Logger): Promise<PullRequestRef> {
  try {
    const pull = pullRequestSchema.parse(await github.pullRequest(comment.repo, comment.issueNumber));
    if (pull.number === comment.issueNumber) return pullRequestRef(pull);
    log("pull:failed", { ...whereOf(comment), error: "GitHub answered with another pull request" });
  } catch (error) {
    log("pull:failed", { ...whereOf(comment), error: error instanceof Error && error.name === "ZodError" ? "GitHub's answer is not a pull request" : gitHubFailure(error) });
  }
  return { number: comment.issueNumber };
}

/** Awaits a marker's write; a failed one is logged (`marker:failed`), never thrown. */
export async function settle(marking: Promise<void>, log: Logger, where: Record<string, unknown>): Promise<void> {
  try {
    await marking;
  } catch (error) {
    log("marker:failed", { ...where, error: errorMessage(error) });
  }
}

const fullName = (repo: RepoRef) => `${repo.owner}/${repo.name}`;

/** Which delivery and comment a log line is about. */
const whereOf = (comment: AcceptedComment) => ({
  deliveryId: comment.deliveryId,
  repo: fullName(comment.repo),
  issueNumber: comment.issueNumber,
  ...idField(comment.trigger)
});

/** The trigger's id as log lines and markers name it: `commentId`, `reviewCommentId` or `reviewId`. */
export const triggerFields = idField;

/** How the hidden marker in a posted comment names its trigger: `comment=<id>`, `review-comment=<id>` or `review=<id>`. */
const htmlMarkerId = (ref: TriggerRef) => claimName(ref).replace(":", "=");

/**
 * GitHub's `expires_at` as the dispatch carries it (canonical ISO 8601, so
 * the agent's schema accepts it); left out when it does not parse, and the
 * agent then counts the token's hour from when it arrived.
 */
export function expiryField(expiresAt: string): Pick<DispatchInput, "installationTokenExpiresAt"> {
  const at = Date.parse(expiresAt);
  return Number.isNaN(at) ? {} : { installationTokenExpiresAt: new Date(at).toISOString() };
}

/** A failed GitHub call for a log line: what GitHub answered and its message. */
export function gitHubFailure(error: unknown): string {
  return `${describeGitHubError(error)}: ${error instanceof Error ? error.message : String(error)}`;
}

/** For log lines only (the logger redacts secrets); never sent to GitHub. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
