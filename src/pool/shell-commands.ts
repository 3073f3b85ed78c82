/**
 * One worker-shell command for the model, as the WorkspaceAgent runs it:
 * just-bash already caps its output (1 MiB), so it runs unwrapped and each
 * stream is cut here to a head and a tail (run/command-report.ts
 * `boundText`), the whole of a cut stream kept under /temp where the model
 * can read it. The container's commands are container-commands.ts. Pure
 * apart from its dependencies (runner, files). docs/containers.md, "Bounded output".
 */
import type { BashResult, BashStream } from "../run/bash-command";
import { boundText, commandId, LOG_DIR, logPath, type StreamName } from "../run/command-report";
import type { CommandRunner } from "./container-commands";

export type ShellCommandDeps = {
  runner: () => CommandRunner;
  /** The Workspace's files, where a cut stream is kept whole. */
  files: () => { mkdir(path: string, options: { recursive: true }): Promise<unknown>; writeFile(path: string, text: string): Promise<unknown> };
  maxOutputBytes: () => number;
  now?: () => number;
};

export class ShellCommands {
  readonly #deps: ShellCommandDeps;

  constructor(deps: ShellCommandDeps) {
    this.#deps = deps;
  }

  /** Run `command` on the worker shell. Throws only what the caller turns into an error result. */
  async run(command: string, timeoutMs: number): Promise<BashResult> {
    const now = this.#deps.now ?? Date.now;
    const started = now();
    const id = commandId();
    const maxBytes = this.#deps.maxOutputBytes();
    const raw = await this.#deps.runner().run(command, { timeoutMs });
    const [stdout, stderr] = await Promise.all([this.#boundAndKeep(raw.stdout, "stdout", id, maxBytes), this.#boundAndKeep(raw.stderr, "stderr", id, maxBytes)]);
    return { backend: "shell", exitCode: raw.exitCode, stdout, stderr, durationMs: now() - started };
  }

  /** Bound one stream; keep the whole of a cut stream in /temp. */
  async #boundAndKeep(text: string, stream: StreamName, id: string, maxBytes: number): Promise<BashStream> {
    const bounded = boundText(text, { maxBytes, log: logPath(id, stream), stream });
    if (bounded.log) {
      const files = this.#deps.files();
      await files.mkdir(LOG_DIR, { recursive: true });
      await files.writeFile(bounded.log, text);
    }
    return bounded;
  }
}
