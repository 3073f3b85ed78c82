/**
 * The refusals a CI follow-up gets when its pull request's thread has a run
 * going on, or its repository is not in CI_FIX_REPOS: the agent Worker's
 * dispatch (src/service.ts) throws them before anything is written, and
 * the webhook app, which sees only the message after RPC, recognises them
 * by their first words and marks the follow-up `refused`, posting nothing
 * (docs/ingress.md, "CI follow-ups"). Pure.
 */
import { crossedMessage } from "./crossed-message";

/** The first words of the refusal's message: what a caller on the other side of RPC tests for. */
export const CI_REFUSAL = "ci follow-up refused:";
const NOT_ACCEPTED = " is not in CI_FIX_REPOS";

export class CiRunInProgressError extends Error {
  override readonly name = "CiRunInProgressError";
  readonly code = "run_in_progress";
  constructor(readonly session: string) {
    super(`${CI_REFUSAL} a run is going on in ${session}; a CI follow-up never starts beside one, nor queues behind it`);
  }
}

/** The marker reason of a CI refusal, by its words (RPC keeps only the message). */
export type CiRefusalCode = "run_in_progress" | "ci_fix_not_accepted";

/** A CI follow-up on a repository CI_FIX_REPOS does not accept (src/shared/ci-fix-repos.ts): refused the same way, posting nothing. */
export class CiFixNotAcceptedError extends Error {
  override readonly name = "CiFixNotAcceptedError";
  readonly code = "ci_fix_not_accepted";
  constructor(readonly repo: string) {
    super(`${CI_REFUSAL} ${repo}${NOT_ACCEPTED}: the operator has not accepted CI follow-ups there, whose pushes run the repository's CI with its secrets`);
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

/** Which CI refusal `error` is (call it once `isCiRefusal` said it is one). */
export function ciRefusalCode(error: unknown): CiRefusalCode {
  return crossedMessage(error).includes(NOT_ACCEPTED) ? "ci_fix_not_accepted" : "run_in_progress";
}
