/**
 * What the webhook app's background work (start-run.ts, ci-event.ts) says
 * of a claimed trigger in its log lines, markers and hidden comment
 * markers, and how it waits for a marker's write: small shared helpers.
 * Pure apart from `settle`'s await.
 */
import type { DispatchInput } from "../../../src/shared/dispatch";
import { describeGitHubError, type RepoRef } from "../github/app-client";
import type { Logger } from "../log";
import { claimName, idField, type TriggerRef } from "../trigger";
import type { AcceptedComment } from "./accepted";

/** Awaits a marker's write; a failed one is logged (`marker:failed`), never thrown. */
export async function settle(marking: Promise<void>, log: Logger, where: Record<string, unknown>): Promise<void> {
  try {
    await marking;
  } catch (error) {
    log("marker:failed", { ...where, error: errorMessage(error) });
  }
}

export const fullName = (repo: RepoRef) => `${repo.owner}/${repo.name}`;

/** Which delivery and comment a log line is about. */
export const whereOf = (comment: AcceptedComment) => ({
  deliveryId: comment.deliveryId,
  repo: fullName(comment.repo),
  issueNumber: comment.issueNumber,
  ...idField(comment.trigger)
});

/** The trigger's id as log lines and markers name it: `commentId`, `reviewCommentId` or `reviewId`. */
export const triggerFields = idField;

/** How the hidden marker in a posted comment names its trigger: `comment=<id>`, `review-comment=<id>` or `review=<id>`. */
export const htmlMarkerId = (ref: TriggerRef) => claimName(ref).replace(":", "=");

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
