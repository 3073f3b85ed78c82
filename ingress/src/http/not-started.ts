/**
 * What a claimed trigger that starts no run says on GitHub: 😕 (GitHub has
 * no ❌ reaction) and, where one is due, one short comment, then its marker
 * says why. Each comment is posted once per period (a failed mint: per
 * repository and hour, with an issues-only token; the monthly budget: per
 * issue and month; the reporter tier: per issue and UTC day; a stop that
 * found nothing) by an atomic claim (`claimedFirst`). Nothing here throws;
 * docs/ingress.md has the words and when each is posted.
 */
import { monthOf, nextMonthStart } from "../../../src/shared/monthly-budget";
import type { InstallationClient, RepoToken } from "../github/app-client";
import type { Logger } from "../log";
import { reporterRefusalBody, type ReporterRefusalReason } from "../reporter-tier";
import { idField, isIssueEvent } from "../trigger";
import { errorMessage, fullName, gitHubFailure, htmlMarkerId, settle, whereOf } from "./run-fields";
import type { AcceptedComment, Mark, StartRunDeps } from "./accepted";

/** A stop found nothing running: one short comment saying so (the 👀 is already on the comment). Never throws. */
export async function tellNothingToStop(comment: AcceptedComment, github: InstallationClient, log: Logger): Promise<void> {
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
export async function reportBudgetRefusal(
  comment: AcceptedComment,
  github: InstallationClient,
  deps: StartRunDeps,
  mark: Mark
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
export async function refuseReporter(
  comment: AcceptedComment,
  reason: ReporterRefusalReason,
  github: InstallationClient,
  deps: StartRunDeps,
  mark: Mark
): Promise<void> {
  deps.log("delivery:refused", { ...whereOf(comment), reason });
  const first = await claimedFirst(() => deps.claimReporterNotice(comment.repo, comment.issueNumber, deps.now()), comment, deps.log);
  await notStarted(comment, github, first ? reporterRefusalBody(comment.requestedBy.login) : undefined, deps, () => mark("refused", { reason }));
}

/** The run did not start: say so on the issue (no body: 😕 only), then mark the comment with why. Nothing here throws. */
export async function notStarted(
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
 * what to check. A reporter's delivery already holds that token (`reporter`,
 * its client): its run's read-only mint failed. With credentials GitHub
 * refuses (code app_auth or config) no token can be had: the log, the marker
 * and the agent's health line are the report. Never throws.
 */
export async function reportMintFailure(comment: AcceptedComment, code: unknown, deps: StartRunDeps, reporter?: InstallationClient): Promise<void> {
  const { log } = deps;
  const where = whereOf(comment);
  const body = mintFailureBody(comment, code);
  if (body === undefined && reporter === undefined) {
    const why = code === "app_auth" || code === "config" ? "the App's credentials were refused, so nothing can be posted as the App" : "no narrower token would help";
    log("report:impossible", { ...where, code, why });
    return;
  }
  let github = reporter;
  if (github === undefined) {
    let token: RepoToken;
    try {
      token = await deps.mintReportToken(comment.repo, comment.installationId);
    } catch (error) {
      log("report:impossible", { ...where, code, why: "no token that may write issues either", error: errorMessage(error) });
      return;
    }
    log.addSecret(token.token);
    github = deps.github(token.token);
  }
  const first = body !== undefined && (await claimedFirst(() => deps.claimSetupReport(comment.repo), comment, log));
  await reportNotStarted(comment, github, first ? body : undefined, log);
}

/**
 * Whether this report is the first of its period (`claim`, atomic). A claim
 * that cannot be asked counts as not first: unsure whether the issue was
 * told, only the reaction, rather than a comment per mention.
 */
export async function claimedFirst(claim: () => Promise<boolean>, comment: AcceptedComment, log: Logger): Promise<boolean> {
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
export async function react(github: InstallationClient, comment: AcceptedComment, content: "eyes" | "confused", log: Logger): Promise<void> {
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
