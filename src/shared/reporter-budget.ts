/**
 * The reporter tier's daily money budget (`REPORTER_DAILY_BUDGET`, per
 * repository): the refusal the agent Worker throws from dispatch when a
 * repository's reporter runs have spent it for the UTC day, and how the
 * webhook app recognises that refusal after it crossed RPC (by its message:
 * RPC keeps an error's message, not its own properties). The agent Worker
 * (src/service.ts) decides; the webhook app only shows it on the issue,
 * once per repository per day. Pure; docs/security.md.
 */
import { crossedMessage } from "./crossed-message";

export const REPORTER_BUDGET_CODE = "reporter_budget";

/** The first words of every refusal's message: what a caller on the other side of RPC tests for. */
export const REPORTER_BUDGET_REFUSAL = "reporter daily budget reached:";

/** A repository's reporter runs spent REPORTER_DAILY_BUDGET today (UTC): the reporter-tier dispatch starts nothing. */
export class ReporterBudgetError extends Error {
  override readonly name = "ReporterBudgetError";
  readonly code = REPORTER_BUDGET_CODE;
  /** `detail` follows the fixed prefix, e.g. "$5.00 of REPORTER_DAILY_BUDGET $5.00 spent on 2026-12-02 (UTC) in owner/repo". */
  constructor(detail: string) {
    super(`${REPORTER_BUDGET_REFUSAL} ${detail}`);
  }
}

/** Is `error` the reporter budget's refusal? By its message, so one that crossed RPC counts too. */
export function isReporterBudgetRefusal(error: unknown): boolean {
  return crossedMessage(error).startsWith(REPORTER_BUDGET_REFUSAL);
}

/** `2026-12-02`: the UTC day `at` falls in; reporter limits count per such day. */
export function dayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}
