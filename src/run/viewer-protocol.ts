/**
 * What a WebSocket client of a ThinkAgent may send: only what a viewer needs
 * to follow a run (ask for, and acknowledge, the replay of a stream in
 * flight). Runs start through `dispatch`, never through the chat protocol, so
 * chat requests, clears, cancels, tool results and state writes from a
 * socket are refused. Pure; wired in by ThinkAgent.
 */
export const VIEWER_MESSAGE_TYPES: ReadonlySet<string> = new Set([
  "cf_agent_stream_resume_request",
  "cf_agent_stream_resume_ack"
]);

export function isViewerMessage(message: unknown): boolean {
  if (typeof message !== "string") return false;
  try {
    const parsed: unknown = JSON.parse(message);
    return (
      typeof parsed === "object" &&
      parsed !== null &&
      VIEWER_MESSAGE_TYPES.has((parsed as { type?: unknown }).type as string)
    );
  } catch {
    return false;
  }
}

export function refusalFrame(message: unknown): string {
  let type: unknown;
  try {
    type = typeof message === "string" ? (JSON.parse(message) as { type?: unknown }).type : undefined;
  } catch {
    type = undefined;
  }
  return JSON.stringify({
    type: "agent-think:refused",
    refused: typeof type === "string" ? type : "unknown",
    reason: "this connection is read-only: runs start through dispatch"
  });
}
