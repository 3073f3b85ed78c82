/**
 * The HTTP surface through the real default fetch: the /dev routes (open
 * only with LOCAL_DEV=1), /agents/* through routeAgentRequest, and the 404
 * tail.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { agentFor, uniqueRepo, until, waitForStatus } from "./helpers";

// The test Worker runs with LOCAL_DEV=1, which answers only loopback hosts.
const BASE = "http://127.0.0.1:8787";
const fetchWorker = (path: string, init?: RequestInit) => exports.default.fetch(`${BASE}${path}`, init);
const post = (path: string, body: unknown) =>
  fetchWorker(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body)
  });

describe("routes", () => {
  it("answers unknown paths with a plain 404", async () => {
    // (`/` is the dashboard in a Worker with its assets; this runtime has none.)
    for (const path of ["/nope", "/api/unknown", "/devx/dispatch", "/thread/Not%20A%20Session"]) {
      const response = await fetchWorker(path);
      expect(response.status, path).toBe(404);
      expect(await response.text()).toBe("not found");
    }
  });

  it("dispatches through /dev/dispatch with the default instruction and no token", async () => {
    const repo = uniqueRepo();
    const response = await post("/dev/dispatch", { repo, issueNumber: 3 });
    expect(response.status).toBe(202);
    const result = (await response.json()) as { session: string; submissionId: string; threadUrl: string };
    expect(result.threadUrl).toBe(`${env.PUBLIC_BASE_URL}/thread/${result.session}`);
    const agent = await agentFor(result.session);
    await waitForStatus(agent, result.submissionId);

    const transcript = await fetchWorker(`/dev/messages/${result.session}?submissionId=${result.submissionId}`);
    expect(transcript.status).toBe(200);
    const body = (await transcript.json()) as { session: string; messages: unknown[]; submission: { status: string } };
    expect(body.session).toBe(result.session);
    expect(body.submission.status).toBe("completed");
    expect(JSON.stringify(body.messages[0])).toContain('\\"instruction\\": \\"reproduce this issue\\"');
  });

  it("rejects bad /dev/dispatch bodies with 400 and the field named", async () => {
    const notJson = await post("/dev/dispatch", "{not json");
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ error: "body must be JSON" });
    const array = await post("/dev/dispatch", [1, 2]);
    expect(array.status).toBe(400);
    const badRepo = await post("/dev/dispatch", { repo: "no-slash", issueNumber: 1 });
    expect(badRepo.status).toBe(400);
    expect(((await badRepo.json()) as { error: string }).error).toMatch(/^invalid input: repo:/);
    const wrongMethod = await fetchWorker("/dev/dispatch");
    expect(wrongMethod.status).toBe(405);
    const badSession = await fetchWorker("/dev/messages/Not%20A%20Session");
    expect(badSession.status).toBe(400);
  });

  it("closes /dev/* without LOCAL_DEV=1", async () => {
    // With Access open on purpose, so what answers is the /dev rule (without it, Access's 503 would: test/boundary.test.ts).
    const closed = { ...env, LOCAL_DEV: "", ACCESS: "off" };
    for (const [path, method] of [
      ["/dev/dispatch", "POST"],
      ["/dev/messages/acme-widgets-1", "GET"]
    ] as const) {
      const request = new Request(`${BASE}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: method === "POST" ? JSON.stringify({ repo: "acme/widgets", issueNumber: 1 }) : undefined
      });
      const response = await worker.fetch(request as Parameters<typeof worker.fetch>[0], closed);
      expect(response.status, path).toBe(404);
      expect(await response.text()).toBe("not found");
    }
  });

  it("routes /agents/* to the issue's agent", async () => {
    const repo = uniqueRepo();
    const { session, submissionId } = await exports.AgentThink.dispatch({
      repo,
      issueNumber: 9,
      instruction: "TEST: reply visible through /agents",
      installationToken: ""
    });
    await waitForStatus(await agentFor(session), submissionId);
    const response = await fetchWorker(`/agents/think-agent/${session}/get-messages`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("visible through /agents");
  });

  it("lets a socket watch a run but never start, clear or cancel one", async () => {
    const { session, submissionId } = await exports.AgentThink.dispatch({
      repo: uniqueRepo(),
      issueNumber: 4,
      instruction: "TEST: reply watched",
      installationToken: ""
    });
    const agent = await agentFor(session);
    await waitForStatus(agent, submissionId);

    const response = await fetchWorker(`/agents/think-agent/${session}`, { headers: { upgrade: "websocket" } });
    expect(response.status).toBe(101);
    const socket = response.webSocket!;
    const frames: Array<{ type: string; [key: string]: unknown }> = [];
    socket.addEventListener("message", (event) => frames.push(JSON.parse(String(event.data))));
    socket.accept();
    const next = (type: string) => until(() => frames.find((frame) => frame.type === type), `a ${type} frame`);

    const chatRequest = {
      type: "cf_agent_use_chat_request",
      id: "from-a-stranger",
      init: {
        method: "POST",
        body: JSON.stringify({ messages: [{ id: "x", role: "user", parts: [{ type: "text", text: "TEST: reply hijacked" }] }] })
      }
    };
    for (const frame of [chatRequest, { type: "cf_agent_chat_clear" }, { type: "cf_agent_chat_request_cancel", id: submissionId }]) {
      socket.send(JSON.stringify(frame));
    }
    socket.send(JSON.stringify({ type: "cf_agent_stream_resume_request" }));
    expect(await next("cf_agent_stream_resume_none")).toBeDefined();
    const refused = frames.filter((frame) => frame.type === "agent-think:refused").map((frame) => frame.refused);
    expect(refused).toEqual(["cf_agent_use_chat_request", "cf_agent_chat_clear", "cf_agent_chat_request_cancel"]);
    socket.close(1000);

    const messages = await agent.transcript();
    expect(messages).toHaveLength(2);
    expect(JSON.stringify(messages)).not.toContain("hijacked");
    expect(await agent.listSubmissions()).toHaveLength(1);
  });
});
