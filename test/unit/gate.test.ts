import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { gate, type GateDeps } from "../../src/http/gate";

const TEAM = "agent-think-gate.cloudflareaccess.com";
const AUD = "aud-gate";
let privateKey: CryptoKey;
let accessDeps: NonNullable<GateDeps["accessDeps"]>;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  privateKey = pair.privateKey;
  accessDeps = { jwks: createLocalJWKSet({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k", alg: "RS256" }] }) };
});

const jwt = () =>
  new SignJWT({}).setProtectedHeader({ alg: "RS256", kid: "k" }).setIssuer(`https://${TEAM}`).setAudience(AUD).setExpirationTime("5m").sign(privateKey);

const withAccess = (): GateDeps => ({ localDev: false, access: { CF_ACCESS_TEAM_DOMAIN: TEAM, CF_ACCESS_AUD: AUD }, accessDeps });
/** No Access: local dev, or a deploy with the explicit opt-out ACCESS=off (without it a deploy is closed: below). */
const open = (localDev = false): GateDeps => ({ localDev, access: { CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "", ACCESS: localDev ? "" : "off" } });
const unconfigured = (): GateDeps => ({ localDev: false, access: { CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "", ACCESS: "" } });
const ID = "0123456789abcdef0123456789abcdef";
const socket = (origin?: string): RequestInit => ({ headers: { upgrade: "websocket", ...(origin === undefined ? {} : { origin }) } });

async function status(url: string, deps: GateDeps, init?: RequestInit): Promise<number | "through"> {
  const result = await gate(new Request(url, init), deps);
  return result.ok ? "through" : result.response.status;
}

describe("gate with Access configured", () => {
  it.each([
    "//agents/think-agent/acme-widgets-1/get-messages",
    "/agents//think-agent/acme-widgets-1/get-messages",
    "/%61gents/think-agent/acme-widgets-1/get-messages",
    "/x/../agents/command-center-agent/main",
    "/api//command-center",
    "/",
    "/nope",
    "/dev/dispatch",
    "/repro/private/0123456789abcdef0123456789abcdef/"
  ])("refuses %s without a JWT", async (path) => {
    expect(await status(`https://agent-think.test${path}`, withAccess())).toBe(403);
  });

  it("lets public reproductions through without a JWT, and the rest with one", async () => {
    expect(await status("https://agent-think.test/repro/0123456789abcdef0123456789abcdef/", withAccess())).toBe("through");
    const headers = { "cf-access-jwt-assertion": await jwt() };
    expect(await status("https://agent-think.test//agents/think-agent/acme-widgets-1/get-messages", withAccess(), { headers })).toBe("through");
    expect(await status("https://agent-think.test/repro/private/0123456789abcdef0123456789abcdef/", withAccess(), { headers })).toBe("through");
  });

  it("answers 400 to a path with no canonical form, before Access", async () => {
    expect(await status("https://agent-think.test/repro/%E0%A4%A", withAccess())).toBe(400);
    expect(await status("https://agent-think.test/agents/think-agent%2Fx/s", withAccess())).toBe(400);
  });

  it("tells the caller why it refused, and the client only a line", async () => {
    const refused: string[] = [];
    const result = await gate(new Request("https://agent-think.test//api/command-center"), { ...withAccess(), onRefused: (reason, path) => refused.push(`${path}: ${reason}`) });
    expect(result.ok).toBe(false);
    expect(refused).toEqual(["/api/command-center: no Access token"]);
  });
});

describe("gate on a deploy without Access", () => {
  it.each([
    ["/api/command-center", {}],
    ["/api/health", {}],
    ["/api/command-center/continue/acme-widgets-7", { method: "POST", headers: { origin: "https://agent-think.test", "content-type": "application/json" }, body: "{}" }],
    ["/agents/command-center-agent/main", socket()],
    ["/agents/command-center-agent/main", socket("https://agent-think.test")],
    ["/agents/think-agent/acme-widgets-1/get-messages", {}],
    ["/", {}],
    ["/thread/acme-widgets-1", {}],
    [`/repro/private/${ID}/`, {}],
    ["/dev/dispatch", {}],
    ["/nope", {}]
  ] as Array<[string, RequestInit]>)("answers 503 to %s, naming both variables and the opt-out", async (path, init) => {
    const refused: string[] = [];
    const result = await gate(new Request(`https://agent-think.test${path}`, init), { ...unconfigured(), onRefused: (reason) => refused.push(reason) });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(503);
    const page = await result.response.text();
    for (const name of ["CF_ACCESS_TEAM_DOMAIN", "CF_ACCESS_AUD", "ACCESS=off"]) expect(page).toContain(name);
    expect(refused).toEqual([expect.stringContaining("not configured")]);
  });

  it("keeps public reproductions public", async () => {
    expect(await status(`https://agent-think.test/repro/${ID}/`, unconfigured())).toBe("through");
    expect(await status(`https://agent-think.test/repro/${ID}/assets/app.js`, unconfigured())).toBe("through");
  });

  it("is open again with ACCESS=off, and open in local dev", async () => {
    for (const deps of [open(false), open(true)]) {
      const base = deps.localDev ? "http://127.0.0.1:8787" : "https://agent-think.test";
      expect(await status(`${base}/api/command-center`, deps)).toBe("through");
      expect(await status(`${base}/agents/command-center-agent/main`, deps, socket())).toBe("through");
      expect(await status(`${base}/repro/private/${ID}/`, deps)).toBe("through");
    }
  });

  it("answers 500 to an ACCESS that is neither empty nor off, naming it", async () => {
    for (const localDev of [false, true]) {
      const result = await gate(new Request("http://127.0.0.1:8787/api/health"), { localDev, access: { ACCESS: "disabled" } });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.response.status).toBe(500);
      expect(await result.response.text()).toContain('ACCESS="disabled" is not a setting');
    }
    expect(await status(`https://agent-think.test/repro/${ID}/`, { localDev: false, access: { ACCESS: "disabled" } })).toBe("through");
  });
});

describe("gate for WebSocket upgrades", () => {
  const path = "/agents/command-center-agent/main";

  it("refuses an upgrade whose Origin is another origin, with a one-line reason, before Access", async () => {
    for (const origin of [
      "https://evil.example",
      "https://agent-think.test.evil.example",
      "http://agent-think.test",
      "https://agent-think.test:8443",
      "null",
      "not a url"
    ]) {
      for (const deps of [withAccess(), open(false), unconfigured()]) {
        const result = await gate(new Request(`https://agent-think.test${path}`, socket(origin)), deps);
        expect(result.ok, origin).toBe(false);
        if (result.ok) continue;
        expect(result.response.status, origin).toBe(403);
        expect(await result.response.json()).toEqual({ error: "forbidden: a WebSocket from another origin" });
      }
    }
    // …with a valid JWT too: an operator's cookie sent by a page elsewhere is the attack.
    const headers = { upgrade: "websocket", origin: "https://evil.example", "cf-access-jwt-assertion": await jwt() };
    expect(await status(`https://agent-think.test${path}`, withAccess(), { headers })).toBe(403);
  });

  it("lets the same origin and a client with no Origin (the dispatch CLI) through", async () => {
    const headers = { "cf-access-jwt-assertion": await jwt() };
    expect(await status(`https://agent-think.test${path}`, withAccess(), { headers: { ...headers, upgrade: "websocket", origin: "https://agent-think.test" } })).toBe("through");
    expect(await status(`https://agent-think.test${path}`, withAccess(), { headers: { ...headers, upgrade: "websocket" } })).toBe("through");
    expect(await status(`https://agent-think.test${path}`, open(false), socket("https://agent-think.test"))).toBe("through");
    // An Origin on a request that is not an upgrade is judged by its own rule, not this one.
    expect(await status(`https://agent-think.test/api/command-center`, open(false), { headers: { origin: "https://evil.example" } })).toBe("through");
  });

  it("in local dev, takes any loopback origin (the dashboard under npx vite) and nothing else", async () => {
    for (const origin of ["http://127.0.0.1:8787", "http://localhost:5173", "http://[::1]:5173", "https://localhost"]) {
      expect(await status(`http://127.0.0.1:8787${path}`, open(true), socket(origin)), origin).toBe("through");
    }
    for (const origin of ["http://evil.example", "http://127.0.0.1.evil.example:8787", "null", "file://localhost/x"]) {
      expect(await status(`http://127.0.0.1:8787${path}`, open(true), socket(origin)), origin).toBe(403);
    }
    // Outside local dev a loopback Origin is just another origin.
    expect(await status(`https://agent-think.test${path}`, open(false), socket("http://localhost:5173"))).toBe(403);
  });
});

describe("gate for writes and local dev", () => {
  it("keeps /dev/* to LOCAL_DEV=1 (404 otherwise)", async () => {
    expect(await status("https://agent-think.test/dev/dispatch", open(false), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).toBe(404);
    expect(await status("http://127.0.0.1:8787/dev/dispatch", open(true), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).toBe("through");
  });

  it("refuses cross-site local-dev requests and a foreign Host with a one-line reason", async () => {
    const crossSite = await gate(
      new Request("http://127.0.0.1:8787/dev/dispatch", {
        method: "POST",
        headers: { "content-type": "text/plain", origin: "http://evil.example", "sec-fetch-site": "cross-site" },
        body: "{}"
      }),
      open(true)
    );
    expect(crossSite.ok).toBe(false);
    if (crossSite.ok) return;
    expect(crossSite.response.status).toBe(403);
    expect(await crossSite.response.json()).toEqual({ error: "forbidden: cross-site request" });
    expect(await status("http://evil.example:8787/dev/messages/a-b-1", open(true))).toBe(403);
    expect(await status("http://evil.example:8787/api/command-center", open(true))).toBe(403);
  });

  it("refuses a Continue that is not same-origin, before any route sees it", async () => {
    const url = "https://agent-think.test/api/command-center/continue/acme-widgets-7";
    const json = { "content-type": "application/json" };
    for (const headers of <Record<string, string>[]>[
      json,
      { ...json, origin: "https://evil.example" },
      { ...json, origin: "https://agent-think.test.evil.example" },
      { ...json, origin: "http://agent-think.test" },
      { ...json, origin: "null" },
      { ...json, origin: "https://agent-think.test", "sec-fetch-site": "cross-site" },
      { ...json, origin: "https://agent-think.test", "sec-fetch-site": "same-site" },
      { ...json, "sec-fetch-site": "same-origin" }
    ]) {
      expect(await status(url, open(false), { method: "POST", headers, body: "{}" }), JSON.stringify(headers)).toBe(403);
    }
    // Without Sec-Fetch-Site (older clients) the Origin alone decides.
    expect(await status(url, open(false), { method: "POST", headers: { ...json, origin: "https://agent-think.test" }, body: "{}" })).toBe("through");
  });

  it("lets Continue through only same-origin with JSON", async () => {
    const url = "https://agent-think.test/api/command-center/continue/a-b-1";
    const post = (headers: Record<string, string>) => status(url, open(false), { method: "POST", headers, body: "{}" });
    expect(await post({ origin: "https://agent-think.test", "content-type": "application/json", "sec-fetch-site": "same-origin" })).toBe("through");
    expect(await post({ origin: "https://evil.example", "content-type": "application/json" })).toBe(403);
    expect(await post({ origin: "https://agent-think.test", "content-type": "text/plain" })).toBe(403);
    expect(await post({ "content-type": "application/json" })).toBe(403);
    // Local dev: a forged Host that names itself as the Origin is still refused.
    expect(
      await status("http://evil.example:8787/api/command-center/continue/a-b-1", open(true), {
        method: "POST",
        headers: { origin: "http://evil.example:8787", "content-type": "application/json" },
        body: "{}"
      })
    ).toBe(403);
  });
});
