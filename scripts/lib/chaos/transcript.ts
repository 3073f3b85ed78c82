/**
 * What the chaos checks read out of a session's transcript
 * (`GET /dev/messages/:session`): which of a run's steps the transcript
 * shows as executed (a `tool-bash` part for the step's command with an
 * output), and the counter file's lines as a later read-back run printed
 * them. Pure; the driver fetches, checks.ts judges.
 */
import type { TranscriptMessage } from "../dev-api";
import { END_OF_COUNTER, READ_COUNTER_COMMAND, type ChaosStep } from "./plan";

type ToolPart = { type: string; state?: unknown; input?: unknown; output?: unknown };

function bashParts(messages: readonly TranscriptMessage[]): ToolPart[] {
  return messages.flatMap((message) => message.parts).filter((part) => part.type === "tool-bash") as ToolPart[];
}

function commandOf(part: ToolPart): string | undefined {
  const command = (part.input as { command?: unknown } | undefined)?.command;
  return typeof command === "string" ? command : undefined;
}

/**
 * A re-issued command the agent answered without running it because a
 * restart interrupted it (src/run/command-replay.ts): it ran at most once,
 * maybe not at all.
 */
function isInterruptedAnswer(part: ToolPart): boolean {
  return (part.output as { interrupted?: unknown } | undefined)?.interrupted === true;
}

/**
 * How many bash calls with a result the transcript holds for each step, by
 * counter line (0 for a step it never ran). More than one is a step the
 * model was made to run again. An "interrupted" answer is no result of a
 * run (see `interruptedSteps`).
 */
export function stepResults(messages: readonly TranscriptMessage[], steps: readonly ChaosStep[]): Map<string, number> {
  const counts = new Map(steps.map((step) => [step.line, 0]));
  for (const part of bashParts(messages)) {
    if (part.state !== "output-available" || isInterruptedAnswer(part)) continue;
    const step = steps.find((candidate) => candidate.command === commandOf(part));
    if (step) counts.set(step.line, (counts.get(step.line) ?? 0) + 1);
  }
  return counts;
}

/** The steps (by counter line) whose command the agent answered as interrupted by a restart: their line may be there once, or not at all. */
export function interruptedSteps(messages: readonly TranscriptMessage[], steps: readonly ChaosStep[]): string[] {
  const lines = new Set<string>();
  for (const part of bashParts(messages)) {
    if (part.state !== "output-available" || !isInterruptedAnswer(part)) continue;
    const step = steps.find((candidate) => candidate.command === commandOf(part));
    if (step) lines.add(step.line);
  }
  return [...lines];
}

/**
 * The counter file's lines from the last read-back call in the transcript,
 * in file order, or null when there is no complete read-back (no result, a
 * non-zero exit, or an output without the end marker: cut or not ours).
 */
export function counterLines(messages: readonly TranscriptMessage[]): string[] | null {
  const reads = bashParts(messages).filter((part) => commandOf(part) === READ_COUNTER_COMMAND && part.state === "output-available");
  const output = reads.at(-1)?.output as { exitCode?: unknown; stdout?: { text?: unknown } } | undefined;
  if (output === undefined || output.exitCode !== 0 || typeof output.stdout?.text !== "string") return null;
  const lines = output.stdout.text.split("\n").map((line) => line.trim());
  const end = lines.indexOf(END_OF_COUNTER);
  if (end < 0) return null;
  return lines.slice(0, end).filter((line) => line !== "");
}
