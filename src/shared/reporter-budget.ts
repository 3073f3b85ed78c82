/**
 * The reporter tier's two refusals from dispatch: the daily money budget
 * (`REPORTER_DAILY_BUDGET` per repository, with the runs going reserved at
 * their cap) and too many reporter runs going at once (`REPORTER_MAX_RUNNING`
 * per repository, one per issue), and how the webhook app recognises each
 * after it crossed RPC (by its message: RPC keeps an error's message, not
 * its own properties). The command center decides, src/service.ts throws;
 * the webhook app only shows it on the issue. Pure; docs/costs.md.
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

export const REPORTER_BUSY_CODE = "reporter_busy";

/** The first words of every busy refusal's message. */
export const REPORTER_BUSY_REFUSAL = "reporter runs busy:";

/** The repository already has REPORTER_MAX_RUNNING reporter runs going, or the issue its own: the reporter-tier dispatch starts nothing. */
export class ReporterBusyError extends Error {
  override readonly name = "ReporterBusyError";
  readonly code = REPORTER_BUSY_CODE;
  /** `detail` follows the fixed prefix, e.g. "2 reporter runs are going in owner/repo, as many as REPORTER_MAX_RUNNING 2 allows, …". */
  constructor(detail: string) {
    super(`${REPORTER_BUSY_REFUSAL} ${detail}`);
  }
}

/** Is `error` the busy refusal? By its message, so one that crossed RPC counts too. */
export function isReporterBusyRefusal(error: unknown): boolean {
  return crossedMessage(error).startsWith(REPORTER_BUSY_REFUSAL);
}

/** `2026-12-02`: the UTC day `at` falls in; reporter limits count per such day. */
export function dayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}
