/**
 * The Cloudflare Access boundary, attacked from outside a real `wrangler
 * dev` that verifies Access itself: its team's JWKS is fetched over HTTPS
 * from a local stand-in (support/access-issuer.ts), exactly as in
 * production. Requests go out raw (support/raw-http.ts), so a path reaches
 * the Worker spelled exactly as an attacker would spell it.
 *
 * What must hold with Access configured: deny by default (only static
 * assets and published reproductions are public); the decision is made on
 * the canonical path, so no spelling of a protected path slips past it; a
 * path with no canonical form is a 400; and even an operator with a valid
 * JWT reaches only the agents the dashboard reads, for threads that exist,
 * without ever creating a Durable Object by asking, and a page on another
 * origin cannot open their sockets with that operator's cookie.
 *
 * One thread exists for the whole file: S, dispatched and finished (with a
 * JWT) before the first test that needs it.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { ROOT, test as base, type AccessDevServer } from "./fixture";
import { dispatch, waitForSubmission } from "./dev-api";
import { accessCookie, accessHeader } from "./support/access-issuer";
import { countAllDurableObjects, countDurableObjects } from "./support/durable-objects";
import { jsonFrames, probe, type ProbeRequest, type ProbeResponse } from "./support/raw-http";

const S = "acme-widgets-1";
const UNKNOWN_SESSION = "acme-widgets-999";
/** Long enough for an object a request woke up in the background to have written its file. */
const SETTLE_MS = 150;

type Thread = { session: string; transcript: unknown[] };

const test = base.extend("thread", { scope: "file" }, async ({ accessServer }): Promise<Thread> => {
  const credentials = accessHeader(await accessServer.access.sign());
  const run = await dispatch(accessServer.url, { repo: "acme/widgets", issueNumber: 1, instruction: "TEST: reply hi" }, credentials);
  expect(run.session).toBe(S);
  const settled = await waitForSubmission(accessServer.url, run, { credentials });
  expect(settled.submission.status, accessServer.output()).toBe("completed");
  return { session: run.session, transcript: settled.messages };
});

/** What came back, for an assertion's message: status, type and the head of the body. */
function described(response: ProbeResponse): string {
  const frames = response.status === 101 ? ` frames=${JSON.stringify(jsonFrames(response).map((frame) => frame.type))}` : "";
  const location = response.headers.location === undefined ? "" : ` location=${response.headers.location}`;
  return `got ${response.status} ${response.headers["content-type"] ?? ""}${location}${frames} ${JSON.stringify(response.body.slice(0, 300))}`;
}

async function send(server: AccessDevServer, request: ProbeRequest): Promise<ProbeResponse> {
  return probe(server.url, { frameWindowMs: 1_000, ...request });
}

/** Sends the request and requires that no Durable Object of any class came into being because of it. */
async function sendCreatingNothing(server: AccessDevServer, request: ProbeRequest): Promise<ProbeResponse> {
  const before = await countAllDurableObjects(server.persistTo);
  const response = await send(server, request);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const after = await countAllDurableObjects(server.persistTo);
  const created = Object.fromEntries(
    Object.entries(after)
      .filter(([className, count]) => count !== before[className as keyof typeof before])
      .map(([className, count]) => [className, `${before[className as keyof typeof before]} → ${count}`])
  );
  expect.soft(created, `Durable Objects created by ${request.path} (${described(response)})`).toEqual({});
  return response;
}

async function validCredentials(server: AccessDevServer, carrier: "header" | "cookie" = "header"): Promise<Record<string, string>> {
  const token = await server.access.sign();
  return carrier === "header" ? accessHeader(token) : accessCookie(token);
}

describe("the Access stand-in", () => {
  test("a valid JWT is accepted: the Worker fetched the team's JWKS over HTTPS", async ({ accessServer }) => {
    const response = await send(accessServer, { path: "/api/command-center", headers: await validCredentials(accessServer) });
    expect(response.status, described(response)).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ threads: expect.any(Array) });
    // The stand-in serves only HTTPS: a counted request passed the TLS handshake with the throwaway CA.
    expect(accessServer.access.jwksRequests()).toBeGreaterThanOrEqual(1);
  });

  test("a dispatched run leaves its ThinkAgent's object in the state directory (what the object counts read)", async ({ accessServer, thread }) => {
    expect(thread.session).toBe(S);
    expect(await countDurableObjects(accessServer.persistTo, "ThinkAgent")).toBeGreaterThanOrEqual(1);
    expect(await countDurableObjects(accessServer.persistTo, "CommandCenterAgent")).toBe(1);
  });
});

describe("without an Access JWT: deny by default, on the canonical path", () => {
  test.for([
    `/agents/think-agent/${S}/get-messages`,
    `//agents/think-agent/${S}/get-messages`,
    `/agents//think-agent/${S}/get-messages`,
    `///agents///think-agent///${S}///get-messages`,
    `/./agents/think-agent/${S}/get-messages`,
    `/x/../agents/think-agent/${S}/get-messages`,
    `/%61gents/think-agent/${S}/get-messages`,
    `/agents/think%2dagent/${S}/get-messages`,
    `/agents/think-agent/${S}/get-messages/`,
    "/api/command-center",
    "//api/command-center",
    "/api//command-center",
    "/",
    "//",
    `/thread/${S}`,
    `//thread/${S}`,
    `/dev/messages/${S}`,
    `//dev/messages/${S}`,
    "/unknown-path"
  ])("GET %s is 403", async (path, { accessServer, thread }) => {
    expect(thread.session).toBe(S);
    const response = await sendCreatingNothing(accessServer, { path });
    expect(response.status, described(response)).toBe(403);
    expect(response.body).not.toContain('"role"');
  });

  test.for(["/agents/command-center-agent/main", "//agents/command-center-agent/main"])(
    "a WebSocket upgrade to %s is 403, never 101",
    async (path, { accessServer }) => {
      const response = await sendCreatingNothing(accessServer, { path, websocket: true, headers: { Origin: accessServer.url } });
      expect(response.status, described(response)).toBe(403);
      expect(response.frames).toEqual([]);
    }
  );

  test("static assets stay public: the built JavaScript is served without a JWT", async ({ accessServer }) => {
    const assets = readdirSync(join(ROOT, "dist", "client", "assets")).filter((name) => name.endsWith(".js"));
    expect(assets.length, "dist/client/assets has no .js: run `npm run build` (npm run test:e2e does)").toBeGreaterThan(0);
    const response = await send(accessServer, { path: `/assets/${assets[0]}` });
    expect(response.status, described(response)).toBe(200);
    expect(response.headers["content-type"]).toMatch(/javascript/);
  });
});

describe("a path with no canonical form is 400, with or without a JWT", () => {
  const paths = [
    "/agents/think-agent/%E0%A4%A/get-messages",
    "/repro/%E0%A4%A",
    "/%zz",
    `/agents/think-agent%2Fx/${S}`
  ];
  test.for(paths)("GET %s without a JWT is 400", async (path, { accessServer }) => {
    const response = await sendCreatingNothing(accessServer, { path });
    expect(response.status, described(response)).toBe(400);
  });
  test.for(paths)("GET %s with a valid JWT is 400", async (path, { accessServer }) => {
    const response = await sendCreatingNothing(accessServer, { path, headers: await validCredentials(accessServer) });
    expect(response.status, described(response)).toBe(400);
  });
});

describe("with a valid Access JWT", () => {
  test.for(["header", "cookie"] as const)(
    "GET /agents/think-agent/S/get-messages with the JWT in the %s is 200 with the transcript",
    async (carrier, { accessServer, thread }) => {
      const response = await send(accessServer, {
        path: `/agents/think-agent/${S}/get-messages`,
        headers: await validCredentials(accessServer, carrier)
      });
      expect(response.status, described(response)).toBe(200);
      const messages: unknown = JSON.parse(response.body);
      expect(Array.isArray(messages)).toBe(true);
      expect(messages).toHaveLength(thread.transcript.length);
      expect(JSON.stringify(messages)).toContain('"hi"');
    }
  );

  test("GET //agents/think-agent/S/get-messages is served as the canonical path: the same transcript", async ({ accessServer, thread }) => {
    const headers = await validCredentials(accessServer);
    const canonical = await send(accessServer, { path: `/agents/think-agent/${S}/get-messages`, headers });
    const doubled = await sendCreatingNothing(accessServer, { path: `//agents/think-agent/${S}/get-messages`, headers });
    expect(canonical.status, described(canonical)).toBe(200);
    expect(doubled.status, described(doubled)).toBe(200);
    expect(JSON.parse(doubled.body)).toEqual(JSON.parse(canonical.body));
    expect(JSON.parse(doubled.body)).toHaveLength(thread.transcript.length);
  });

  test("the command center's WebSocket (JWT in the cookie) upgrades and syncs its state", async ({ accessServer }) => {
    const response = await send(accessServer, {
      path: "/agents/command-center-agent/main",
      websocket: true,
      headers: { Origin: accessServer.url, ...(await validCredentials(accessServer, "cookie")) },
      until: (frames) => frames.some((frame) => frame.text.includes('"cf_agent_state"')),
      frameWindowMs: 5_000
    });
    expect(response.status, described(response)).toBe(101);
    expect(response.acceptValid).toBe(true);
    expect(jsonFrames(response).map((frame) => frame.type)).toContain("cf_agent_state");
  });

  test.for(["https://evil.example", "null", "http://127.0.0.1.evil.example"])(
    "a WebSocket upgrade from Origin %s is 403 even with the operator's cookie, never 101",
    async (origin, { accessServer }) => {
      const response = await sendCreatingNothing(accessServer, {
        path: "/agents/command-center-agent/main",
        websocket: true,
        headers: { Origin: origin, ...(await validCredentials(accessServer, "cookie")) }
      });
      expect(response.status, described(response)).toBe(403);
      expect(JSON.parse(response.body)).toEqual({ error: "forbidden: a WebSocket from another origin" });
      expect(response.frames).toEqual([]);
    }
  );

  test("the dispatch CLI's socket (no Origin, the JWT in the header) upgrades", async ({ accessServer }) => {
    const response = await send(accessServer, {
      path: "/agents/command-center-agent/main",
      websocket: true,
      headers: await validCredentials(accessServer),
      until: (frames) => frames.some((frame) => frame.text.includes('"cf_agent_state"')),
      frameWindowMs: 5_000
    });
    expect(response.status, described(response)).toBe(101);
  });

  test("GET /api/command-center (JWT in the cookie) is 200", async ({ accessServer }) => {
    const response = await send(accessServer, { path: "/api/command-center", headers: await validCredentials(accessServer, "cookie") });
    expect(response.status, described(response)).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ threads: expect.any(Array) });
  });
});

describe("a JWT Access would not have issued for this application is 403", () => {
  const kinds = [
    ["another audience", "wrongAudience"],
    ["expired", "expired"],
    ["signed by a key not in the team's JWKS", "foreignKey"]
  ] as const;
  const targets = [
    ["header", "/api/command-center"],
    ["cookie", `/agents/think-agent/${S}/get-messages`]
  ] as const;
  test.for(kinds.flatMap(([label, kind]) => targets.map(([carrier, path]) => ({ label, kind, carrier, path }))))(
    "$label, in the $carrier, on $path",
    async ({ kind, carrier, path }, { accessServer, thread }) => {
      expect(thread.session).toBe(S);
      const token = await accessServer.access[kind]();
      const response = await sendCreatingNothing(accessServer, {
        path,
        headers: carrier === "header" ? accessHeader(token) : accessCookie(token)
      });
      expect(response.status, described(response)).toBe(403);
    }
  );
});

describe("with a valid JWT, only the agents the dashboard reads are routable, and asking creates no object", () => {
  test.for([
    "/agents/workspace-agent/anything",
    `/agents/think-agent/${S}/sub/think-agent/x/get-messages`,
    `/agents/think-agent/${UNKNOWN_SESSION}/get-messages`,
    "/agents/think-agent/not-a-session/get-messages",
    "/agents/sandbox/x",
    "/agents/warm-pool/main",
    "/agents/command-center-agent/other"
  ])("GET %s is 404", async (path, { accessServer, thread }) => {
    expect(thread.session).toBe(S);
    const response = await sendCreatingNothing(accessServer, { path, headers: await validCredentials(accessServer) });
    expect(response.status, described(response)).toBe(404);
  });

  test.for(["/agents/workspace-agent/anything", `/agents/workspace-agent/${S}`])(
    "a WebSocket upgrade to %s is 404, never 101 (no socket that could write workspace state)",
    async (path, { accessServer, thread }) => {
      expect(thread.session).toBe(S);
      const response = await sendCreatingNothing(accessServer, {
        path,
        websocket: true,
        headers: { Origin: accessServer.url, ...(await validCredentials(accessServer, "cookie")) }
      });
      expect(response.status, described(response)).toBe(404);
      expect(response.frames).toEqual([]);
    }
  );
});
