/**
 * A read-only subscription to a session's agent WebSocket, for
 * `npm run dispatch`: connect (or give up after a deadline, never throwing),
 * acknowledge every stream-resume offer, and hand parsed frames to one
 * listener, holding those that arrive before it is attached (the run's first
 * chunks can beat the dispatch answer that names the run).
 *
 * Why acknowledge every offer: a connection that arrives while a stream is
 * running, or while a turn is about to start one, is offered a resume, and
 * Think withholds that stream's live chunks from it until it acknowledges;
 * the acknowledgement replays what was missed. Offers for other turns are
 * acknowledged too (their chunks are then ignored by request id), since the
 * follower cannot tell them apart before the dispatch answers.
 *
 * It does not reconnect: after a drop the poll is the fallback. It takes the
 * socket constructor as a parameter so its protocol is tested with a fake.
 */
import { parseAgentFrame, resumeAckFrame, type AgentFrame } from "./agent-frames";

/** The part of the WHATWG WebSocket this uses (Node 22 has it as a global). */
export type SocketLike = {
  addEventListener(type: "open" | "message" | "error" | "close", listener: (event: SocketEvent) => void): void;
  send(data: string): void;
  close(code?: number, reason?: string): void;
};
export type SocketEvent = { type: string; data?: unknown; code?: number; reason?: string; message?: unknown };
export type CreateSocket = (url: string) => SocketLike;

// Frames kept until the listener is attached; a run's first seconds are far fewer.
const MAX_HELD_FRAMES = 10_000;
// A close frame without a status code is never echoed by the server, and
// Node then waits 10 s before giving up; 1000 ("normal") closes at once.
const NORMAL_CLOSURE = 1000;

export type AgentSocketOpen = { ok: true; socket: AgentSocket } | { ok: false; reason: string };

export function openAgentSocket(options: {
  url: string;
  connectTimeoutMs: number;
  createSocket?: CreateSocket;
}): Promise<AgentSocketOpen> {
  const createSocket = options.createSocket ?? ((url) => new WebSocket(url));
  return new Promise((resolve) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (result: AgentSocketOpen) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let raw: SocketLike;
    try {
      raw = createSocket(options.url);
    } catch (error) {
      settle({ ok: false, reason: describe(error) });
      return;
    }
    const socket = new AgentSocket(raw);
    timer = setTimeout(() => {
      socket.close();
      settle({ ok: false, reason: `no connection after ${options.connectTimeoutMs} ms` });
    }, options.connectTimeoutMs);
    raw.addEventListener("open", () => settle({ ok: true, socket }));
    raw.addEventListener("error", (event) => {
      if (settled) return; // after the open, a drop is the socket's to report
      socket.close();
      settle({ ok: false, reason: describe(event.message ?? "connection failed") });
    });
    raw.addEventListener("close", (event) => settle({ ok: false, reason: closeReason(event) }));
  });
}

export class AgentSocket {
  readonly #raw: SocketLike;
  #held: AgentFrame[] = [];
  #onFrame: ((frame: AgentFrame) => void) | null = null;
  #onDrop: ((reason: string) => void) | null = null;
  #dropped: string | null = null;
  #closed = false;

  constructor(raw: SocketLike) {
    this.#raw = raw;
    raw.addEventListener("message", (event) => this.#receive(event.data));
    raw.addEventListener("close", (event) => this.#drop(closeReason(event)));
    raw.addEventListener("error", (event) => this.#drop(describe(event.message ?? "connection failed")));
  }

  /** Attach the one listener: held frames first, then each frame as it arrives. */
  listen(onFrame: (frame: AgentFrame) => void, onDrop: (reason: string) => void): void {
    this.#onFrame = onFrame;
    this.#onDrop = onDrop;
    const held = this.#held;
    this.#held = [];
    for (const frame of held) onFrame(frame);
    if (this.#dropped !== null) onDrop(this.#dropped);
  }

  /** Idempotent; a drop after this is not reported. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#raw.close(NORMAL_CLOSURE, "run followed");
    } catch {
      // Closing a socket that never opened can throw; there is nothing left to release.
    }
  }

  #receive(data: unknown): void {
    if (this.#closed) return;
    const frame = parseAgentFrame(data);
    if (frame.kind === "ignored") return;
    if (frame.kind === "resuming") this.#send(resumeAckFrame(frame.requestId));
    if (this.#onFrame) this.#onFrame(frame);
    else if (this.#held.length < MAX_HELD_FRAMES) this.#held.push(frame);
  }

  #send(data: string): void {
    try {
      this.#raw.send(data);
    } catch {
      // A socket closing under us: the poll still covers the run.
    }
  }

  #drop(reason: string): void {
    if (this.#closed || this.#dropped !== null) return;
    this.#dropped = reason;
    this.#onDrop?.(reason);
  }
}

function closeReason(event: SocketEvent): string {
  const code = typeof event.code === "number" ? ` (code ${event.code})` : "";
  return `${typeof event.reason === "string" && event.reason !== "" ? event.reason : "connection closed"}${code}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
