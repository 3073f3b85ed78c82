/**
 * The `bash` tool the model calls: one command on one of the workspace's two
 * shells. The tool only describes and forwards; the WorkspaceAgent runs the
 * command and bounds its output. An exit code, stderr or an unavailable
 * backend comes back as data for the model, never as a thrown error.
 */
import { tool } from "ai";
import { z } from "zod";

import { BACKENDS, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, type BackendId, type BashInput, type BashResult } from "../run/bash-command";

/** The input schema; `backend` defaults to the container where the deployment has one, else to the shell. */
export function bashInputSchema(defaultBackend: BackendId = "shell") {
  return z.object({
    command: z.string().min(1).max(100_000).describe("The command line, run by bash from /workspace."),
    backend: z
      .enum(BACKENDS)
      .default(defaultBackend)
      .describe(
        `container${defaultBackend === "container" ? " (default)" : ""}: a full Linux container for gh, git, npm, node, network, builds and tests; its /temp is the container's own scratch. ` +
          `shell${defaultBackend === "shell" ? " (default)" : ""}: a fast in-Worker shell over the same /workspace files: cat, grep, sed, awk, jq, curl, find, head, tail; no node, npm or working git, and a /temp of its own the container does not see.`
      ),
    timeoutMs: z
      .number()
      .int()
      .min(1_000)
      .max(MAX_TIMEOUT_MS)
      .default(DEFAULT_TIMEOUT_MS)
      .describe(
        "Stop the command after this many milliseconds (exit code 124). On the container the result then says timedOut: true, " +
          "and also killed: true (exit 137) when the command ignored SIGTERM and was killed 5 seconds later."
      )
  });
}

export function createBashTool(options: { run(input: BashInput): Promise<BashResult>; containerAvailable: boolean }) {
  return tool({
    description: [
      "Run a shell command in this issue's workspace. Both backends see the same /workspace files.",
      options.containerAvailable
        ? "Commands run in the container unless you pass backend: \"shell\"."
        : "The container backend is unavailable in this environment (no container engine): use the shell backend only.",
      "Output comes back bounded: a long stream is cut to its head and tail, and the note in the text names the file (under /temp, on the backend that ran it) holding all of it; read that file with head, tail or grep.",
      "A non-zero exit code is a result, not a failure of the tool."
    ].join(" "),
    inputSchema: bashInputSchema(options.containerAvailable ? "container" : "shell"),
    execute: (input) => options.run(input)
  });
}
