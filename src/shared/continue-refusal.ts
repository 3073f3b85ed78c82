/**
 * The refusal a `continue` mention gets when its issue has no failed or stale run to continue
 * (a new thread, a run still going, a last run done or cancelled). Thrown by the agent Worker's
 * dispatch (src/service.ts) before anything is written, and recognised by the webhook app by its
 * message, since RPC keeps an error's message and not its properties. The words after the prefix
 * name no secret and may be shown on the issue. Pure; docs/contracts.md, "Continue".
 */

import { crossedMessage } from "./crossed-message";

export const CONTINUE_REFUSAL_REASONS = ["no_run", "running", "done", "cancelled"] as const;
export type ContinueRefusalReason = (typeof CONTINUE_REFUSAL_REASONS)[number];

/** The first words of every refusal's message: what a caller on the other side of RPC tests for. */
export const CONTINUE_REFUSAL = "nothing to continue:";

const WHY: Record<ContinueRefusalReason, string> = {
  no_run: "agent-think has no run on this issue yet. Mention it with an instruction to start one.",
  running: "the run on this issue is still going. It can be continued once it fails or goes quiet; `stop` ends it.",
  done: "the last run on this issue finished. Mention agent-think with an instruction to start a new run.",
  cancelled: "the last run on this issue was stopped, which is not a failure. Mention agent-think with an instruction to start a new run."
};

/** A `continue` found nothing to continue: nothing was claimed, submitted or written. */
export class NothingToContinueError extends Error {
  override readonly name = "NothingToContinueError";
  readonly code = "nothing_to_continue";
  constructor(readonly reason: ContinueRefusalReason) {
    super(`${CONTINUE_REFUSAL} ${WHY[reason]}`);
  }
}

/** Is `error` a continue's refusal? By its message, so one that crossed RPC counts too. */
export function isContinueRefusal(error: unknown): boolean {
  return refusalMessage(error).startsWith(CONTINUE_REFUSAL);
}

/** Why, in words for the issue ("the run on this issue is still going. ..."); null when `error` is no such refusal. */
export function continueRefusalText(error: unknown): string | null {
  const message = refusalMessage(error);
  return message.startsWith(CONTINUE_REFUSAL) ? message.slice(CONTINUE_REFUSAL.length).trim() : null;
}

/** The message without a leading `NothingToContinueError: `, which a crossing of RPC may add (src/shared/ci-refusal.ts). */
function refusalMessage(error: unknown): string {
  return crossedMessage(error);
}
