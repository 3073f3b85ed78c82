/**
 * The one way `npm run deploy` reaches anything outside itself: run a
 * command and get its exit code and output. The checks read captured
 * output; the deploy steps inherit the terminal, their stderr also kept so
 * a known error can be named with its fix. Tests pass a runner that
 * answers from recordings. A command that cannot be started is an answer
 * (`missing`), never an exception.
 */
import { spawn } from "node:child_process";

/** The most of a deploy step's stderr kept to recognise its error by. */
const KEPT_STEP_STDERR = 64 * 1024;

export type RunResult = { code: number | null; stdout: string; stderr: string; missing?: boolean };

export type RunOptions = {
  /**
   * Show the command's output in the terminal (the deploy steps). stdin and
   * stdout stay the terminal's, so wrangler stays interactive; stderr is
   * passed through and kept, for the errors wrangler prints there.
   */
  inherit?: boolean;
  timeoutMs?: number;
};

export type Runner = (command: string, args: readonly string[], options?: RunOptions) => Promise<RunResult>;

export function spawnRunner(cwd: string, env: NodeJS.ProcessEnv): Runner {
  return (command, args, options = {}) =>
    new Promise((resolve) => {
      let stdout = "";
      let stderr = "";
      const child = spawn(command, [...args], {
        cwd,
        env,
        stdio: options.inherit ? ["inherit", "inherit", "pipe"] : ["ignore", "pipe", "pipe"],
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs })
      });
      child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        // A step's image build can print for minutes: its error is at the end.
        if (options.inherit) {
          process.stderr.write(chunk);
          stderr = stderr.slice(-KEPT_STEP_STDERR);
        }
      });
      child.once("error", (error: NodeJS.ErrnoException) => resolve({ code: null, stdout, stderr: stderr || error.message, missing: error.code === "ENOENT" }));
      child.once("close", (code) => resolve({ code, stdout, stderr }));
    });
}
