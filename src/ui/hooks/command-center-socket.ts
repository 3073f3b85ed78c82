/**
 * The command center's live socket, its own chunk: the agents client (and
 * the RPC library it brings) loads after the first paint, which the inline
 * snapshot or the API feeds. use-command-center.ts imports it lazily.
 */
import { AgentClient } from "agents/client";
import { browser } from "../browser";

export type SocketHandlers = { onOpen(): void; onClose(): void; onState(state: unknown): void };

/** Opens the socket (it reconnects by itself); the returned function closes it for good. */
export function openCommandCenterSocket(agent: string, name: string, handlers: SocketHandlers): () => void {
  const client = new AgentClient({ agent, name, host: browser.location.host, onStateUpdate: (state) => handlers.onState(state) });
  client.addEventListener("open", () => handlers.onOpen());
  client.addEventListener("close", () => handlers.onClose());
  return () => client.close();
}
