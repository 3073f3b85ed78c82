/**
 * Each outcome's heading on the closing comment ("✅ Reproduced"): its emoji
 * and its words (shared/outcomes.ts). The eval harness reads the outcome
 * back from it (scripts/lib/eval/github-target.ts, through closing-text.ts),
 * so a heading is never reworded without it. Pure.
 */
import { OUTCOME_LABELS, RESULT_OUTCOMES, type ResultOutcome } from "../shared/outcomes";

const OUTCOME_EMOJI: Record<ResultOutcome, string> = {
  reproduced: "✅",
  "not-reproduced": "❔",
  "not-a-bug": "📘",
  answered: "💡",
  "fixed-upstream": "⬆️",
  "needs-info": "💬",
  "pr-opened": "🛠️",
  "pr-updated": "🛠️",
  "pr-unproven": "⚠️",
  "no-pr": "❔",
  "review-addressed": "🛠️",
  "patch-suggested": "🩹"
};

/** The closing comment's heading for each outcome ("✅ Reproduced"); the eval harness reads the outcome back from it. */
export const OUTCOME_HEADINGS = Object.fromEntries(
  RESULT_OUTCOMES.map((outcome) => [outcome, `${OUTCOME_EMOJI[outcome]} ${OUTCOME_LABELS[outcome]}`])
) as Record<ResultOutcome, string>;
