import { describe, expect, it } from "vitest";
import { handleAgentRoute, type AgentRouteDeps } from "../../src/http/agent-routes";
import { canonicalize } from "../../src/http/route-policy";

const KNOWN = "acme-widgets-1";

function deps() {
  const routed: string[] = [];
  const asked: string[] = [];
  const value: AgentRouteDeps = {
    knowsSession: async (session) => {
      asked.push(session);
      return session === KNOWN;
    },
    route: async (request) => {
      routed.push(new URL(request.url).pathname);
      return new Response("routed");
    }
  };
  return { value, routed, asked };
}

async function serve(path: string, init: RequestInit = {}) {
  const canonical = canonicalize(new Request(`https://agent-think.test${path}`, init));
  if (!canonical.ok) throw new Error(canonical.reason);
  const d = deps();
  const response = await handleAgentRoute(canonical.request, canonical.segments, d.value);
  return { status: response?.status, routed: d.routed, asked: d.asked };
}

const socket = { headers: { upgrade: "websocket" } };

describe("handleAgentRoute", () => {
  it("leaves other paths to the next handler", async () => {
    expect((await serve("/api/command-center")).status).toBeUndefined();
  });

  it("routes the dashboard's three requests", async () => {
    expect(await serve("/agents/command-center-agent/main", socket)).toMatchObject({ status: 200, routed: ["/agents/command-center-agent/main"] });
    expect(await serve(`/agents/think-agent/${KNOWN}`, socket)).toMatchObject({ status: 200, routed: [`/agents/think-agent/${KNOWN}`] });
    expect(await serve(`//agents/think-agent/${KNOWN}/get-messages`)).toMatchObject({ status: 200, routed: [`/agents/think-agent/${KNOWN}/get-messages`] });
  });

  it.each([
    ["another class", "/agents/workspace-agent/acme-widgets-1", socket],
    ["another class over HTTP", "/agents/workspace-agent/acme-widgets-1", {}],
    ["the sandbox", "/agents/sandbox/x", {}],
    ["the warm pool", "/agents/warm-pool/main", socket],
    ["a test agent", "/agents/reporting-think-agent/acme-widgets-1/get-messages", {}],
    ["another command center", "/agents/command-center-agent/other", socket],
    ["the command center over HTTP", "/agents/command-center-agent/main", {}],
    ["a sub-agent", `/agents/think-agent/${KNOWN}/sub/think-agent/x/get-messages`, {}],
    ["a sub-agent socket", `/agents/think-agent/${KNOWN}/sub/think-agent/x`, socket],
    ["a session name that is not one", "/agents/think-agent/Not-A-Session/get-messages", {}],
    ["a ThinkAgent over plain HTTP", `/agents/think-agent/${KNOWN}`, {}],
    ["another ThinkAgent sub-path", `/agents/think-agent/${KNOWN}/set-messages`, {}],
    ["get-messages as a socket", `/agents/think-agent/${KNOWN}/get-messages`, socket],
    ["a bare prefix", "/agents", {}]
  ])("refuses %s with a 404, routing nothing", async (_what, path, init) => {
    const result = await serve(path, init);
    expect(result.status).toBe(404);
    expect(result.routed).toEqual([]);
  });

  it("routes a ThinkAgent only for a session the command center knows", async () => {
    const unknown = await serve("/agents/think-agent/acme-widgets-999/get-messages");
    expect(unknown).toEqual({ status: 404, routed: [], asked: ["acme-widgets-999"] });
    expect((await serve("/agents/think-agent/acme-widgets-999", socket)).routed).toEqual([]);
  });

  it("answers 405 to a write to the transcript", async () => {
    expect(await serve(`/agents/think-agent/${KNOWN}/get-messages`, { method: "POST", body: "[]" })).toMatchObject({ status: 405, routed: [] });
  });
});
