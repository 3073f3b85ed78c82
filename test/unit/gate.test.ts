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
const open = (localDev = false): GateDeps => ({ localDev, access: { CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "" } });

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
