/**
 * The HTTP boundary tried as an attacker would, through the real default
 * fetch in workerd: spellings of paths, Durable Objects a stranger could
 * create, state a socket could write, sockets opened from another origin,
 * cross-site requests to local dev, and a deploy that forgot Access (the
 * default fetch called with the env as deployed: no LOCAL_DEV). (The same
 * with Access configured, against `wrangler dev`, is
 * tests-e2e/access-boundary.test.ts.)
 */
import { env, exports } from "cloudflare:workers";
import { listDurableObjectIds } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { NOT_CONFIGURED } from "../src/http/access";
import { sessionName } from "../src/shared/session-name";
import { REPRO_PREFIX } from "../src/shared/buckets";
import { agentFor, eventually, uniqueRepo, waitForStatus } from "./helpers";

// The test Worker runs with LOCAL_DEV=1, which answers only loopback hosts.
const BASE = "http://127.0.0.1:8787";
const fetchWorker = (path: string, init?: RequestInit) => exports.default.fetch(`${BASE}${path}`, init);

async function finishedRun(instruction = "TEST: reply seen") {
  const { session, submissionId } = await exports.AgentThink.dispatch({ repo: uniqueRepo(), issueNumber: 2, instruction, installationToken: "" });
  await waitForStatus(await agentFor(session), submissionId);
  // The command center hears of the thread fire-and-forget.
  await eventually(async () => expect((await fetchWorker(`/agents/think-agent/${session}/get-messages`)).status).toBe(200));
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
    await eventually(() => expect(frames.filter((frame) => frame.type === "agent-think:refused")).toHaveLength(3));
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

describe("sockets from another origin", () => {
  const upgrade = (origin?: string) => ({ headers: { upgrade: "websocket", ...(origin === undefined ? {} : { origin }) } });

  it("refuses a browser's upgrade from another origin before any agent sees it, and creates nothing", async () => {
    const session = await finishedRun();
    const thinkBefore = await ids(env.ThinkAgent);
    for (const path of ["/agents/command-center-agent/main", `/agents/think-agent/${session}`]) {
      for (const origin of ["http://evil.example", "http://127.0.0.1.evil.example:8787", "null"]) {
        const response = await fetchWorker(path, upgrade(origin));
        expect(response.status, `${path} from ${origin}`).toBe(403);
        expect(response.webSocket).toBeNull();
        expect(await response.json()).toEqual({ error: "forbidden: a WebSocket from another origin" });
      }
    }
    expect(await ids(env.ThinkAgent)).toEqual(thinkBefore);
  });

  it("opens the dashboard's own sockets (same origin) and the dispatch CLI's (no Origin)", async () => {
    const session = await finishedRun();
    for (const path of ["/agents/command-center-agent/main", `/agents/think-agent/${session}`]) {
      for (const origin of [BASE, undefined]) {
        const response = await fetchWorker(path, upgrade(origin));
        expect(response.status, `${path} from ${origin ?? "no Origin"}`).toBe(101);
        response.webSocket!.accept();
        response.webSocket!.close(1000);
      }
    }
  });
});

describe("a deploy without Access (no LOCAL_DEV, neither Access setting)", () => {
  const DEPLOYED = "https://agent-think.test";
  const deployed = (vars: Partial<Env> = {}) => ({ ...env, LOCAL_DEV: "", CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "", ...vars });
  const fetchDeployed = (vars: Partial<Env>, path: string, init?: RequestInit) =>
    worker.fetch(new Request(`${DEPLOYED}${path}`, init) as Parameters<typeof worker.fetch>[0], deployed(vars));

  /** A published page of each kind, put straight into the bucket. */
  async function pages(): Promise<{ publicId: string; privateId: string }> {
    const id = () => crypto.randomUUID().replaceAll("-", "");
    const [publicId, privateId] = [id(), id()];
    const html = { httpMetadata: { contentType: "text/html; charset=utf-8" } };
    await env.REPROS.put(`${REPRO_PREFIX}${publicId}/index.html`, "<p>public page</p>", html);
    await env.REPROS.put(`${REPRO_PREFIX}private/${privateId}/index.html`, "<p>private page</p>", html);
    return { publicId, privateId };
  }

  it("answers 503 naming both variables and the opt-out to the API, a socket, the dashboard and a private reproduction", async () => {
    const session = await finishedRun();
    const { privateId } = await pages();
    for (const [path, init] of [
      ["/api/command-center", {}],
      ["/api/health", {}],
      [`/api/command-center/threads/${session}`, {}],
      [`/agents/think-agent/${session}/get-messages`, {}],
      ["/agents/command-center-agent/main", { headers: { upgrade: "websocket" } }],
      [`/agents/think-agent/${session}`, { headers: { upgrade: "websocket", origin: DEPLOYED } }],
      ["/", {}],
      [`/thread/${session}`, {}],
      [`/repro/private/${privateId}/`, {}]
    ] as Array<[string, RequestInit]>) {
      const response = await fetchDeployed({}, path, init);
      expect(response.status, path).toBe(503);
      expect(response.webSocket, path).toBeNull();
      const page = await response.text();
      expect(page, path).toBe(NOT_CONFIGURED);
      expect(page).not.toContain("private page");
    }
    expect(NOT_CONFIGURED).toMatch(/CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD.*ACCESS=off/s);
  });

  it("still serves a public repository's reproduction, which is public by design", async () => {
    const { publicId } = await pages();
    // The page itself, as its wrapper's frame asks for it (a top-level visit gets the wrapper).
    const response = await fetchDeployed({}, `/repro/${publicId}/`, { headers: { "sec-fetch-dest": "iframe" } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("<p>public page</p>");
  });

  it("is open again with ACCESS=off: the API, a socket and a private reproduction", async () => {
    const session = await finishedRun();
    const { privateId } = await pages();
    const snapshot = await fetchDeployed({ ACCESS: "off" }, "/api/command-center");
    expect(snapshot.status).toBe(200);
    expect(await snapshot.json()).toMatchObject({ threads: expect.any(Array) });
    const transcript = await fetchDeployed({ ACCESS: "off" }, `/agents/think-agent/${session}/get-messages`);
    expect(transcript.status).toBe(200);
    const socket = await fetchDeployed({ ACCESS: "off" }, "/agents/command-center-agent/main", { headers: { upgrade: "websocket", origin: DEPLOYED } });
    expect(socket.status).toBe(101);
    socket.webSocket!.accept();
    socket.webSocket!.close(1000);
    const grant = await fetchDeployed({ ACCESS: "off" }, `/repro/private/${privateId}/`, { redirect: "manual" });
    expect(grant.status).toBe(302);
    expect(new URL(grant.headers.get("location")!).pathname).toMatch(new RegExp(`^/repro/private/${privateId}\\.`));
    // And the health report says so, in red.
    const health = (await (await fetchDeployed({ ACCESS: "off" }, "/api/health")).json()) as { checks: Array<{ id: string }> };
    expect(health.checks.find((check) => check.id === "access")).toMatchObject({ status: "warn", unsafe: true });
  });

  it("refuses any other ACCESS value with a 500 naming it", async () => {
    const { publicId } = await pages();
    for (const path of ["/api/health", "/agents/command-center-agent/main"]) {
      const response = await fetchDeployed({ ACCESS: "disabled" }, path);
      expect(response.status, path).toBe(500);
      expect(await response.text()).toContain('ACCESS="disabled" is not a setting');
    }
    expect((await fetchDeployed({ ACCESS: "disabled" }, `/repro/${publicId}/`)).status).toBe(200);
  });
});
