/**
 * The outcomes a run reports with `report_result`, shared by the agent
 * (src/run/ending.ts), the command center's run records and the eval
 * harness, which compares them with what a case expects. Pure.
 */
export const RESULT_OUTCOMES = [
  "reproduced",
  "not-reproduced",
  "needs-info",
  "pr-opened",
  "pr-updated",
  "pr-unproven",
  "no-pr",
  "review-addressed",
  "patch-suggested"
] as const;
export type ResultOutcome = (typeof RESULT_OUTCOMES)[number];

/** Each outcome in words: the closing comment's heading (after its emoji) and the thread page's run line. */
export const OUTCOME_LABELS: Record<ResultOutcome, string> = {
  reproduced: "Reproduced",
  "not-reproduced": "Not reproduced",
  "needs-info": "Needs more information",
  "pr-opened": "Pull request opened",
  "pr-updated": "Pull request updated",
  "pr-unproven": "Pull request not proven",
  "no-pr": "No pull request",
  "review-addressed": "Review addressed",
  "patch-suggested": "Patch suggested"
};

export function isResultOutcome(value: unknown): value is ResultOutcome {
  return typeof value === "string" && (RESULT_OUTCOMES as readonly string[]).includes(value);
}
