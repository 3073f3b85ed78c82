/**
 * The faults a test asks the GitHub stand-in for, queued until matching
 * calls take them: GitHub's secondary rate limit (403 with `Retry-After`).
 * Expired and revoked tokens are the App's (github-standin-app.ts).
 */

export type RateLimitFault = {
  /** How many matching calls get it (1). */
  times?: number;
  /** The `Retry-After` header, in seconds (60). */
  retryAfterSeconds?: number;
  /** Only calls with this method (any). */
  method?: string;
  /** Only calls whose path equals this, or matches this pattern (any). */
  path?: string | RegExp;
};

const DEFAULT_RETRY_AFTER_SECONDS = 60;
export const SECONDARY_RATE_LIMIT_MESSAGE =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID standin.";

type PendingFault = Required<Pick<RateLimitFault, "times" | "retryAfterSeconds">> & RateLimitFault;

export class RateLimitFaults {
  #pending: PendingFault[] = [];

  add(fault: RateLimitFault = {}): void {
    this.#pending.push({ ...fault, times: fault.times ?? 1, retryAfterSeconds: fault.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS });
  }

  /** The first pending fault matching the call, one of its times used up; undefined when none matches. */
  take(method: string, path: string): PendingFault | undefined {
    const fault = this.#pending.find(
      (candidate) =>
        (candidate.method === undefined || candidate.method.toUpperCase() === method.toUpperCase()) &&
        (candidate.path === undefined || (typeof candidate.path === "string" ? candidate.path === path : candidate.path.test(path)))
    );
    if (!fault) return undefined;
    fault.times -= 1;
    if (fault.times <= 0) this.#pending = this.#pending.filter((candidate) => candidate !== fault);
    return fault;
  }

  clear(): void {
    this.#pending = [];
  }
}
