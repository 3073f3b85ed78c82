/**
 * Where one bash command of the model goes (`WorkspaceAgent.exec`): the
 * worker shell (shell-commands.ts) or the turn's container
 * (container-commands.ts), or an answer saying why no container can run it
 * (containers off, no engine in local dev, a bad setting). Failures are
 * data: every error becomes an error result, logged. It also parses the
 * output bound (MAX_TOOL_OUTPUT_BYTES) both paths use. Pure.
 */
import { CONTAINER_UNAVAILABLE, type BashInput, type BashResult } from "../run/bash-command";
import type { Logger } from "../run/log";
import type { BotIdentity } from "../shared/dispatch";
import type { TurnRef } from "./turn-container";

/** A command for the model; `bot` is the run's (absent when the run's comes from configuration). */
export type ExecRequest = BashInput & { turn?: TurnRef; bot?: BotIdentity };

export const DEFAULT_MAX_TOOL_OUTPUT_BYTES = 16 * 1024;

/** The bytes of each stream the model gets (MAX_TOOL_OUTPUT_BYTES): the default when unset, bad or under 256. */
export function maxToolOutputBytes(setting: string | undefined): number {
  const parsed = Number.parseInt(setting ?? "", 10);
  return Number.isSafeInteger(parsed) && parsed >= 256 ? parsed : DEFAULT_MAX_TOOL_OUTPUT_BYTES;
}

type RunCommand = { run(command: string, timeoutMs: number): Promise<BashResult> };

export type WorkspaceExecDeps = {
  containersEnabled: () => boolean;
  /** The workspace's readiness (workspace-readiness.ts); its failure is thrown, not answered. */
  ready: () => Promise<void>;
  /** Why container commands cannot run although containers are on; undefined when they can. Known once ready. */
  containerRefusal: () => string | undefined;
  shell: RunCommand;
  container: RunCommand;
  /** Name the turn a container command belongs to (`WorkspaceAgent.beginTurn`). */
  beginTurn: (turn: TurnRef) => Promise<void>;
  /** The run's bot for the container's identity, from the latest command. */
  setBot: (bot: BotIdentity | undefined) => void;
  log: Logger;
};

export class WorkspaceExec {
  readonly #deps: WorkspaceExecDeps;

  constructor(deps: WorkspaceExecDeps) {
    this.#deps = deps;
  }

  async run(request: ExecRequest): Promise<BashResult> {
    const { backend } = request;
    if (backend === "container" && !this.#deps.containersEnabled()) return { backend, error: CONTAINER_UNAVAILABLE };
    await this.#deps.ready();
    const refusal = backend === "container" ? this.#deps.containerRefusal() : undefined;
    if (refusal !== undefined) return { backend, error: refusal };
    try {
      if (backend === "shell") return await this.#deps.shell.run(request.command, request.timeoutMs);
      if (request.turn) await this.#deps.beginTurn(request.turn);
      this.#deps.setBot(request.bot);
      return await this.#deps.container.run(request.command, request.timeoutMs);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#deps.log("exec:error", { backend, error: message });
      return { backend, error: message };
    }
  }
}
