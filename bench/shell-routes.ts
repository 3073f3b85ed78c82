/**
 * The bench Worker's shell routes, used only by bench/shell-bench.ts:
 *   POST /bench/exec  { side, concurrency, timeoutMs, calls: [{ workspace, command }] }
 *                     → run each command on that side's worker shell, at most
 *                     `concurrency` in flight, timing each
 *                     → { elapsedMs, calls: ExecCall[] }
 *   POST /bench/files { side, workspace, dir } → the files directly in `dir`
 *                     of that side's workspace → { files: [{ name, size }] }
 *   POST /bench/turn  { repo, issueNumber, instruction } → one scripted turn
 *                     through AgentThink.dispatch, waited for, and what its
 *                     bash call left in the transcript → TurnFigures
 * `ours` is WorkspaceAgent.exec (the bash tool's path: our wrapper, its
 * report and parse); `bare` is runtime.exec + result() on a bare Workspace.
 *
 * Timed inside the Worker for the reason routes.ts gives. Each side's result
 * is measured here as it arrived over RPC, so byte counts are of what crossed
 * from the Durable Object to its caller. Anything else is `null`. Pure: the
 * Durable Objects are reached through `deps`.
 */
import { z } from "zod";
import { json, readJsonPost } from "../src/http/responses";
import type { BashResult } from "../src/run/bash-command";
import type { TranscriptMessage } from "../src/shared/dispatch";
import { pool, type BenchSide } from "./routes";

/** What a bare Workspace's `result()` holds that the bench reads. */
export type BareExecResult = {
  exitCode: number;
  stdout: string;
  stderr: string;
  truncated?: { stdout?: { totalBytes: number; path?: string }; stderr?: { totalBytes: number; path?: string } };
};

export type ShellRouteDeps = {
  /** WorkspaceAgent.exec on the shell backend, the stub fetched as ThinkAgent fetches it. */
  ours(workspace: string, command: string, timeoutMs: number): Promise<BashResult>;
  bare(workspace: string, command: string, timeoutMs: number): Promise<BareExecResult>;
  /** The files directly in `dir` of a side's workspace; none when `dir` does not exist. */
  files(side: BenchSide, workspace: string, dir: string): Promise<{ name: string; size: number }[]>;
  dispatch(input: TurnInput): Promise<{ session: string; submissionId: string }>;
  /** Resolves with the final status once the turn has finished. */
  waitForTurn(session: string, submissionId: string, timeoutMs: number): Promise<string>;
  transcript(session: string): Promise<TranscriptMessage[]>;
  now(): number;
};

/**
 * One command as its caller received it. `error` is ours' tagged failure
 * (e.g. a shell limit that stopped the script before its report); a call
 * that threw is `{ thrown }` instead.
 */
export type ExecFigures = {
  ms: number;
  /** The whole RPC result as JSON: roughly what crossed from the Durable Object. */
  resultBytes: number;
  exitCode?: number;
  error?: string;
  /** Bytes of the stdout text the caller got (ours: the model's text, head and tail when bounded). */
  stdoutBytes: number;
  stderrBytes: number;
  /** Bytes the command printed to stdout, as the side reports it (ours: totalBytes; bare: the truncation's total). */
  commandStdoutBytes: number;
  /** Where the side kept the whole stdout, when it cut it. */
  stdoutLog?: string;
  stdoutHead: string;
  stderrHead: string;
};

export type ExecCall = ExecFigures | { thrown: string };

export type TurnFigures = {
  session: string;
  status: string;
  /** dispatch() until the turn finished, on the Worker's clock. */
  turnMs: number;
  transcriptMessages: number;
  transcriptBytes: number;
  /** The bash call's part, its output, and the assistant message holding it; null if the turn made no bash call. */
  bash: {
    messageBytes: number;
    partBytes: number;
    outputBytes: number;
    state: string;
    exitCode?: number;
    error?: string;
    durationMs?: number;
    stdoutTextBytes?: number;
    stdoutTotalBytes?: number;
    stderrHead?: string;
    stdoutLog?: string;
  } | null;
};

const MAX_EXEC_CALLS = 1_000;
const HEAD_CHARS = 300;
const TURN_TIMEOUT_MS = 120_000;

const execSchema = z.strictObject({
  side: z.enum(["ours", "bare"]),
  concurrency: z.number().int().min(1).max(MAX_EXEC_CALLS),
  timeoutMs: z.number().int().min(1_000).max(600_000),
  calls: z
    .array(z.strictObject({ workspace: z.string().min(1).max(200), command: z.string().min(1).max(100_000) }))
    .min(1)
    .max(MAX_EXEC_CALLS)
});

const filesSchema = z.strictObject({
  side: z.enum(["ours", "bare"]),
  workspace: z.string().min(1).max(200),
  dir: z.string().startsWith("/").max(1_000)
});

// Left to dispatch() to validate further: this only shapes the request.
const turnSchema = z.strictObject({
  repo: z.string().min(1).max(200),
  issueNumber: z.number().int().positive(),
  instruction: z.string().min(1).max(8_000)
});
export type TurnInput = z.infer<typeof turnSchema> & { installationToken: string };

export async function handleShellRoute(request: Request, deps: ShellRouteDeps): Promise<Response | null> {
  const { pathname } = new URL(request.url);
  if (pathname !== "/bench/exec" && pathname !== "/bench/files" && pathname !== "/bench/turn") return null;
  const read = await readJsonPost(request);
  if (!read.ok) return read.response;
  const body = read.body;

  if (pathname === "/bench/exec") {
    const input = execSchema.safeParse(body);
    if (!input.success) return json({ error: z.prettifyError(input.error) }, 400);
    const { side, concurrency, timeoutMs, calls } = input.data;
    const startedAt = deps.now();
    const results = await pool(calls, concurrency, ({ workspace, command }) =>
      timedExec(deps, side, workspace, command, timeoutMs)
    );
    return json({ elapsedMs: deps.now() - startedAt, calls: results });
  }

  if (pathname === "/bench/files") {
    const input = filesSchema.safeParse(body);
    if (!input.success) return json({ error: z.prettifyError(input.error) }, 400);
    return json({ files: await deps.files(input.data.side, input.data.workspace, input.data.dir) });
  }

  const input = turnSchema.safeParse(body);
  if (!input.success) return json({ error: z.prettifyError(input.error) }, 400);
  try {
    const startedAt = deps.now();
    const { session, submissionId } = await deps.dispatch({ ...input.data, installationToken: "" });
    const status = await deps.waitForTurn(session, submissionId, TURN_TIMEOUT_MS);
    const turnMs = deps.now() - startedAt;
    return json({ session, status, turnMs, ...transcriptFigures(await deps.transcript(session)) } satisfies TurnFigures);
  } catch (error) {
    return json({ error: error instanceof Error ? error.message : String(error) }, 500);
  }
}

async function timedExec(
  deps: ShellRouteDeps,
  side: BenchSide,
  workspace: string,
  command: string,
  timeoutMs: number
): Promise<ExecCall> {
  const startedAt = deps.now();
  try {
    if (side === "ours") {
      const result = await deps.ours(workspace, command, timeoutMs);
      const ms = deps.now() - startedAt;
      if ("error" in result) {
        const { error } = result;
        return { ms, resultBytes: jsonBytes(result), error, stdoutBytes: 0, stderrBytes: 0, commandStdoutBytes: 0, stdoutHead: "", stderrHead: "" };
      }
      return {
        ms,
        resultBytes: jsonBytes(result),
        exitCode: result.exitCode,
        stdoutBytes: byteLength(result.stdout.text),
        stderrBytes: byteLength(result.stderr.text),
        commandStdoutBytes: result.stdout.totalBytes,
        ...(result.stdout.log ? { stdoutLog: result.stdout.log } : {}),
        stdoutHead: result.stdout.text.slice(0, HEAD_CHARS),
        stderrHead: result.stderr.text.slice(0, HEAD_CHARS)
      };
    }
    const result = await deps.bare(workspace, command, timeoutMs);
    const ms = deps.now() - startedAt;
    const stdoutBytes = byteLength(result.stdout);
    return {
      ms,
      resultBytes: jsonBytes(result),
      exitCode: result.exitCode,
      stdoutBytes,
      stderrBytes: byteLength(result.stderr),
      commandStdoutBytes: result.truncated?.stdout?.totalBytes ?? stdoutBytes,
      ...(result.truncated?.stdout?.path ? { stdoutLog: result.truncated.stdout.path } : {}),
      stdoutHead: result.stdout.slice(0, HEAD_CHARS),
      stderrHead: result.stderr.slice(0, HEAD_CHARS)
    };
  } catch (error) {
    return { thrown: error instanceof Error ? error.message : String(error) };
  }
}

/** Sizes of the transcript and of its last bash call, as JSON. */
export function transcriptFigures(messages: readonly TranscriptMessage[]): Omit<TurnFigures, "session" | "status" | "turnMs"> {
  const figures = { transcriptMessages: messages.length, transcriptBytes: jsonBytes(messages), bash: null };
  const message = messages.findLast((candidate) => candidate.parts.some((part) => part.type === "tool-bash"));
  const part = message?.parts.findLast((candidate) => candidate.type === "tool-bash");
  if (!message || !part) return figures;
  const output = part.output as Partial<Extract<BashResult, { exitCode: number }>> & { error?: string } | undefined;
  return {
    ...figures,
    bash: {
      messageBytes: jsonBytes(message),
      partBytes: jsonBytes(part),
      outputBytes: output === undefined ? 0 : jsonBytes(output),
      state: String(part.state),
      exitCode: output?.exitCode,
      error: output?.error ?? (typeof part.errorText === "string" ? part.errorText : undefined),
      durationMs: output?.durationMs,
      stdoutTextBytes: output?.stdout ? byteLength(output.stdout.text) : undefined,
      stdoutTotalBytes: output?.stdout?.totalBytes,
      stderrHead: output?.stderr?.text.slice(0, HEAD_CHARS),
      stdoutLog: output?.stdout?.log
    }
  };
}

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).length;
const jsonBytes = (value: unknown) => byteLength(JSON.stringify(value));
