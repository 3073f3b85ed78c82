/**
 * The turn a ThinkAgent is running, kept durably (`agent-think:active-turn`)
 * so a turn Think recovers after an eviction keeps its submission and its
 * container. `begin` tells the WorkspaceAgent; `end` gives the turn's
 * container back, then forgets the turn if it is still the current one (a
 * later turn may have begun). Neither throws: a workspace that cannot be
 * told is logged and catches up on its own (docs/containers.md, "A turn's
 * container always goes back"). Pure apart from its narrow dependencies.
 */
import { describeError } from "../pool/errors";
import type { TurnRef } from "../pool/turn-container";

export type ActiveTurnStorage = {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
};

/** The WorkspaceAgent's side of a turn. */
export type TurnWorkspace = {
  beginTurn(turn: TurnRef): Promise<void>;
  endTurn(turn: TurnRef, outcome: string): Promise<{ released: boolean; pending?: boolean }>;
};

export type ActiveTurnDeps = {
  storage: ActiveTurnStorage;
  workspace(): Promise<TurnWorkspace>;
  /** `turn:begin-failed`, `turn:released`, `turn:release-failed`. */
  log(event: string, fields: Record<string, unknown>): void;
};

export const ACTIVE_TURN_KEY = "agent-think:active-turn";

export class ActiveTurn {
  readonly #deps: ActiveTurnDeps;
  /** undefined: not read from storage yet; null: no turn. */
  #current: TurnRef | null | undefined;

  constructor(deps: ActiveTurnDeps) {
    this.#deps = deps;
  }

  /** The submission whose turn is running, or null. */
  async current(): Promise<TurnRef | null> {
    this.#current ??= (await this.#deps.storage.get<TurnRef>(ACTIVE_TURN_KEY)) ?? null;
    return this.#current;
  }

  async begin(turn: TurnRef): Promise<void> {
    this.#current = turn;
    await this.#deps.storage.put(ACTIVE_TURN_KEY, turn);
    try {
      await (await this.#deps.workspace()).beginTurn(turn);
    } catch (error) {
      // The workspace names the turn again on its first container command.
      this.#deps.log("turn:begin-failed", { submissionId: turn.submissionId, error: describeError(error) });
    }
  }

  /** Give back what `turn` held, then forget it if it is still the current turn. */
  async end(turn: TurnRef, outcome: string): Promise<void> {
    try {
      const { released } = await (await this.#deps.workspace()).endTurn(turn, outcome);
      this.#deps.log("turn:released", { submissionId: turn.submissionId, outcome, container: released });
    } catch (error) {
      this.#deps.log("turn:release-failed", { submissionId: turn.submissionId, error: describeError(error) });
    }
    if ((await this.current())?.submissionId === turn.submissionId) {
      this.#current = null;
      await this.#deps.storage.delete(ACTIVE_TURN_KEY);
    }
  }
}
