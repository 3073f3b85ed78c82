/**
 * A claimed trigger (trigger.ts): its KV marker, then 202; then, in
 * `waitUntil`, its token (for the repository only), the App's identity, 👀
 * and the dispatch, or the report of why none (not-started.ts,
 * reporter-run.ts). A maintainer's delivery uses the bot's one token for
 * all of it; a reporter's posts with one that may only comment and react,
 * and its run gets a read-only one. The marker is written before dispatch,
 * so a failure is reported, never retried by a redelivery; GitHub's ten
 * seconds wait only for the claim and the marker (docs/ingress.md).
 */
import { isStopInstruction, MAX_INSTRUCTION_CHARS, type BotIdentity, type DispatchInput, type DispatchResult, type PullRequestRef } from "../../../src/shared/dispatch";
import { isMonthlyBudgetRefusal } from "../../../src/shared/monthly-budget";
import { continueRefusalText } from "../../../src/shared/continue-refusal";
import { isReporterBudgetRefusal, isReporterBusyRefusal, REPORTER_BUDGET_CODE, REPORTER_BUSY_CODE } from "../../../src/shared/reporter-budget";
import { reporterBudgetBody } from "../reporter-tier";
import { issueBodySha256 } from "../issue-body";
import { pullRequestSchema } from "../payload";
import { idField, isIssueEvent, pullRequestRef } from "../trigger";
import type { InstallationClient, RepoToken } from "../github/app-client";
import type { Logger } from "../log";
import type { AcceptedComment, HandledMarker, Mark, MarkerState, StartRunDeps } from "./accepted";
import { claimedFirst, notStarted, react, refuseReporter, reportBudgetRefusal, reportMintFailure, tellNothingToStop } from "./not-started";
import { refuseReporterBusy, takeReporterRun } from "./reporter-run";
import { respond } from "./responses";
import { errorMessage, expiryField, fullName, gitHubFailure, settle, whereOf } from "./run-fields";

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

/**
 * After the answer: token, then a refusal, or the App's identity, 👀 and the
 * dispatch; every failure is reported, never thrown. `token` is what the
 * webhook app posts with: the bot's for a maintainer (and their run's), one
 * that may only report for a reporter.
 */
async function handOver(
  comment: AcceptedComment,
  deps: StartRunDeps,
  mark: Mark
): Promise<void> {
  const { log } = deps;
  const where = whereOf(comment);
  const access = comment.reporter ? "report" : "write";
  let token: RepoToken;
  try {
    token = await (comment.reporter ? deps.mintReportToken : deps.mintToken)(comment.repo, comment.installationId);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    log("token:failed", { ...where, access, code, error: errorMessage(error) });
    // A reporter's token was already the one that may only report: nothing narrower would be granted.
    if (comment.reporter) log("report:impossible", { ...where, code, why: "no token that may write issues" });
    else await reportMintFailure(comment, code, deps);
    await settle(mark("failed", { reason: "token" }), log, where);
    return;
  }
  log.addSecret(token.token);
  log("token:minted", { ...where, access, expiresAt: token.expiresAt });
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
    // `GET /users/<slug>[bot]` reads a public user: any installation token may ask it.
    bot = await deps.identity(token.token);
  } catch (error) {
    log("identity:failed", { ...where, code: (error as { code?: unknown }).code, error: errorMessage(error) });
    const body = `❌ @${comment.requestedBy.login} agent-think could not start a run for ${comment.what}: the GitHub App could not learn its own identity from GitHub. Nothing is running for it. Whoever runs agent-think should check the webhook app's GITHUB_API_URL, GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY (its log says more under \`identity:failed\`); then ${comment.again} to retry.`;
    await notStarted(comment, github, body, deps, () => mark("failed", { reason: "identity" }));
    return;
  }

  let runToken = token;
  let reporterDay: number | undefined;
  if (comment.reporter?.run) {
    // The day's one reporter run for the issue is taken last, so a run that could not even be dispatched spends nothing;
    // then its read-only token (a failed mint gives the day back).
    const taken = await takeReporterRun(comment, github, deps, mark);
    if (taken === undefined) return;
    ({ token: runToken, at: reporterDay } = taken);
  }
  await react(github, comment, "eyes", log);
  await dispatchRun(comment, runToken, bot, github, deps, mark, reporterDay);
}

/** `reporterDay`: when a reporter run's day was claimed, to give it back if the agent is busy. */
async function dispatchRun(
  comment: AcceptedComment,
  token: RepoToken,
  bot: BotIdentity,
  github: InstallationClient,
  deps: StartRunDeps,
  mark: Mark,
  reporterDay?: number
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
    if (isReporterBusyRefusal(error)) {
      log("delivery:refused", { ...where, reason: REPORTER_BUSY_CODE, error: errorMessage(error) });
      await refuseReporterBusy(comment, reporterDay, github, deps, mark);
      return;
    }
    // The budget is the day's: the issue's claim is kept, as a second ask today would be refused the same way.
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

