/**
 * Whether a delivery is recent enough to start a run. GitHub's signature
 * (X-Hub-Signature-256) covers the body but carries no timestamp, so a
 * signed delivery stays valid forever: anyone who kept one (a log, a proxy,
 * GitHub's "Redeliver" button) could send it again. What stops a second run
 * is the comment's claim (CommentClaim and the KV marker); what stops one
 * once the claim is forgotten is this window: a delivery is accepted only
 * within DELIVERY_WINDOW_MS of the time its comment was made, as the signed
 * payload says (`comment.created_at` for an issue or review comment,
 * `review.submitted_at` for a review). The claim and the marker are kept far
 * longer than the window plus the clock skew allowed here (a test holds
 * them to it), so inside the window a repeat always finds the claim, and
 * outside it nothing is accepted at all.
 *
 * 24 hours: GitHub sends a delivery within seconds of the comment, and
 * minutes late in an incident; an operator who fixes a failed delivery
 * (a 502 `permission_check_failed`, a 500 `config_error`) can redeliver it
 * from the App's settings the same day. A manual redelivery older than that
 * (GitHub offers three days) is ignored as stale: the maintainer comments
 * again. A time up to MAX_CLOCK_SKEW_MS ahead of this Worker's clock is
 * GitHub's clock being ahead, not a delivery from the future; a missing or
 * unreadable time cannot be placed in the window and is refused (fail
 * closed).
 *
 * Pure: the clock is a parameter.
 */

export const DELIVERY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

export type Freshness =
  | { fresh: true }
  /** `ageSeconds`: how long before `now` the comment was made (negative: after), or null when its time is unknown. */
  | { fresh: false; ageSeconds: number | null };

/** `createdAt`: the payload's ISO 8601 time of the comment or review (null when GitHub sent none). */
export function checkFreshness(createdAt: string | null, now: number): Freshness {
  const at = createdAt === null ? Number.NaN : Date.parse(createdAt);
  if (Number.isNaN(at)) return { fresh: false, ageSeconds: null };
  const ageMs = now - at;
  if (ageMs <= DELIVERY_WINDOW_MS && ageMs >= -MAX_CLOCK_SKEW_MS) return { fresh: true };
  return { fresh: false, ageSeconds: Math.round(ageMs / 1000) };
}
