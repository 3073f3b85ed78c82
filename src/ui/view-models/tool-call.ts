/**
 * One tool call as the thread view shows it: a one-line summary (tool,
 * what it was asked, its state) and, when expanded, its input and bounded
 * output. The bash tool gets its own view (exit code, stdout and stderr with
 * the "left out" note and the log path); every other tool a compact JSON
 * view. Pure: reads the AI SDK's tool part shape loosely, as plain data.
 */
import { formatBytes, formatCount, formatDuration, truncate } from "./format";
import { boundText, valueView, type TextBlock, type ValueView } from "./json";
import type { Tone } from "./threads";

/** A tool part of a transcript message: `tool-<name>` or `dynamic-tool`. */
export type ToolPart = {
  type: string;
  toolName?: string;
  toolCallId?: string;
  state?: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  preliminary?: boolean;
  approval?: { approved?: boolean; reason?: string };
};

export function isToolPart(part: { type: string }): part is ToolPart {
  return part.type === "dynamic-tool" || part.type.startsWith("tool-");
}

export function toolNameOf(part: ToolPart): string {
  if (part.type === "dynamic-tool") return part.toolName ?? "tool";
  return part.type.slice("tool-".length);
}

export type BashStreamView = {
  name: "stdout" | "stderr";
  /** The text before the "left out" note (all of it when nothing was left out). */
  head: string;
  /** "12,345 bytes of 1,000,000 (20,000 lines) left out; the whole stdout is in /temp/…". */
  leftOut?: string;
  /** The text after the note. */
  tail: string;
  log?: string;
  /** "1.2 KB · 40 lines". */
  size: string;
  empty: boolean;
  /** The dashboard cut the text further (it is already bounded by the server). */
  clippedChars: number;
};

export type BashOutputView = {
  kind: "bash";
  backend?: string;
  exitCode?: number;
  timedOut: boolean;
  duration?: string;
  /** The backend could not run the command at all. */
  error?: string;
  streams: BashStreamView[];
};

export type JsonOutputView = { kind: "json"; body: ValueView };
export type ErrorOutputView = { kind: "error"; text: string };

export type ToolCallView = {
  toolCallId: string;
  toolName: string;
  /** What it was asked, on one line: the command for bash, a path or a query for others. */
  summary: string;
  state: string;
  stateLabel: string;
  tone: Tone;
  done: boolean;
  /** The input: the command text for bash, compact JSON (with multi-line text fields apart) otherwise. */
  input: { text: string; language: "shell" | "json" | "text"; details: string[]; truncated: boolean; omittedChars: number; blocks: TextBlock[] };
  output: BashOutputView | JsonOutputView | ErrorOutputView | null;
};

type BashStreamWire = { text: string; totalBytes: number; totalLines: number; log?: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

function isBashStream(value: unknown): value is BashStreamWire {
  return isRecord(value) && typeof value.text === "string" && typeof value.totalBytes === "number";
}

/** Matches the note `parseReport` writes between the head and the tail of a cut stream. */
const LEFT_OUT_NOTE =
  /\n?… \[agent-think: (\d+) bytes of (\d+) \((\d+) lines\) left out here; the whole (stdout|stderr) is in ([^\]\n]+)\] …\n?/;

/** Splits a bounded stream's text around its "left out" note. */
export function splitLeftOut(text: string): { head: string; note?: { omittedBytes: number; totalBytes: number; totalLines: number; stream: string; log: string }; tail: string } {
  const match = LEFT_OUT_NOTE.exec(text);
  if (!match) return { head: text, tail: "" };
  return {
    head: text.slice(0, match.index),
    note: {
      omittedBytes: Number(match[1]),
      totalBytes: Number(match[2]),
      totalLines: Number(match[3]),
      stream: match[4]!,
      log: match[5]!.trim()
    },
    tail: text.slice(match.index + match[0].length)
  };
}

const lines = (n: number) => `${formatCount(n)} line${n === 1 ? "" : "s"}`;

export function bashStreamView(name: "stdout" | "stderr", stream: BashStreamWire, maxChars?: number): BashStreamView {
  const split = splitLeftOut(stream.text);
  const log = stream.log ?? split.note?.log;
  let leftOut: string | undefined;
  if (split.note) {
    leftOut = `${formatCount(split.note.omittedBytes)} bytes of ${formatCount(split.note.totalBytes)} (${lines(split.note.totalLines)}) left out; the whole ${name} is in ${split.note.log}`;
  } else if (stream.log) {
    leftOut = `output cut to its head and tail; the whole ${name} (${formatBytes(stream.totalBytes)}) is in ${stream.log}`;
  }
  const half = maxChars === undefined ? undefined : Math.floor(maxChars / 2);
  const head = boundText(split.head, half);
  const tail = boundText(split.tail, half);
  return {
    name,
    head: head.text,
    leftOut,
    tail: tail.text,
    log,
    size: `${formatBytes(stream.totalBytes)} · ${lines(stream.totalLines)}`,
    empty: stream.totalBytes === 0 && stream.text.length === 0,
    clippedChars: head.omittedChars + tail.omittedChars
  };
}

export function bashOutputView(output: unknown): BashOutputView | null {
  if (!isRecord(output)) return null;
  const backend = typeof output.backend === "string" ? output.backend : undefined;
  if (typeof output.error === "string" && !isBashStream(output.stdout)) {
    return { kind: "bash", backend, timedOut: false, error: output.error, streams: [] };
  }
  if (!isBashStream(output.stdout) || !isBashStream(output.stderr)) return null;
  return {
    kind: "bash",
    backend,
    exitCode: typeof output.exitCode === "number" ? output.exitCode : undefined,
    timedOut: output.timedOut === true,
    duration: typeof output.durationMs === "number" ? formatDuration(output.durationMs) : undefined,
    streams: [bashStreamView("stdout", output.stdout), bashStreamView("stderr", output.stderr)]
  };
}

/** Input fields that name what a generic tool works on, in order of preference. */
const SUMMARY_FIELDS = ["command", "path", "file_path", "filePath", "pattern", "query", "url", "name", "skill"] as const;

function inputSummary(toolName: string, input: unknown): string {
  if (!isRecord(input)) return typeof input === "string" ? truncate(input, 100) : "";
  if (toolName === "bash" && typeof input.command === "string") {
    const first = input.command.trim().split("\n")[0] ?? "";
    const more = input.command.trim().includes("\n") ? " …" : "";
    return truncate(first, 100) + more;
  }
  for (const field of SUMMARY_FIELDS) {
    const value = input[field];
    if (typeof value === "string" && value.trim()) return truncate(value, 100);
  }
  return "";
}

type StateLook = { label: string; tone: Tone; done: boolean };

function stateLook(part: ToolPart, bash: BashOutputView | null): StateLook {
  switch (part.state) {
    case "input-streaming":
      return { label: "preparing", tone: "neutral", done: false };
    case "input-available":
      return { label: "running", tone: "info", done: false };
    case "approval-requested":
      return { label: "awaiting approval", tone: "warn", done: false };
    case "approval-responded":
      return { label: part.approval?.approved ? "approved" : "denied", tone: part.approval?.approved ? "info" : "warn", done: false };
    case "output-denied":
      return { label: "denied", tone: "warn", done: true };
    case "output-error":
      return { label: "error", tone: "bad", done: true };
    case "output-available": {
      if (part.preliminary) return { label: "running", tone: "info", done: false };
      if (bash?.error) return { label: "not run", tone: "bad", done: true };
      if (bash?.timedOut) return { label: "timed out", tone: "bad", done: true };
      if (bash && bash.exitCode !== undefined) {
        return { label: `exit ${bash.exitCode}`, tone: bash.exitCode === 0 ? "good" : "warn", done: true };
      }
      return { label: "done", tone: "good", done: true };
    }
    default:
      return { label: part.state ?? "unknown", tone: "neutral", done: false };
  }
}

function inputView(toolName: string, input: unknown): ToolCallView["input"] {
  if (toolName === "bash" && isRecord(input) && typeof input.command === "string") {
    const details: string[] = [];
    if (typeof input.backend === "string") details.push(`backend ${input.backend}`);
    if (typeof input.timeoutMs === "number") details.push(`timeout ${formatDuration(input.timeoutMs)}`);
    const body = boundText(input.command);
    return { text: body.text, language: "shell", details, truncated: body.truncated, omittedChars: body.omittedChars, blocks: [] };
  }
  if (input === undefined) return { text: "", language: "text", details: [], truncated: false, omittedChars: 0, blocks: [] };
  return { ...valueView(input), details: [] };
}

export function toolCallView(part: ToolPart, fallbackId: string): ToolCallView {
  const toolName = toolNameOf(part);
  let output: ToolCallView["output"] = null;
  let bash: BashOutputView | null = null;
  if (part.state === "output-error") {
    output = { kind: "error", text: part.errorText ?? "the tool failed" };
  } else if (part.state === "output-available" || part.output !== undefined) {
    bash = toolName === "bash" ? bashOutputView(part.output) : null;
    if (bash) output = bash;
    else output = { kind: "json", body: valueView(part.output) };
  } else if (part.state === "output-denied") {
    output = { kind: "error", text: part.approval?.reason ? `denied: ${part.approval.reason}` : "denied" };
  }
  const look = stateLook(part, bash);
  return {
    toolCallId: part.toolCallId ?? fallbackId,
    toolName,
    summary: inputSummary(toolName, part.input),
    state: part.state ?? "unknown",
    stateLabel: look.label,
    tone: look.tone,
    done: look.done,
    input: inputView(toolName, part.input),
    output
  };
}
