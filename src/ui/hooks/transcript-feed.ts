/**
 * A read-only follower of one ThinkAgent's chat protocol: the transcript
 * and the turn streaming right now, from the frames its WebSocket sends. It
 * only ever sends the stream-resume handshake, and folds chunks into
 * messages with the `agents` broadcast-stream state machine, so it needs
 * neither `@ai-sdk/react` nor the chat transport (docs/dashboard.md,
 * "Reading the wire"). No React and no DOM here: `useThreadTranscript`
 * wires it to a socket; tests drive it with frames.
 */
import { broadcastTransition } from "agents/chat";
import type { UIMessage } from "ai";
import type { TranscriptMessage } from "../../shared/dispatch";

type BroadcastState = Parameters<typeof broadcastTransition>[0];

export type FeedSnapshot = {
  messages: TranscriptMessage[];
  /** A turn is streaming (or replaying) on the socket. */
  streaming: boolean;
  /** The server is recovering an interrupted turn. */
  recovering: boolean;
  /** The last turn ended with this error. */
  turnError: string | null;
  /** The transcript came from the socket since it last opened (not only from HTTP). */
  synced: boolean;
  /** The server refused a frame (never expected: this feed sends only the handshake). */
  refused: string | null;
};

type Frame = { type?: unknown; [field: string]: unknown };

const textOf = (message: UIMessage) =>
  message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");

export class TranscriptFeed {
  #send: (frame: string) => void;
  #createId: () => string;
  #state: BroadcastState = { status: "idle" };
  #ackedStreams = new Set<string>();
  #listeners = new Set<() => void>();
  #snapshot: FeedSnapshot = {
    messages: [],
    streaming: false,
    recovering: false,
    turnError: null,
    synced: false,
    refused: null
  };

  constructor(options: { send: (frame: string) => void; createId: () => string }) {
    this.#send = options.send;
    this.#createId = options.createId;
  }

  get snapshot(): FeedSnapshot {
    return this.#snapshot;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  getSnapshot = (): FeedSnapshot => this.#snapshot;

  /** The socket (re)opened: ask whether a turn is in flight. The server also says so by itself. */
  opened(): void {
    this.#ackedStreams.clear();
    this.#send(JSON.stringify({ type: "cf_agent_stream_resume_request", probeId: this.#createId() }));
  }

  /** The socket closed: a partly seen stream is replayed from its start on reconnect. */
  closed(): void {
    this.#state = broadcastTransition(this.#state, { type: "clear" }).state;
    this.#ackedStreams.clear();
    this.#update({ streaming: false, synced: false });
  }

  /** A transcript fetched over HTTP (first paint, or polling while the socket is down). */
  loaded(messages: readonly TranscriptMessage[]): void {
    if (this.#snapshot.synced) return;
    this.#update({ messages: [...messages] });
  }

  /** One frame from the socket. Frames of other protocols (state, identity, rpc) are ignored. */
  receive(raw: unknown): void {
    if (typeof raw !== "string") return;
    let frame: Frame;
    try {
      frame = JSON.parse(raw) as Frame;
    } catch {
      return;
    }
    if (!frame || typeof frame !== "object") return;
    switch (frame.type) {
      case "cf_agent_chat_messages":
        if (Array.isArray(frame.messages)) this.#replaceMessages(frame.messages as UIMessage[]);
        return;
      case "cf_agent_message_updated":
        if (frame.message && typeof frame.message === "object") this.#updateMessage(frame.message as UIMessage);
        return;
      case "cf_agent_chat_clear":
        this.#state = { status: "idle" };
        this.#update({ messages: [], streaming: false, turnError: null });
        return;
      case "cf_agent_chat_recovering":
        this.#update({ recovering: Boolean(frame.recovering) });
        return;
      case "cf_agent_stream_resuming":
        if (typeof frame.id === "string") this.#resume(frame.id);
        return;
      case "cf_agent_stream_resume_none":
        if (frame.reason === "idle" || frame.reason === undefined) {
          this.#state = broadcastTransition(this.#state, { type: "clear" }).state;
          this.#update({ streaming: false });
        }
        return;
      case "cf_agent_use_chat_response":
        if (typeof frame.id === "string") this.#response(frame.id, frame);
        return;
      case "agent-think:refused":
        this.#update({ refused: typeof frame.refused === "string" ? frame.refused : "unknown" });
        return;
      default:
        return;
    }
  }

  #resume(streamId: string): void {
    // The server may offer the same stream twice (on connect and in answer to
    // our request); one ACK, one replay.
    if (this.#ackedStreams.has(streamId)) return;
    this.#ackedStreams.add(streamId);
    this.#state = broadcastTransition(this.#state, { type: "resume-fallback", streamId, messageId: this.#createId() }).state;
    this.#send(JSON.stringify({ type: "cf_agent_stream_resume_ack", id: streamId }));
    this.#update({ streaming: true, turnError: null });
  }

  #response(streamId: string, frame: Frame): void {
    const observing = this.#state.status === "observing" && this.#state.streamId === streamId;
    // A replay belongs to a stream we asked for; a bare one is someone else's.
    if (frame.replay === true && this.#state.status !== "observing") return;
    if (frame.error === true) {
      if (this.#state.status === "idle" || observing) this.#state = broadcastTransition(this.#state, { type: "clear" }).state;
      const body = typeof frame.body === "string" && frame.body.trim() ? frame.body.trim() : "the turn failed";
      this.#update({ streaming: false, recovering: false, turnError: body });
      return;
    }
    // The end of a stream this feed never saw: the transcript broadcast that
    // follows it carries the result.
    if (frame.done === true && !observing) {
      this.#update({ streaming: false });
      return;
    }
    let chunkData: unknown;
    if (typeof frame.body === "string" && frame.body.trim()) {
      try {
        chunkData = JSON.parse(frame.body);
      } catch {
        chunkData = undefined;
      }
    }
    const startsTurn = (chunkData as { type?: unknown } | undefined)?.type === "start" && frame.replay !== true;
    const result = broadcastTransition(this.#state, {
      type: "response",
      streamId,
      messageId: this.#createId(),
      chunkData,
      done: frame.done === true,
      replay: frame.replay === true,
      replayComplete: frame.replayComplete === true,
      continuation: frame.continuation === true
    });
    this.#state = result.state;
    const messages = result.messagesUpdate
      ? (result.messagesUpdate(this.#snapshot.messages as UIMessage[]) as unknown as TranscriptMessage[])
      : this.#snapshot.messages;
    this.#update({
      messages,
      streaming: result.isStreaming,
      ...(startsTurn ? { turnError: null } : {}),
      ...(frame.done === true && frame.outcome !== "recovering" ? { recovering: false } : {})
    });
  }

  #replaceMessages(incoming: UIMessage[]): void {
    let next = incoming;
    const state = this.#state;
    // A transcript broadcast mid-stream holds the message as last persisted;
    // the live accumulator is that plus more, unless it diverged.
    if (state.status === "observing" && state.accumulator.parts.length > 0) {
      const stored = next.find((message) => message.id === state.accumulator.messageId);
      const liveText = state.accumulator.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
      const storedParts = stored ? stored.parts.length : 0;
      if (state.accumulator.parts.length >= storedParts && (!stored || liveText.startsWith(textOf(stored)))) {
        next = state.accumulator.mergeInto(next);
      }
    }
    this.#update({ messages: next as unknown as TranscriptMessage[], synced: true });
  }

  #updateMessage(updated: UIMessage): void {
    const messages = this.#snapshot.messages as unknown as UIMessage[];
    let index = messages.findIndex((message) => message.id === updated.id);
    if (index < 0) {
      const ids = new Set(
        updated.parts.flatMap((part) => ("toolCallId" in part && typeof part.toolCallId === "string" ? [part.toolCallId] : []))
      );
      if (ids.size > 0) {
        index = messages.findIndex((message) =>
          message.parts.some((part) => "toolCallId" in part && typeof part.toolCallId === "string" && ids.has(part.toolCallId))
        );
      }
    }
    if (index < 0) return;
    const next = [...messages];
    next[index] = { ...updated, id: messages[index]!.id };
    this.#update({ messages: next as unknown as TranscriptMessage[] });
  }

  #update(patch: Partial<FeedSnapshot>): void {
    this.#snapshot = { ...this.#snapshot, ...patch };
    for (const listener of this.#listeners) listener();
  }
}
