/**
 * How `npm run dispatch` shows a run in a terminal: one short line per tool
 * call and per result, assistant text as written, and a closing status.
 * Knows the shapes of the tools' inputs and outputs (bash, exec, read, write,
 * edit, ls) and falls back to compact JSON for anything else; and a line
 * when Think's chat recovery takes the turn over or lets it go on. Pure.
 */
import type { SubmissionStatus } from "./dev-api";
import type { RecoveryChange } from "./live-run";
import type { RunEvent } from "./run-events";

export const MAX_LINE_CHARS = 120;

export function formatEvent(event: RunEvent): string {
  switch (event.kind) {
    case "text":
      return event.text.trim();
    case "tool-call":
      return clip(`▸ ${event.toolName}  ${compactInput(event.input)}`);
    case "tool-result":
      return clip(`  ${summarizeOutput(event.output)}`);
    case "tool-error":
      return clip(`  ✗ ${firstLine(event.error) || "failed"}`);
  }
}

function compactInput(input: unknown): string {
  if (!isRecord(input)) return oneLine(JSON.stringify(input) ?? "");
  if (typeof input.command === "string") {
    return input.backend === "container" ? `[container] ${oneLine(input.command)}` : oneLine(input.command);
  }
  if (typeof input.path === "string") {
    return typeof input.content === "string"
      ? `${input.path} (${new TextEncoder().encode(input.content).length} bytes)`
      : input.path;
  }
  return oneLine(JSON.stringify(input));
}

function summarizeOutput(output: unknown): string {
  if (typeof output === "string") return join("✓", firstLine(output));
  if (!isRecord(output)) return join("✓", oneLine(JSON.stringify(output) ?? ""));
  if (typeof output.error === "string") return join("✗", firstLine(output.error) || "failed");
  if (typeof output.exitCode === "number") {
    // bash bounds each stream as { text, totalBytes, ... }; exec returns strings.
    const stdout = firstLine(streamText(output.stdout));
    const stderr = firstLine(streamText(output.stderr));
    const ok = output.exitCode === 0;
    // A failing command's reason is usually on stderr.
    const detail = ok ? stdout || stderr : stderr || stdout;
    return join(ok ? "✓" : "✗", `exit ${output.exitCode}`, detail);
  }
  if (typeof output.bytesWritten === "number") return join("✓", `${output.bytesWritten} bytes written`);
  if (typeof output.editsApplied === "number") return join("✓", `${output.editsApplied} edit(s) applied`);
  if (typeof output.content === "string") {
    const lines = typeof output.totalLines === "number" ? `${output.totalLines} lines` : "";
    return join("✓", lines, firstLine(output.content));
  }
  if (Array.isArray(output.entries)) return join("✓", `${output.entries.length} entries`);
  return join("✓", oneLine(JSON.stringify(output)));
}

/** "↻ recovering: …" when Think takes the interrupted turn over (the 2nd time and on, which one), "↻ resumed" when it goes on. */
export function formatRecovery(change: RecoveryChange): string {
  if (change.kind === "resumed") return "↻ resumed";
  const which = change.recoveries > 1 ? ` (recovery ${change.recoveries})` : "";
  return `↻ recovering${which}: the turn was interrupted; Think is resuming it`;
}

/** Under the final status: how many recoveries the run went through, when it went through any. */
export function formatRecoveries(count: number): string | null {
  if (count < 1) return null;
  return `↻ recovered ${count}× on the way (Think's chat recovery resumed the interrupted turn)`;
}

export function formatFinal(submission: SubmissionStatus): string {
  const seconds =
    submission.startedAt !== undefined && submission.completedAt !== undefined
      ? ` in ${((submission.completedAt - submission.startedAt) / 1000).toFixed(1)} s`
      : "";
  if (submission.status === "completed") return `✓ completed${seconds}`;
  const error = submission.error ? `: ${firstLine(submission.error)}` : "";
  return `✗ ${submission.status}${seconds}${error}`;
}

/** Under the final status of a run on the scripted model (`isScriptedEvent`). */
export const SCRIPTED_NOTE = "scripted model: a demonstration, no model ran (configure the AI Gateway to run a real one)";

/** The first line that has something on it, trimmed. */
export function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .map((line) => line.trim())
      .find((line) => line !== "") ?? ""
  );
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ↵ ").trim();
}

function join(mark: string, ...parts: string[]): string {
  return [mark, parts.filter((part) => part !== "").join(" · ")].filter((part) => part !== "").join(" ");
}

/** Cut to MAX_LINE_CHARS, counting characters rather than UTF-16 units. */
export function clip(line: string): string {
  const chars = [...line];
  return chars.length <= MAX_LINE_CHARS ? line : `${chars.slice(0, MAX_LINE_CHARS - 1).join("")}…`;
}

function streamText(stream: unknown): string {
  if (typeof stream === "string") return stream;
  return isRecord(stream) && typeof stream.text === "string" ? stream.text : "";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
