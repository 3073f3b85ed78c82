/**
 * How a run ended, as its issue and the command center are told: the
 * structured result the skills record with `report_result`, and the
 * classification of a terminal submission into a result, a plain finish, a
 * failure, an interruption, a cancel or a spent budget. Pure; the agent
 * gathers the facts, src/report/notices.ts writes the words.
 */
import { z } from "zod";
import type { TranscriptMessage } from "../shared/dispatch";

export const RESULT_OUTCOMES = ["reproduced", "not-reproduced", "needs-info", "pr-opened", "no-pr"] as const;

/** The `report_result` tool's input: the skill's structured result. */
export const runResultSchema = z.object({
  outcome: z.enum(RESULT_OUTCOMES).describe("How the run ended."),
  summary: z.string().min(1).max(4_000).describe("One to three sentences a maintainer reads first."),
  steps: z.array(z.string().min(1).max(1_000)).max(30).optional().describe("Steps to reproduce, or what was done."),
  reproductionUrl: z.url().optional().describe("The deployed reproduction page."),
  pullRequestUrl: z.url().optional().describe("The pull request that was opened."),
  changes: z.array(z.string().min(1).max(1_000)).max(30).optional().describe("What the pull request changes."),
  verification: z.string().min(1).max(2_000).optional().describe("How the result was verified.")
});
export type RunResult = z.infer<typeof runResultSchema>;

/** How a run ended, as far as the issue is told. */
export type RunEnding =
  | { kind: "result"; result: RunResult }
  | { kind: "finished"; text: string; reproductionUrl?: string }
  | { kind: "failed"; error: string }
  | { kind: "interrupted" }
  | { kind: "cancelled"; reason?: string }
  | { kind: "budget"; limit: BudgetLimit };

export type BudgetLimit = { kind: "tokens"; used: number; budget: number } | { kind: "steps"; steps: number };

/** What the agent knows when a submission reaches a terminal status. */
export type EndingFacts = {
  status: "completed" | "error" | "aborted" | "skipped";
  error?: string;
  /** The submission's error is the recovery-exhausted message. */
  interrupted: boolean;
  result?: RunResult;
  finalText: string;
  budgetHit?: { used: number; budget: number };
  steps: number;
  lastFinishReason?: string;
  maxSteps: number;
  cancelReason?: string;
  /** The page the run published (publish_reproduction): the address the issue gets, whatever the model wrote. */
  reproductionUrl?: string;
};

/** How a run ended, for its closing message. */
export function describeEnding(facts: EndingFacts): RunEnding {
  switch (facts.status) {
    case "completed":
      if (facts.budgetHit) return { kind: "budget", limit: { kind: "tokens", ...facts.budgetHit } };
      // The loop stopped at the cap while the model still wanted tools.
      if (facts.steps >= facts.maxSteps && facts.lastFinishReason === "tool-calls") {
        return { kind: "budget", limit: { kind: "steps", steps: facts.maxSteps } };
      }
      if (facts.result) {
        return { kind: "result", result: facts.reproductionUrl ? { ...facts.result, reproductionUrl: facts.reproductionUrl } : facts.result };
      }
      return { kind: "finished", text: facts.finalText, ...(facts.reproductionUrl ? { reproductionUrl: facts.reproductionUrl } : {}) };
    case "error":
      return facts.interrupted ? { kind: "interrupted" } : { kind: "failed", error: facts.error ?? "the run failed without an error message" };
    case "aborted":
    case "skipped":
      return { kind: "cancelled", ...(facts.cancelReason ? { reason: facts.cancelReason } : {}) };
  }
}

/** The one-line status the command center records for an ending that is not a plain success. */
export function endingError(ending: RunEnding): string | undefined {
  switch (ending.kind) {
    case "result":
    case "finished":
      return undefined;
    case "failed":
      return ending.error;
    case "interrupted":
      return "interrupted: recovery exhausted";
    case "cancelled":
      return `cancelled${ending.reason ? `: ${ending.reason}` : ""}`;
    case "budget":
      return ending.limit.kind === "tokens"
        ? `budget exhausted: ${ending.limit.used} of ${ending.limit.budget} tokens`
        : `budget exhausted: step cap of ${ending.limit.steps}`;
  }
}

/** The text of the assistant message a turn persisted (or the last assistant message), for a run that ended without a result. */
export function finalAssistantText(messages: readonly TranscriptMessage[], messageId: string | undefined): string {
  const message = messages.find((entry) => entry.id === messageId) ?? messages.findLast((entry) => entry.role === "assistant");
  if (!message || message.role !== "assistant") return "";
  return message.parts
    .filter((part): part is { type: "text"; text: string } => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n")
    .trim();
}
