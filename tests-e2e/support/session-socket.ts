/**
 * A session's agent WebSocket (`/agents/think-agent/<session>`) followed the
 * way the dashboard and `npm run dispatch` follow it, keeping every text
 * frame the server sent, raw, for tests that look for what must not be in
 * them. It carries the caller's headers (an Access cookie, an Origin: Node
 * 22's WebSocket takes them as a non-standard init), asks whether a stream
 * is running (`cf_agent_stream_resume_request`) and acknowledges every
 * resume offer, so a stream already under way replays to it and its live
 * chunks follow (scripts/lib/agent-frames.ts explains the protocol).
 *
 * A run's thread becomes routable a moment after its dispatch (the command
 * center learns of it in the background), so opening retries until the
 * upgrade succeeds or the deadline passes. Sends nothing else.
 */
import { agentSocketUrl, resumeAckFrame } from "../../scripts/lib/agent-frames";

export type SessionSocket = {
  /** Every text frame so far, in order. */
  frames: string[];
  close(): void;
};

type NodeWebSocket = {
  addEventListener(type: "open" | "message" | "error" | "close", listener: (event: { data?: unknown }) => void): void;
  send(data: string): void;
  close(code?: number, reason?: string): void;
};
type NodeWebSocketConstructor = new (url: string, init: { headers: Record<string, string> }) => NodeWebSocket;

const RETRY_MS = 100;
const NORMAL_CLOSURE = 1000;

export async function followSession(
  baseUrl: string,
  session: string,
  headers: Record<string, string>,
  options: { connectTimeoutMs?: number } = {}
): Promise<SessionSocket> {
  const deadline = Date.now() + (options.connectTimeoutMs ?? 10_000);
  let lastError = "";
  while (Date.now() < deadline) {
    const opened = await openOnce(agentSocketUrl(baseUrl, session), headers);
    if (opened.ok) return opened.socket;
    lastError = opened.reason;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  throw new Error(`could not follow ${session}: ${lastError}`);
}

function openOnce(url: string, headers: Record<string, string>): Promise<{ ok: true; socket: SessionSocket } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    const socket = new (WebSocket as unknown as NodeWebSocketConstructor)(url, { headers });
    const frames: string[] = [];
    let open = false;
    socket.addEventListener("message", ({ data }) => {
      if (typeof data !== "string") return;
      frames.push(data);
      const offer = resumeOffer(data);
      if (offer !== undefined) socket.send(resumeAckFrame(offer));
    });
    socket.addEventListener("open", () => {
      open = true;
      socket.send(JSON.stringify({ type: "cf_agent_stream_resume_request" }));
      resolve({ ok: true, socket: { frames, close: () => socket.close(NORMAL_CLOSURE, "followed") } });
    });
    // Before the open, an error or a close means the upgrade was refused (e.g. 404: the thread is not known yet).
    const refused = () => {
      if (!open) resolve({ ok: false, reason: "the upgrade was refused" });
    };
    socket.addEventListener("error", refused);
    socket.addEventListener("close", refused);
  });
}

/** The request id of a `cf_agent_stream_resuming` frame, else undefined. */
function resumeOffer(text: string): string | undefined {
  try {
    const frame = JSON.parse(text) as { type?: unknown; id?: unknown };
    return frame.type === "cf_agent_stream_resuming" && typeof frame.id === "string" ? frame.id : undefined;
  } catch {
    return undefined;
  }
}
