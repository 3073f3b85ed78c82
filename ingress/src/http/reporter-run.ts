/**
 * A reporter run's own steps after the answer (start-run.ts calls them):
 * the issue's one reporter run of the UTC day, then the run's read-only
 * token, minted only once the day is taken; and the agent's "reporter runs
 * busy" refusal, which gives the day back (the author may ask again once
 * the repository's other reproductions end) and says so once per issue per
 * day. Everything the webhook app posts here uses the delivery's report
 * token (`github`); the run's token never writes. Nothing here throws.
 */
import type { InstallationClient, RepoToken } from "../github/app-client";
import { REPORTER_BUSY_CODE } from "../../../src/shared/reporter-budget";
import { reporterBusyBody } from "../reporter-tier";
import { claimName } from "../trigger";
import { claimedFirst, notStarted, refuseReporter, reportMintFailure } from "./not-started";
import { errorMessage, settle, whereOf } from "./run-fields";
import type { AcceptedComment, Mark, StartRunDeps } from "./accepted";

/** What holds the issue's day: the trigger's own claim name, which only this delivery got (webhook.ts). */
const holderOf = (comment: AcceptedComment) => claimName(comment.trigger);

/**
 * The issue's reporter run of the day, then its read-only token: the token
 * and the day's time, or undefined once the refusal or the failed mint was
 * reported and marked. A mint that fails gives the day back.
 */
export async function takeReporterRun(
  comment: AcceptedComment,
  github: InstallationClient,
  deps: StartRunDeps,
  mark: Mark
): Promise<{ token: RepoToken; at: number } | undefined> {
  const { log } = deps;
  const where = whereOf(comment);
  const at = deps.now();
  if (!(await claimedFirst(() => deps.claimReporterRun(comment.repo, comment.issueNumber, at, holderOf(comment)), comment, log))) {
    await refuseReporter(comment, "reporter_daily_limit", github, deps, mark);
    return undefined;
  }
  let token: RepoToken;
  try {
    token = await deps.mintReadToken(comment.repo, comment.installationId);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    log("token:failed", { ...where, access: "read", code, error: errorMessage(error) });
    await giveBackReporterRun(comment, at, deps);
    await reportMintFailure(comment, code, deps, github);
    await settle(mark("failed", { reason: "token" }), log, where);
    return undefined;
  }
  log.addSecret(token.token);
  log("token:minted", { ...where, access: "read", expiresAt: token.expiresAt });
  return { token, at };
}

/**
 * The agent refused the reporter run: the repository has its most reporter
 * runs going. 😕, the day given back, and one comment per issue per day
 * asking the author to try again later. `at` is when the day was claimed.
 */
export async function refuseReporterBusy(comment: AcceptedComment, at: number | undefined, github: InstallationClient, deps: StartRunDeps, mark: Mark): Promise<void> {
  const day = at ?? deps.now();
  if (at !== undefined) await giveBackReporterRun(comment, at, deps);
  const first = await claimedFirst(() => deps.claimReporterBusyNotice(comment.repo, comment.issueNumber, day), comment, deps.log);
  await notStarted(comment, github, first ? reporterBusyBody(comment.requestedBy.login) : undefined, deps, () => mark("refused", { reason: REPORTER_BUSY_CODE }));
}

/** The issue's reporter run of `at`'s day, given back if this delivery still holds it; logged either way, never thrown. */
async function giveBackReporterRun(comment: AcceptedComment, at: number, deps: StartRunDeps): Promise<void> {
  const where = whereOf(comment);
  try {
    const released = await deps.releaseReporterRun(comment.repo, comment.issueNumber, at, holderOf(comment));
    deps.log("reporter:released", { ...where, released });
  } catch (error) {
    deps.log("report:claim-failed", { ...where, release: true, error: errorMessage(error) });
  }
}
