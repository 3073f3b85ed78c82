/**
 * What a WorkspaceAgent answers when asked which turn and container it holds
 * (`holding()`: the WarmPool before reclaiming, tests). A turn whose
 * submission the ThinkAgent reports ended is ended here first: its
 * `endTurn` never arrived, and nothing else would give its container back.
 * An agent that cannot say counts as not ended. Pure: the asking is handed
 * in. docs/containers.md, "No container without an owner".
 */
import type { Logger } from "../run/log";
import { TERMINAL_STATUSES } from "../run/submission";
import type { SubmissionStatusValue } from "../shared/dispatch";

export type Held = { submissionId?: string; sandboxId?: string };

export type TurnHoldingDeps = {
  /** What the turn's containers record (turn-container.ts `holding`). */
  holding: () => Promise<Held>;
  /** The ThinkAgent's status of a submission; null when it has none. */
  status: (submissionId: string) => Promise<{ status: SubmissionStatusValue } | null>;
  /** End the held turn here (`WorkspaceAgent.endTurn`). */
  end: (submissionId: string) => Promise<unknown>;
  log: Logger;
};

export class TurnHolding {
  readonly #deps: TurnHoldingDeps;

  constructor(deps: TurnHoldingDeps) {
    this.#deps = deps;
  }

  async current(): Promise<Held> {
    const held = await this.#deps.holding();
    if (held.submissionId && (await this.#ended(held.submissionId))) {
      this.#deps.log("turn:ended-elsewhere", { submissionId: held.submissionId, sandboxId: held.sandboxId });
      await this.#deps.end(held.submissionId);
      return await this.#deps.holding();
    }
    return held;
  }

  async #ended(submissionId: string): Promise<boolean> {
    try {
      const status = await this.#deps.status(submissionId);
      return status !== null && TERMINAL_STATUSES.has(status.status);
    } catch (error) {
      this.#deps.log("turn:status-unknown", { submissionId, error: error instanceof Error ? error.message : String(error) });
      return false;
    }
  }
}
