/**
 * The outcomes a run reports with `report_result`, shared by the agent
 * (src/run/ending.ts), the command center's run records and the eval
 * harness, which compares them with what a case expects; and the label an
 * issue gets for its run's outcome (docs/reporting.md, "The outcome's
 * label"). Pure.
 */
export const RESULT_OUTCOMES = [
  "reproduced",
  "not-reproduced",
  "not-a-bug",
  "answered",
  "fixed-upstream",
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
  "not-a-bug": "Not a bug",
  answered: "Answered",
  "fixed-upstream": "Fixed upstream",
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

/** What every outcome label begins with: an issue's earlier one is found, and replaced, by it. */
export const OUTCOME_LABEL_PREFIX = "agent-think:";

/** The label an issue gets when a run's closing comment reports `outcome`: `agent-think:reproduced`. */
export function outcomeLabel(outcome: ResultOutcome): string {
  return `${OUTCOME_LABEL_PREFIX}${outcome}`;
}
