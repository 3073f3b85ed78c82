/**
 * The slice of the agents chat WebSocket protocol that a read-only follower
 * needs: where a session's socket lives, what the server's frames mean, and
 * the one frame the follower sends back. Pure; `agent-socket.ts` owns the
 * socket and `live-run.ts` turns this run's chunks into printable events.
 *
 * Frames seen from Think 0.23 on `wrangler dev`; `id` is the request id, a
 * chunk's `body` the JSON of an AI SDK UIMessageChunk and `seq` its position
 * in the request's stream:
 *   { type: "cf_agent_use_chat_response", id, body, done: false, seq }
 *   the same with replay: true     (chunks replayed after a resume ack)
 *   { type: "cf_agent_use_chat_response", id, body: "", done: false, replay: true, replayComplete: true }
 *   { type: "cf_agent_use_chat_response", id, body: "<error text>", done: false, error: true }
 *   { type: "cf_agent_use_chat_response", id, body: "", done: true, outcome: "completed" | "error" | … }
 *   { type: "cf_agent_stream_resuming", id }
 *   { type: "cf_agent_chat_recovering", recovering: true | false, id? }
 *                                  (Think's chat recovery took an interrupted
 *                                  turn over, or that ended; `id` the turn's
 *                                  root request id; replayed on connect while set)
 * plus `cf_agent_chat_messages`, `cf_agent_identity`, `cf_agent_mcp_servers`
 * and `cf_agent_stream_pending`, which a follower ignores. It deliberately
 * sends nothing that changes the session (no chat request, clear or cancel).
 */
import { z } from "zod";

/** `ThinkAgent` kebab-cased: the namespace `routeAgentRequest` serves it under. */
export const AGENT_NAMESPACE = "think-agent";

/** A chunk of the UI message stream; only `type` is checked, the rest is read where used. */
export type StreamChunk = { type: string; [field: string]: unknown };

export type AgentFrame =
  /** One chunk of a request's stream, live or replayed after a resume. */
  | { kind: "chunk"; requestId: string; chunk: StreamChunk; seq?: number; replay: boolean }
  /** The request's stream ended; `outcome` is "completed", "error", "aborted", "skipped" or "recovering". */
  | { kind: "end"; requestId: string; outcome: string; error?: string }
  /** The request's stream failed and no more chunks follow. */
  | { kind: "error"; requestId: string; error: string }
  /** A stream is running; the server holds this connection's live chunks back until it is acknowledged. */
  | { kind: "resuming"; requestId: string }
  /** Think's chat recovery is resuming an interrupted turn (true), or no longer is (false). */
  | { kind: "recovering"; recovering: boolean; requestId?: string }
  | { kind: "ignored" };

const chatResponseSchema = z.looseObject({
  type: z.literal("cf_agent_use_chat_response"),
  id: z.string(),
  body: z.string().optional(),
  done: z.boolean().optional(),
  error: z.boolean().optional(),
  replay: z.boolean().optional(),
  seq: z.number().optional(),
  outcome: z.string().optional()
});

const resumingSchema = z.looseObject({ type: z.literal("cf_agent_stream_resuming"), id: z.string() });

const recoveringSchema = z.looseObject({
  type: z.literal("cf_agent_chat_recovering"),
  recovering: z.boolean(),
  id: z.string().optional()
});

const chunkSchema = z.looseObject({ type: z.string() });

const IGNORED: AgentFrame = { kind: "ignored" };

export function parseAgentFrame(data: unknown): AgentFrame {
  if (typeof data !== "string") return IGNORED;
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return IGNORED;
  }
  const resuming = resumingSchema.safeParse(json);
  if (resuming.success) return { kind: "resuming", requestId: resuming.data.id };
  const recovering = recoveringSchema.safeParse(json);
  if (recovering.success) {
    const { recovering: on, id } = recovering.data;
    return { kind: "recovering", recovering: on, ...(id === undefined ? {} : { requestId: id }) };
  }
  const frame = chatResponseSchema.safeParse(json);
  if (!frame.success) return IGNORED;
  const { id: requestId, body = "", done = false, error = false, replay = false, seq, outcome } = frame.data;
  // An error frame's body is the error text, not a chunk.
  if (error) {
    const text = body || "the stream failed";
    return done ? { kind: "end", requestId, outcome: "error", error: text } : { kind: "error", requestId, error: text };
  }
  if (done) return { kind: "end", requestId, outcome: outcome ?? "completed" };
  const chunk = chunkSchema.safeParse(parseJson(body));
  if (!chunk.success) return IGNORED; // e.g. the empty body that marks the end of a replay
  return { kind: "chunk", requestId, chunk: chunk.data, replay, ...(seq === undefined ? {} : { seq }) };
}

/** What a follower answers to `cf_agent_stream_resuming`: replay what was missed, then send live chunks. */
export function resumeAckFrame(requestId: string): string {
  return JSON.stringify({ type: "cf_agent_stream_resume_ack", id: requestId });
}

/** `http://host:8787` + a session → `ws://host:8787/agents/think-agent/<session>`. */
export function agentSocketUrl(baseUrl: string, session: string): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/agents/${AGENT_NAMESPACE}/${encodeURIComponent(session)}`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
