import { describe, expect, it } from "vitest";
import type { TranscriptMessage } from "../../../src/shared/dispatch";
import { TranscriptFeed } from "../../../src/ui/hooks/transcript-feed";

function setup() {
  const sent: Array<Record<string, unknown>> = [];
  let n = 0;
  const feed = new TranscriptFeed({ send: (frame) => sent.push(JSON.parse(frame)), createId: () => `id-${++n}` });
  const frame = (value: object) => feed.receive(JSON.stringify(value));
  const chunk = (id: string, body: object, extra: object = {}) =>
    frame({ type: "cf_agent_use_chat_response", id, body: JSON.stringify(body), done: false, ...extra });
  return { feed, sent, frame, chunk };
}

const userMessage: TranscriptMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "hello" }] };

describe("TranscriptFeed", () => {
  it("sends only the resume handshake: a request on open, one ACK per offered stream", () => {
    const { feed, sent, frame } = setup();
    feed.opened();
    frame({ type: "cf_agent_stream_resuming", id: "req-1" });
    frame({ type: "cf_agent_stream_resuming", id: "req-1", probeId: "id-1" });
    expect(sent).toEqual([
      { type: "cf_agent_stream_resume_request", probeId: "id-1" },
      { type: "cf_agent_stream_resume_ack", id: "req-1" }
    ]);
    expect(feed.snapshot.streaming).toBe(true);
  });

  it("takes the transcript sent on connect", () => {
    const { feed, frame } = setup();
    frame({ type: "cf_agent_chat_messages", messages: [userMessage], connect: true });
    expect(feed.snapshot).toMatchObject({ messages: [userMessage], synced: true, streaming: false });
  });

  it("follows a turn: replay up to now, then live chunks, text and a tool call", () => {
    const { feed, frame, chunk } = setup();
    const changes: number[] = [];
    feed.subscribe(() => changes.push(feed.snapshot.messages.length));
    frame({ type: "cf_agent_chat_messages", messages: [userMessage], connect: true });
    frame({ type: "cf_agent_stream_resuming", id: "req-1" });

    chunk("req-1", { type: "start", messageId: "a1" }, { replay: true });
    chunk("req-1", { type: "start-step" }, { replay: true });
    chunk("req-1", { type: "text-start", id: "t1" }, { replay: true });
    chunk("req-1", { type: "text-delta", id: "t1", delta: "Repro" }, { replay: true });
    // Replayed chunks are applied together once the replay is complete.
    expect(feed.snapshot.messages).toHaveLength(1);
    frame({ type: "cf_agent_use_chat_response", id: "req-1", body: "", done: false, replay: true, replayComplete: true });
    expect(feed.snapshot.messages.at(-1)).toMatchObject({ id: "a1", role: "assistant", parts: [{ type: "step-start" }, { type: "text", text: "Repro" }] });

    chunk("req-1", { type: "text-delta", id: "t1", delta: "ducing." });
    chunk("req-1", { type: "text-end", id: "t1" });
    chunk("req-1", { type: "tool-input-start", toolCallId: "c1", toolName: "bash" });
    chunk("req-1", { type: "tool-input-available", toolCallId: "c1", toolName: "bash", input: { command: "ls" } });
    expect(feed.snapshot.messages.at(-1)!.parts.at(-1)).toMatchObject({ type: "tool-bash", state: "input-available", input: { command: "ls" } });
    chunk("req-1", { type: "tool-output-available", toolCallId: "c1", output: { exitCode: 0 } });
    chunk("req-1", { type: "finish" });
    frame({ type: "cf_agent_use_chat_response", id: "req-1", body: "", done: true });

    const last = feed.snapshot.messages.at(-1)!;
    expect(last.parts.find((part) => part.type === "text")).toMatchObject({ text: "Reproducing." });
    expect(last.parts.find((part) => part.type === "tool-bash")).toMatchObject({ state: "output-available", output: { exitCode: 0 } });
    expect(feed.snapshot.streaming).toBe(false);
    expect(changes.length).toBeGreaterThan(3);

    const persisted = { id: "a1", role: "assistant", parts: [{ type: "text", text: "Reproducing." }] };
    frame({ type: "cf_agent_chat_messages", messages: [userMessage, persisted] });
    expect(feed.snapshot.messages).toEqual([userMessage, persisted]);
  });

  it("keeps the live message when a transcript broadcast lands mid-stream", () => {
    const { feed, frame, chunk } = setup();
    chunk("req-1", { type: "start", messageId: "a1" });
    chunk("req-1", { type: "text-start", id: "t1" });
    chunk("req-1", { type: "text-delta", id: "t1", delta: "Hello there" });
    frame({ type: "cf_agent_chat_messages", messages: [userMessage, { id: "a1", role: "assistant", parts: [{ type: "text", text: "Hello" }] }] });
    expect(feed.snapshot.messages.at(-1)!.parts[0]).toMatchObject({ text: "Hello there" });
  });

  it("ignores a replay nobody asked for and the end of a stream it never saw", () => {
    const { feed, chunk, frame } = setup();
    chunk("req-9", { type: "start", messageId: "x" }, { replay: true });
    frame({ type: "cf_agent_use_chat_response", id: "req-9", body: "", done: true });
    expect(feed.snapshot).toMatchObject({ messages: [], streaming: false });
  });

  it("reports a failed turn, and clears it when the next turn starts", () => {
    const { feed, frame, chunk } = setup();
    frame({ type: "cf_agent_stream_resuming", id: "req-1" });
    frame({ type: "cf_agent_use_chat_response", id: "req-1", body: "model exploded", done: true, error: true });
    expect(feed.snapshot).toMatchObject({ turnError: "model exploded", streaming: false });
    chunk("req-2", { type: "start", messageId: "a2" });
    expect(feed.snapshot).toMatchObject({ turnError: null, streaming: true });
  });

  it("tracks recovery, refusals, message updates and clears", () => {
    const { feed, frame } = setup();
    frame({ type: "cf_agent_chat_recovering", recovering: true });
    expect(feed.snapshot.recovering).toBe(true);
    frame({ type: "agent-think:refused", refused: "cf_agent_use_chat_request" });
    expect(feed.snapshot.refused).toBe("cf_agent_use_chat_request");
    frame({ type: "cf_agent_chat_messages", messages: [userMessage, { id: "a1", role: "assistant", parts: [{ type: "tool-bash", toolCallId: "c1", state: "input-available" }] }] });
    frame({ type: "cf_agent_message_updated", message: { id: "other", role: "assistant", parts: [{ type: "tool-bash", toolCallId: "c1", state: "output-available", output: 1 }] } });
    expect(feed.snapshot.messages[1]).toMatchObject({ id: "a1", parts: [{ state: "output-available" }] });
    frame({ type: "cf_agent_chat_clear" });
    expect(feed.snapshot.messages).toEqual([]);
  });

  it("takes an HTTP transcript until the socket has synced, and again after it closed", () => {
    const { feed, frame } = setup();
    feed.loaded([userMessage]);
    expect(feed.snapshot.messages).toEqual([userMessage]);
    frame({ type: "cf_agent_chat_messages", messages: [] });
    feed.loaded([userMessage]);
    expect(feed.snapshot.messages).toEqual([]);
    feed.closed();
    feed.loaded([userMessage]);
    expect(feed.snapshot.messages).toEqual([userMessage]);
  });

  it("ignores frames of other protocols and junk", () => {
    const { feed } = setup();
    const before = feed.snapshot;
    feed.receive(JSON.stringify({ type: "cf_agent_state", state: {} }));
    feed.receive("not json");
    feed.receive(new ArrayBuffer(2));
    expect(feed.snapshot).toBe(before);
  });
});
