/**
 * Turning a transcript snapshot into what `npm run dispatch` prints: the
 * messages of one run, and the events in them (assistant text, a tool call
 * starting, a tool call settling), each with a stable key so a follower
 * prints every event exactly once. The keys are the ones `live-run.ts` gives
 * the same events read off the WebSocket stream: a tool event is keyed by
 * its toolCallId, a text by its content and how often that content came
 * before in the run (the stream does not know a text's part index).
 *
 * A run is the user message that carries its `<agent-think-run>` envelope and
 * the messages after it up to the next user message. Earlier turns in the same
 * session are never part of it. Pure; `scripts/dispatch.ts` owns the polling.
 */
import { parseEnvelope } from "../../src/run/envelope";
import { DEMO_SUMMARY_PREFIX, SCRIPTED_CALL_ID_PREFIX } from "../../src/model/script";
import type { MessagePart, TranscriptMessage } from "./dev-api";

/** How to recognise this run's user message in the session's transcript. */
export type RunAnchor = {
  /** The triggering comment: its user message is always `comment-<id>`. */
  commentId?: number;
  instruction: string;
  /** Message ids in the session before the dispatch; a run without a comment id is a new message. */
  knownMessageIds: ReadonlySet<string>;
};

export type RunEvent =
  | { key: string; kind: "text"; text: string }
  | { key: string; kind: "tool-call"; toolName: string; input: unknown }
  | { key: string; kind: "tool-result"; toolName: string; output: unknown }
  | { key: string; kind: "tool-error"; toolName: string; error: string };

/** This run's messages after its user message, or null while its user message is not in the transcript yet. */
export function runMessages(messages: readonly TranscriptMessage[], anchor: RunAnchor): TranscriptMessage[] | null {
  const start = messages.findIndex((message) => isRunMessage(message, anchor));
  if (start < 0) return null;
  const after = messages.slice(start + 1);
  const next = after.findIndex((message) => message.role === "user");
  return next < 0 ? after : after.slice(0, next);
}

function isRunMessage(message: TranscriptMessage, anchor: RunAnchor): boolean {
  if (message.role !== "user") return false;
  if (anchor.commentId !== undefined) return message.id === `comment-${anchor.commentId}`;
  if (anchor.knownMessageIds.has(message.id)) return false;
  const text = message.parts.find((part) => part.type === "text")?.text;
  return typeof text === "string" && parseEnvelope(text)?.instruction === anchor.instruction;
}

/** Every event in the assistant messages, in transcript order. Text still streaming is not an event yet. */
export function runEvents(messages: readonly TranscriptMessage[]): RunEvent[] {
  const events: RunEvent[] = [];
  const texts = new TextKeys();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.parts) {
      if (part.type === "text") {
        if (part.state === "streaming" || typeof part.text !== "string" || part.text.trim() === "") continue;
        events.push({ key: texts.next(part.text), kind: "text", text: part.text });
        continue;
      }
      const toolName = toolNameOf(part);
      const toolCallId = part.toolCallId;
      if (toolName === null || typeof toolCallId !== "string") continue;
      if (part.state === "input-streaming") continue;
      events.push({ key: callKey(toolCallId), kind: "tool-call", toolName, input: part.input });
      if (part.state === "output-available") {
        events.push({ key: resultKey(toolCallId), kind: "tool-result", toolName, output: part.output });
      } else if (part.state === "output-error" || part.state === "output-denied") {
        const error = typeof part.errorText === "string" ? part.errorText : part.state.replace("output-", "");
        events.push({ key: resultKey(toolCallId), kind: "tool-error", toolName, error });
      }
    }
  }
  return events;
}

export const callKey = (toolCallId: string) => `call:${toolCallId}`;
export const resultKey = (toolCallId: string) => `result:${toolCallId}`;

/** Keys for a run's texts, in order: the same text twice gets two keys. */
export class TextKeys {
  readonly #seen = new Map<string, number>();

  next(text: string): string {
    const content = text.trim();
    const occurrence = this.#seen.get(content) ?? 0;
    this.#seen.set(content, occurrence + 1);
    return `text:${occurrence}:${content}`;
  }
}

/** The events not printed yet; records them as printed. */
export function takeUnseen(events: readonly RunEvent[], printed: Set<string>): RunEvent[] {
  const fresh = events.filter((event) => !printed.has(event.key));
  for (const event of fresh) printed.add(event.key);
  return fresh;
}

function toolNameOf(part: MessagePart): string | null {
  if (part.type === "dynamic-tool") return typeof part.toolName === "string" ? part.toolName : null;
  return part.type.startsWith("tool-") ? part.type.slice("tool-".length) : null;
}

/**
 * Whether an event shows the run is on the scripted model: a tool call id the
 * scripted model gave (`scripted-…`), or a result whose summary says it is the
 * scripted demonstration. The transcript carries no model id, so these are the
 * marks there are.
 */
export function isScriptedEvent(event: RunEvent): boolean {
  if (event.kind === "text") return false;
  if (event.key.slice(event.key.indexOf(":") + 1).startsWith(SCRIPTED_CALL_ID_PREFIX)) return true;
  if (event.kind !== "tool-call" || event.toolName !== "report_result") return false;
  const summary = typeof event.input === "object" && event.input !== null ? (event.input as { summary?: unknown }).summary : undefined;
  return typeof summary === "string" && summary.startsWith(DEMO_SUMMARY_PREFIX);
}
