/**
 * The refusal a CI follow-up gets when its pull request's thread has a run
 * going on: the agent Worker's dispatch (src/service.ts) throws it before
 * anything is written, and the webhook app, which sees only the message
 * after RPC, recognises it by its first words and marks the follow-up
 * `refused`, reason `run_in_progress`, posting nothing (docs/ingress.md,
 * "CI follow-ups"). Pure.
 */
import { crossedMessage } from "./crossed-message";

/** The first words of the refusal's message: what a caller on the other side of RPC tests for. */
export const CI_REFUSAL = "ci follow-up refused:";

export class CiRunInProgressError extends Error {
  override readonly name = "CiRunInProgressError";
  readonly code = "run_in_progress";
  constructor(readonly session: string) {
    super(`${CI_REFUSAL} a run is going on in ${session}; a CI follow-up never starts beside one, nor queues behind it`);
  }
}

/**
 * Is `error` a CI follow-up's refusal? By its message, so one that crossed
 * RPC counts too: a service binding may hand the message on with the
 * error's class name before it (`CiRunInProgressError: ci follow-up
 * refused: …`, as a Worker under `wrangler dev` does; the e2e test sees it).
 */
export function isCiRefusal(error: unknown): boolean {
  return crossedMessage(error).startsWith(CI_REFUSAL);
}

