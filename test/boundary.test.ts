/**
 * The HTTP boundary tried as an attacker would, through the real default
 * fetch in workerd: spellings of paths, Durable Objects a stranger could
 * create, state a socket could write, and cross-site requests to local dev.
 * (The same with Access configured, against `wrangler dev`, is
 * tests-e2e/access-boundary.test.ts.)
 */
import { env, exports } from "cloudflare:workers";
import { listDurableObjectIds } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { sessionName } from "../src/run/session-name";
import { agentFor, uniqueRepo, waitForStatus } from "./helpers";

// The test Worker runs with LOCAL_DEV=1, which answers only loopback hosts.
const BASE = "http://127.0.0.1:8787";
const fetchWorker = (path: string, init?: RequestInit) => exports.default.fetch(`${BASE}${path}`, init);

async function finishedRun(instruction = "TEST: reply seen") {
  const { session, submissionId } = await exports.AgentThink.dispatch({ repo: uniqueRepo(), issueNumber: 2, instruction, installationToken: "" });
  await waitForStatus(await agentFor(session), submissionId);
  // The command center hears of the thread fire-and-forget.
  await vi.waitFor(async () => expect((await fetchWorker(`/agents/think-agent/${session}/get-messages`)).status).toBe(200));
  return session;
}

/** Every object of a class created so far (the namespace's own type parameter does not matter here). */
const ids = async (namespace: unknown) =>
  new Set((await listDurableObjectIds(namespace as DurableObjectNamespace<undefined>)).map((id) => id.toString()));

describe("paths around the routes", () => {
  it("serves every spelling of a transcript path as the one canonical path", async () => {
    const session = await finishedRun();
    for (const path of [
      `//agents/think-agent/${session}/get-messages`,
      `/agents//think-agent/${session}/get-messages`,
      `/x/../agents/think-agent/${session}/get-messages`,
      `/%61gents/think%2Dagent/${session}/get-messages`
    ]) {
      const response = await fetchWorker(path);
      expect(response.status, path).toBe(200);
      expect(await response.text(), path).toContain("seen");
    }
  });

  it("answers 400 to a path with no canonical form", async () => {
    for (const path of ["/repro/%E0%A4%A", "/agents/think-agent/%E0%A4%A/get-messages", "/%zz", "/agents/think-agent%2Fx/a-b-1"]) {
      const response = await fetchWorker(path);
      expect(response.status, path).toBe(400);
      expect(((await response.json()) as { error: string }).error, path).toMatch(/^bad request: /);
    }
  });
});

describe("/agents/* from outside", () => {
  it("routes only what the dashboard needs, and creates no object for anything else", async () => {
    const session = await finishedRun();
    const unknown = sessionName(uniqueRepo(), 999);
    const stranger = `stranger-${crypto.randomUUID().slice(0, 8)}`;
    const [thinkBefore, workspaceBefore] = [await ids(env.ThinkAgent), await ids(env.WorkspaceAgent)];
    const socket = { headers: { upgrade: "websocket" } };
    for (const [path, init] of [
      [`/agents/think-agent/${unknown}/get-messages`, {}],
      [`/agents/think-agent/${unknown}`, socket],
      [`/agents/think-agent/${stranger}/get-messages`, {}],
      [`/agents/workspace-agent/${session}`, socket],
      [`/agents/workspace-agent/${stranger}`, {}],
      [`/agents/think-agent/${session}/sub/think-agent/${stranger}/get-messages`, {}],
      [`/agents/think-agent/${session}/sub/think-agent/${stranger}`, socket],
      [`/agents/reporting-think-agent/${session}/get-messages`, {}],
      ["/agents/sandbox/x", {}],
      ["/agents/warm-pool/main", socket],
      [`/agents/command-center-agent/${stranger}`, socket]
    ] as const) {
      const response = await fetchWorker(path, init);
      expect(response.status, path).toBe(404);
    }
    expect(await ids(env.ThinkAgent)).toEqual(thinkBefore);
    expect(await ids(env.WorkspaceAgent)).toEqual(workspaceBefore);
    expect(thinkBefore.has(env.ThinkAgent.idFromName(unknown).toString())).toBe(false);
  });

  it("gives a ThinkAgent socket no way to write state or call the agent", async () => {
    const session = await finishedRun();
    const response = await fetchWorker(`/agents/think-agent/${session}`, { headers: { upgrade: "websocket" } });
    expect(response.status).toBe(101);
    const socket = response.webSocket!;
    const frames: Array<{ type: string; refused?: string }> = [];
    socket.addEventListener("message", (event) => frames.push(JSON.parse(String(event.data))));
    socket.accept();
    socket.send(JSON.stringify({ type: "cf_agent_state", state: { forged: "x".repeat(1_000) } }));
    socket.send(JSON.stringify({ type: "rpc", id: "r1", method: "approveExecution", args: ["x"] }));
    socket.send(JSON.stringify({ type: "rpc", id: "r2", method: "startRun", args: [{}] }));
    await vi.waitFor(() => expect(frames.filter((frame) => frame.type === "agent-think:refused")).toHaveLength(3));
    expect(frames.some((frame) => frame.type === "rpc")).toBe(false);
    socket.close(1000);
  });
});

describe("local dev from another site", () => {
  it("refuses a cross-site form post to /dev/dispatch (it started a run before)", async () => {
    const repo = uniqueRepo();
    const response = await fetchWorker("/dev/dispatch", {
      method: "POST",
      headers: { "content-type": "text/plain", origin: "http://evil.example", "sec-fetch-site": "cross-site" },
      body: JSON.stringify({ repo, issueNumber: 1, instruction: "TEST: reply pwned" })
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: "forbidden: cross-site request" });
    expect(await (await agentFor(sessionName(repo, 1))).transcript()).toEqual([]);
  });

  it("refuses a non-JSON post, another origin, and a host that is not loopback", async () => {
    const body = JSON.stringify({ repo: uniqueRepo(), issueNumber: 1 });
    const post = (headers: Record<string, string>, base = BASE) => exports.default.fetch(`${base}/dev/dispatch`, { method: "POST", headers, body });
    expect((await post({ "content-type": "text/plain" })).status).toBe(403);
    expect((await post({ "content-type": "application/json", origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ "content-type": "application/json" }, "http://evil.example:8787")).status).toBe(403);
    expect((await exports.default.fetch("http://evil.example:8787/dev/messages/acme-widgets-1")).status).toBe(403);
    expect((await fetchWorker("/dev/messages/acme-widgets-1", { headers: { "sec-fetch-site": "cross-site" } })).status).toBe(403);
  });

  it("refuses a Continue whose Origin matches a forged Host", async () => {
    const response = await exports.default.fetch("http://evil.example:8787/api/command-center/continue/acme-widgets-1", {
      method: "POST",
      headers: { origin: "http://evil.example:8787", "content-type": "application/json" },
      body: "{}"
    });
    expect(response.status).toBe(403);
  });
});
