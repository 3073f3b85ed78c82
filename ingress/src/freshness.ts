/**
 * Whether a delivery is recent enough to start a run: within
 * DELIVERY_WINDOW_MS of its comment's own time (`comment.created_at`, or a
 * review's `submitted_at`), since GitHub's signature carries no timestamp.
 * A missing or unreadable time is refused. Why 24 hours, and how the claim
 * outlives the window: docs/ingress.md ("Old deliveries"). Pure.
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
