/**
 * What the real-container suite reads back from a step's runs, and the
 * instruction lines it plays: the transcript's tool calls (each container
 * command with its exit code and bounded output), the git server's refs and
 * pushes, the host's UDP listener, the stand-in's pull requests and a
 * published page. Pure; the steps (container-steps.ts) judge these.
 */
import type { TranscriptMessage } from "./dev-api";

/** One `bash` call on the container backend, as its tool result reports it. */
export type ObservedCommand = { command: string; exitCode?: number; stdout: string; stderr: string; error?: string };
/** Any tool call with its input and output (publish_reproduction, open_pull_request, …). */
export type ObservedTool = { tool: string; input: Record<string, unknown>; output: unknown };

export type Observation = {
  /** Each run's final submission status, in dispatch order. */
  statuses: string[];
  commands: ObservedCommand[];
  tools: ObservedTool[];
  /** The step's repository on the git server, ref → commit, before its first run and after its last. */
  refs: { before: Record<string, string>; after: Record<string, string> };
  /** receive-pack POSTs the git server answered during the step: the token kind it saw, and its status. */
  pushes: { token: string; status: number }[];
  /** Datagrams the host's UDP listener received during the step, and whether its own control datagram arrived. */
  udp: { received: number; control: boolean };
  /** Bodies of the pull requests the stand-in was asked to open for the step's repository. */
  pullRequests: string[];
  /** The published page, fetched from the Worker, when the step published one. */
  page?: { status: number; body: string };
};

export const EMPTY_OBSERVATION: Observation = {
  statuses: [],
  commands: [],
  tools: [],
  refs: { before: {}, after: {} },
  pushes: [],
  udp: { received: 0, control: true },
  pullRequests: []
};

type ToolPart = { type: string; input?: Record<string, unknown>; output?: unknown };
type StreamOutput = { text?: unknown };

function textOf(stream: unknown): string {
  const text = (stream as StreamOutput | undefined)?.text;
  return typeof text === "string" ? text : "";
}

/** Every tool call of the transcript's assistant messages, in order. */
export function observedTools(messages: readonly TranscriptMessage[]): ObservedTool[] {
  return messages
    .filter((message) => message.role === "assistant")
    .flatMap((message) => message.parts as ToolPart[])
    .filter((part) => part.type.startsWith("tool-"))
    .map((part) => ({ tool: part.type.slice("tool-".length), input: part.input ?? {}, output: part.output }));
}

/** The `bash` calls on the container backend, with what each reported. */
export function observedCommands(tools: readonly ObservedTool[]): ObservedCommand[] {
  return tools
    .filter((call) => call.tool === "bash" && call.input.backend === "container")
    .map((call) => {
      const output = (call.output ?? {}) as { exitCode?: unknown; stdout?: unknown; stderr?: unknown; error?: unknown };
      return {
        command: String(call.input.command ?? ""),
        ...(typeof output.exitCode === "number" ? { exitCode: output.exitCode } : {}),
        stdout: textOf(output.stdout),
        stderr: textOf(output.stderr),
        ...(typeof output.error === "string" ? { error: output.error } : {})
      };
    });
}

/** A `TEST: write` line: the scripted model turns `\n` back into newlines, so the text may hold no backslash of its own. */
export function writeLine(path: string, text: string): string {
  if (text.includes("\\") || text.includes("\r")) throw new Error(`${path}: a scripted write's text may not hold a backslash or a carriage return`);
  return `TEST: write ${path} ${text.replaceAll("\n", "\\n")}`;
}

/** `name=value` lines of a command's output, last one wins. */
export function keyValues(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^([\w-]+)=(.*)$/.exec(line.trim());
    if (match) values[match[1]!] = match[2]!;
  }
  return values;
}

/** What a command was, for a judge's message: its command, exit code or error, and the ends of its output. */
export function described(command: ObservedCommand | undefined): string {
  if (!command) return "it never ran";
  const ended = command.error !== undefined ? `error: ${command.error}` : `exit ${command.exitCode ?? "none"}`;
  const tail = (text: string) => (text.length > 400 ? `…${text.slice(-400)}` : text);
  return `\`${command.command}\` (${ended}; stdout ${JSON.stringify(tail(command.stdout))}; stderr ${JSON.stringify(tail(command.stderr))})`;
}
