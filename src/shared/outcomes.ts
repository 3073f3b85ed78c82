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
  "no-pr",
  "review-addressed",
  "patch-suggested"
] as const;
export type ResultOutcome = (typeof RESULT_OUTCOMES)[number];
