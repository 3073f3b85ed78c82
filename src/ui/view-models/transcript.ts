/**
 * A thread's transcript as a list of view items: each run's envelope (the
 * `<agent-think-run>` block that opens its user message), the assistant's
 * text and reasoning (the part still streaming marked), and each tool call.
 * Also the thread header: the latest run's envelope and how many runs the
 * thread holds. Pure: takes messages as plain data (`TranscriptMessage`).
 */
import type { TranscriptMessage } from "../../shared/dispatch";
import { parseEnvelope, type RunEnvelope } from "../../run/envelope";
import { isToolPart, toolCallView, type ToolCallView } from "./tool-call";

export type TranscriptItem =
  | { kind: "run"; key: string; runNumber: number; envelope: RunEnvelope }
  | { kind: "user"; key: string; text: string }
  | { kind: "text"; key: string; text: string; streaming: boolean }
  | { kind: "reasoning"; key: string; text: string; streaming: boolean }
  | { kind: "tool"; key: string; call: ToolCallView }
  | { kind: "note"; key: string; text: string };

type Part = TranscriptMessage["parts"][number];

const textOf = (message: TranscriptMessage) =>
  message.parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("");

/** The envelope that opens a user message, or null. */
export function envelopeOf(message: TranscriptMessage): RunEnvelope | null {
  if (message.role !== "user") return null;
  const first = message.parts.find((part) => part.type === "text");
  return typeof first?.text === "string" ? parseEnvelope(first.text) : null;
}

function noteFor(part: Part): string | null {
  if (part.type === "file") return `file: ${typeof part.filename === "string" ? part.filename : (part.mediaType ?? "attachment")}`;
  if (part.type === "source-url") return `source: ${typeof part.url === "string" ? part.url : ""}`;
  if (part.type === "source-document") return `source: ${typeof part.title === "string" ? part.title : "document"}`;
  return null;
}

/**
 * `streaming` says a turn is in flight: the last part of the last assistant
 * message then shows as streaming even when its part state does not say so.
 */
export function transcriptItems(messages: readonly TranscriptMessage[], streaming: boolean = false): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  let runNumber = 0;
  const lastAssistant = [...messages].reverse().find((message) => message.role === "assistant");
  messages.forEach((message, messageIndex) => {
    const keyBase = `${message.id || `m${messageIndex}`}`;
    if (message.role === "system") return;
    if (message.role === "user") {
      const envelope = envelopeOf(message);
      if (envelope) {
        runNumber += 1;
        items.push({ kind: "run", key: `${keyBase}:run`, runNumber, envelope });
      } else {
        const text = textOf(message).trim();
        if (text) items.push({ kind: "user", key: `${keyBase}:user`, text });
      }
      return;
    }
    const liveMessage = streaming && message === lastAssistant;
    message.parts.forEach((part, partIndex) => {
      const key = `${keyBase}:${partIndex}`;
      const isLastPart = partIndex === message.parts.length - 1;
      if (part.type === "text" || part.type === "reasoning") {
        const text = typeof part.text === "string" ? part.text : "";
        const partStreaming = part.state === "streaming" || (liveMessage && isLastPart);
        if (!text.trim() && !partStreaming) return;
        items.push({ kind: part.type, key, text, streaming: partStreaming });
        return;
      }
      if (isToolPart(part)) {
        const call = toolCallView(part, key);
        items.push({ kind: "tool", key: `${keyBase}:${call.toolCallId}`, call });
        return;
      }
      const note = noteFor(part);
      if (note) items.push({ kind: "note", key, text: note });
    });
  });
  return items;
}

export type ThreadHeaderView = {
  /** The latest run's envelope: the thread header. */
  envelope: RunEnvelope | null;
  runs: number;
  toolCalls: number;
  /** When the first run was submitted (ms), from its envelope. */
  firstSubmittedAt: number | null;
};

export function threadHeader(messages: readonly TranscriptMessage[]): ThreadHeaderView {
  let envelope: RunEnvelope | null = null;
  let runs = 0;
  let toolCalls = 0;
  let firstSubmittedAt: number | null = null;
  for (const message of messages) {
    const found = envelopeOf(message);
    if (found) {
      runs += 1;
      envelope = found;
      const at = Date.parse(found.submittedAt);
      if (firstSubmittedAt === null && Number.isFinite(at)) firstSubmittedAt = at;
    }
    if (message.role === "assistant") toolCalls += message.parts.filter(isToolPart).length;
  }
  return { envelope, runs, toolCalls, firstSubmittedAt };
}
