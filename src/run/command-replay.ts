/**
 * At most once for the bash command a recovery interrupted. When the runtime dies after a
 * command's effect reached the workspace but before Think saved its result, the recovered model
 * issues the same command again. So each submission's last bash command is kept
 * (`agent-think:last-command:<id>`, synchronous KV) as started, then as finished; a call equal
 * to it that started before the run's latest recovery is answered from the record (`replayed`,
 * or "interrupted, may have run") instead of running again. Used by the ThinkAgent's bash tool;
 * never throws into the turn (a storage error just runs the command). What it cannot tell, and
 * its tests: docs/chaos.md, "The bash re-run". Pure.
 */
import type { BackendId, BashInput, BashResult } from "./bash-command";
import type { Logger } from "./log";

export interface CommandReplayStorage {
  get<T>(key: string): T | undefined;
  put<T>(key: string, value: T): void;
  delete(key: string): boolean;
}

/** A finished command's result larger than this (as JSON) is not kept: only its exit code and log paths are. */
export const MAX_KEPT_RESULT_BYTES = 64 * 1024;

export type LastCommand = {
  command: string;
  backend: BackendId;
  /** The run's recovery count when the command started (or when its re-issue was last answered). */
  recoveries: number;
  finished: boolean;
  /** The bash tool's result, as it was returned; absent when it was too large to keep. */
  result?: BashResult;
  /** When the result was too large to keep: its exit code, if it had one. */
  exitCode?: number;
  /** When the result was too large to keep: where its cut streams are logged, on the backend that ran it. */
  logs?: string[];
};

/** What the bash tool returns: the command's result, or an answer for a re-issued one. */
export type BashReply = BashResult & {
  /** The command was not run again: this answers a re-issue after a restart. */
  replayed?: true;
  /** The command was started before a restart and never reported back. */
  interrupted?: true;
  note?: string;
};

export const REPLAYED_NOTE =
  "This exact command already ran before the agent restarted; it was not run again, and this is its result from then.";

export const interruptedMessage = (backend: BackendId) =>
  `This exact command was started on the ${backend} backend before the agent restarted, and the restart interrupted it: ` +
  "it may have run partly or fully. It was not run again. Check its effects (files, git state, what it should have created) " +
  "before running it again.";

export const outputNotKeptMessage = (known: Pick<LastCommand, "backend" | "exitCode" | "logs">) =>
  `This exact command already ran on the ${known.backend} backend before the agent restarted` +
  (known.exitCode === undefined ? "" : ` and exited with ${known.exitCode}`) +
  "; it was not run again, and its output was too large to keep" +
  (known.logs && known.logs.length > 0 ? ` (the whole output is in ${known.logs.join(" and ")})` : "") +
  ". Check its effects rather than running it again.";

export const lastCommandKey = (submissionId: string) => `agent-think:last-command:${submissionId}`;

export type CommandReplayDeps = {
  storage: CommandReplayStorage;
  /** How many times Think's chat recovery has taken the run's turn over (0 before the first). */
  recoveries: (submissionId: string) => number;
  log?: Logger;
};

export class CommandReplay {
  readonly #deps: CommandReplayDeps;
  constructor(deps: CommandReplayDeps) {
    this.#deps = deps;
  }

  /** Run `input` for the submission through `execute`, unless it re-issues the command a recovery interrupted. */
  async run(submissionId: string, input: BashInput, execute: (input: BashInput) => Promise<BashResult>): Promise<BashReply> {
    const key = lastCommandKey(submissionId);
    let recoveries: number;
    let known: LastCommand | undefined;
    try {
      recoveries = this.#deps.recoveries(submissionId);
      known = this.#deps.storage.get<LastCommand>(key);
    } catch (error) {
      this.#failed("read", submissionId, error);
      return execute(input);
    }
    if (known && known.command === input.command && known.backend === input.backend && known.recoveries < recoveries) {
      // Answered once per recovery: the next identical call is the model's own.
      this.#put(key, { ...known, recoveries }, submissionId);
      this.#deps.log?.("command:replayed", { submissionId, backend: known.backend, finished: known.finished });
      return answer(known);
    }
    this.#put(key, { command: input.command, backend: input.backend, recoveries, finished: false } satisfies LastCommand, submissionId);
    const result = await execute(input);
    this.#put(key, finishedRecord(input, recoveries, result), submissionId);
    return result;
  }

  /** The run ended: its last command is no longer anyone's to replay. */
  forget(submissionId: string): void {
    try {
      this.#deps.storage.delete(lastCommandKey(submissionId));
    } catch (error) {
      this.#failed("forget", submissionId, error);
    }
  }

  #put(key: string, value: LastCommand, submissionId: string): void {
    try {
      this.#deps.storage.put<LastCommand>(key, value);
    } catch (error) {
      this.#failed("write", submissionId, error);
    }
  }

  #failed(step: string, submissionId: string, error: unknown): void {
    try {
      this.#deps.log?.("command:replay-failed", { submissionId, step, error: error instanceof Error ? error.message : String(error) });
    } catch {
      // Logging is best effort here, like the record itself.
    }
  }
}

function finishedRecord(input: BashInput, recoveries: number, result: BashResult): LastCommand {
  const base = { command: input.command, backend: input.backend, recoveries, finished: true };
  if (byteLength(JSON.stringify(result)) <= MAX_KEPT_RESULT_BYTES) return { ...base, result };
  if ("error" in result) return base;
  const logs = [result.stdout.log, result.stderr.log].filter((log): log is string => typeof log === "string");
  return { ...base, exitCode: result.exitCode, ...(logs.length > 0 ? { logs } : {}) };
}

/** The answer to a re-issued command, shaped as the bash tool's results are (never an exception). */
function answer(known: LastCommand): BashReply {
  if (!known.finished) return { backend: known.backend, error: interruptedMessage(known.backend), interrupted: true, replayed: true };
  if (known.result) return { ...known.result, replayed: true, note: REPLAYED_NOTE };
  return { backend: known.backend, error: outputNotKeptMessage(known), replayed: true };
}

const byteLength = (text: string) => new TextEncoder().encode(text).length;
