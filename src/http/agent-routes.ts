/**
 * `/agents/*`: only what the dashboard reads, and only for threads that
 * exist: the command center's socket at `main`, and a ThinkAgent's socket
 * and `get-messages` for a session the command center has a thread for.
 * Everything else is a 404 before `routeAgentRequest` runs, so a request
 * from outside never creates a Durable Object. Reached with the canonical
 * request's segments (route-policy.ts). Pure: the command center and the
 * router are `deps`. docs/security.md, "The HTTP boundary: one gate".
 */
import { isSessionName } from "../shared/session-name";
import { COMMAND_CENTER_NAME } from "../shared/command-center";
import { json, notFound } from "./responses";

export const THINK_AGENT_ROUTE = "think-agent";
export const COMMAND_CENTER_ROUTE = "command-center-agent";

export type AgentRouteDeps = {
  /** Whether the command center has a thread for this session. */
  knowsSession(session: string): Promise<boolean>;
  /** `routeAgentRequest` for a request this module has allowed. */
  route(request: Request): Promise<Response | null>;
};

export async function handleAgentRoute(request: Request, segments: readonly string[], deps: AgentRouteDeps): Promise<Response | null> {
  if (segments[0] !== "agents") return null;
  const [, agent, name, action, ...rest] = segments;
  const upgrade = request.headers.get("upgrade")?.toLowerCase() === "websocket";

  if (agent === COMMAND_CENTER_ROUTE && name === COMMAND_CENTER_NAME && action === undefined && upgrade) {
    return (await deps.route(request)) ?? notFound();
  }
  if (agent !== THINK_AGENT_ROUTE || name === undefined || !isSessionName(name) || rest.length > 0) return notFound();
  const socket = action === undefined && upgrade;
  const transcript = action === "get-messages" && !upgrade;
  if (!socket && !transcript) return notFound();
  if (transcript && request.method !== "GET" && request.method !== "HEAD") return json({ error: "method not allowed" }, 405, { allow: "GET" });
  if (!(await deps.knowsSession(name))) return notFound();
  return (await deps.route(request)) ?? notFound();
}
