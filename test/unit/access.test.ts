import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { accessGuard, accessMode, accessToken, BAD_ACCESS_SETTING_PREFIX, HALF_CONFIGURED, normalizeTeamDomain, NOT_CONFIGURED } from "../../src/http/access";

const TEAM = "agent-think-test.cloudflareaccess.com";
const AUD = "aud-0123456789abcdef";
const config = { CF_ACCESS_TEAM_DOMAIN: TEAM, CF_ACCESS_AUD: AUD };

let signer: { privateKey: CryptoKey; jwk: JWK };
let stranger: { privateKey: CryptoKey };
let certsFetched = 0;

const server = setupServer(
  http.get(`https://${TEAM}/cdn-cgi/access/certs`, () => {
    certsFetched++;
    return HttpResponse.json({ keys: [signer.jwk] });
  })
);

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  signer = { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: "team-key", alg: "RS256", use: "sig" } };
  stranger = { privateKey: (await generateKeyPair("RS256")).privateKey };
  server.listen({ onUnhandledRequest: "error" });
});
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

type TokenOptions = { aud?: string; iss?: string; exp?: number | string; key?: CryptoKey; kid?: string };
async function token(options: TokenOptions = {}): Promise<string> {
  return new SignJWT({ email: "operator@example.com", type: "app" })
    .setProtectedHeader({ alg: "RS256", kid: options.kid ?? "team-key" })
    .setIssuer(options.iss ?? `https://${TEAM}`)
    .setAudience(options.aud ?? AUD)
    .setSubject("user-1")
    .setIssuedAt()
    .setExpirationTime(options.exp ?? "5m")
    .sign(options.key ?? signer.privateKey);
}

const request = (path: string, headers: Record<string, string> = {}) => new Request(`https://agent-think.test${path}`, { headers });
const withJwt = async (path: string, options?: TokenOptions) => request(path, { "cf-access-jwt-assertion": await token(options) });

describe("accessGuard with Access configured", () => {
  it("lets a valid token through (which paths need one is route-policy.ts's decision)", async () => {
    for (const path of ["/", "/thread/acme-widgets-7", "/api/command-center", "/agents/command-center-agent/main"]) {
      expect(await accessGuard(await withJwt(path), config), path).toBeNull();
    }
  });

  it("refuses a token for another application (wrong audience)", async () => {
    const response = await accessGuard(await withJwt("/api/command-center", { aud: "someone-else" }), config);
    expect(response?.status).toBe(403);
  });

  it("refuses an expired token", async () => {
    const expired = await withJwt("/", { exp: Math.floor(Date.now() / 1000) - 120 });
    expect((await accessGuard(expired, config))?.status).toBe(403);
    // …and the same token is fine at a time before it expired.
    expect(await accessGuard(expired, config, { now: () => Date.now() - 10 * 60_000 })).toBeNull();
  });

  it("refuses a token signed by a key not in the team's JWKS", async () => {
    expect((await accessGuard(await withJwt("/", { key: stranger.privateKey }), config))?.status).toBe(403);
    expect((await accessGuard(await withJwt("/", { key: stranger.privateKey, kid: "other-key" }), config))?.status).toBe(403);
  });

  it("refuses a token from another issuer", async () => {
    expect((await accessGuard(await withJwt("/", { iss: "https://evil.cloudflareaccess.com" }), config))?.status).toBe(403);
  });

  it("refuses a token that is not RS256", async () => {
    const hs = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(`https://${TEAM}`)
      .setAudience(AUD)
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode("a shared secret that is long enough"));
    expect((await accessGuard(request("/", { "cf-access-jwt-assertion": hs }), config))?.status).toBe(403);
  });

  it("refuses a request without a token, and garbage", async () => {
    const denied: string[] = [];
    const response = await accessGuard(request("/api/command-center"), config, { onDenied: (reason) => denied.push(reason) });
    expect(response?.status).toBe(403);
    expect(await response?.text()).toBe("forbidden");
    expect(denied).toEqual(["no Access token"]);
    expect((await accessGuard(request("/", { "cf-access-jwt-assertion": "not.a.jwt" }), config))?.status).toBe(403);
  });

  it("falls back to the CF_Authorization cookie", async () => {
    const cookie = `theme=dark; CF_Authorization=${await token()}; other=1`;
    expect(await accessGuard(request("/thread/acme-widgets-7", { cookie }), config)).toBeNull();
    const bad = `CF_Authorization=${await token({ aud: "nope" })}`;
    expect((await accessGuard(request("/", { cookie: bad }), config))?.status).toBe(403);
  });

  it("fetches the team's JWKS once per isolate", async () => {
    const before = certsFetched;
    for (let i = 0; i < 5; i++) expect(await accessGuard(await withJwt("/"), config)).toBeNull();
    expect(certsFetched - before).toBeLessThanOrEqual(1);
  });

  it("accepts the team domain as a URL, and several audiences", async () => {
    const variants = [
      { CF_ACCESS_TEAM_DOMAIN: `https://${TEAM}/`, CF_ACCESS_AUD: AUD },
      { CF_ACCESS_TEAM_DOMAIN: "agent-think-test", CF_ACCESS_AUD: `other, ${AUD}` }
    ];
    for (const variant of variants) expect(await accessGuard(await withJwt("/"), variant)).toBeNull();
  });
});

describe("accessGuard without Access", () => {
  const none = [{}, { CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "" }, { CF_ACCESS_TEAM_DOMAIN: " ", CF_ACCESS_AUD: "", ACCESS: "" }];

  it("is open in local dev (LOCAL_DEV=1 answers only loopback hosts: the gate)", async () => {
    for (const open of none) {
      expect(await accessGuard(request("/api/command-center"), open, { localDev: true })).toBeNull();
      expect(await accessGuard(request("/agents/command-center-agent/main"), open, { localDev: true })).toBeNull();
    }
  });

  it("fails closed in a deploy: 503 naming both variables and the opt-out, and by default", async () => {
    for (const closed of none) {
      for (const path of ["/api/command-center", "/agents/command-center-agent/main", "/", "/repro/private/0123456789abcdef0123456789abcdef/"]) {
        const denied: string[] = [];
        const response = await accessGuard(request(path), closed, { localDev: false, onDenied: (reason) => denied.push(reason) });
        expect(response?.status, path).toBe(503);
        const body = await response!.text();
        expect(body).toBe(NOT_CONFIGURED);
        expect(denied).toEqual([expect.stringContaining("not configured")]);
      }
      // A caller that does not say it is local dev gets the deploy's answer.
      expect((await accessGuard(request("/api/health"), closed))?.status).toBe(503);
    }
    expect(NOT_CONFIGURED).toMatch(/CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD/);
    expect(NOT_CONFIGURED).toContain("ACCESS=off");
  });

  it("is open again with the explicit opt-out ACCESS=off, however it is written", async () => {
    for (const ACCESS of ["off", "OFF", " off "]) {
      expect(await accessGuard(request("/api/command-center"), { ACCESS }), ACCESS).toBeNull();
      expect(await accessGuard(request("/agents/command-center-agent/main"), { CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "", ACCESS })).toBeNull();
    }
  });

  it("still verifies when ACCESS=off is set beside both settings", async () => {
    expect((await accessGuard(request("/api/command-center"), { ...config, ACCESS: "off" }))?.status).toBe(403);
    expect(await accessGuard(await withJwt("/api/command-center"), { ...config, ACCESS: "off" })).toBeNull();
  });

  it("refuses to guess on any other ACCESS value, naming a word and never echoing anything else", async () => {
    for (const [ACCESS, named] of [
      ["on", '"on"'],
      ["false", '"false"'],
      ["disabled", '"disabled"'],
      [AUD.repeat(2), `(a value of ${AUD.length * 2} characters)`]
    ] as const) {
      for (const settings of [{ ACCESS }, { ...config, ACCESS }]) {
        for (const localDev of [true, false]) {
          const response = await accessGuard(request("/api/health"), settings, { localDev });
          expect(response?.status, ACCESS).toBe(500);
          const body = await response!.text();
          expect(body.startsWith(`${BAD_ACCESS_SETTING_PREFIX}${named} is not a setting`), body).toBe(true);
          expect(body).toContain('Leave ACCESS empty (Access required) or set it to "off"');
          expect(body).not.toContain(AUD);
        }
      }
    }
  });

  it("refuses to guess when only one var is set, and says the fix without either value", async () => {
    for (const [path, config] of [
      ["/", { CF_ACCESS_TEAM_DOMAIN: TEAM, CF_ACCESS_AUD: "" }],
      ["/api/health", { CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: AUD }],
      ["/api/health", { CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: AUD, ACCESS: "off" }]
    ] as const) {
      for (const localDev of [true, false]) {
        const response = await accessGuard(request(path), config, { localDev });
        expect(response?.status).toBe(500);
        const body = await response!.text();
        expect(body).toBe(HALF_CONFIGURED);
        expect(body).toContain("Set both CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD, or neither");
        expect(body).not.toContain(TEAM);
        expect(body).not.toContain(AUD);
      }
    }
  });
});

describe("accessMode", () => {
  it.each([
    [{ CF_ACCESS_TEAM_DOMAIN: "t", CF_ACCESS_AUD: "a" }, false, { kind: "verify", teamDomain: "t", audiences: ["a"], optOutIgnored: false }],
    [{ CF_ACCESS_TEAM_DOMAIN: "t", CF_ACCESS_AUD: "a", ACCESS: "off" }, false, { kind: "verify", optOutIgnored: true }],
    [{}, true, { kind: "open", reason: "local-dev" }],
    [{ ACCESS: "off" }, true, { kind: "open", reason: "local-dev" }],
    [{ ACCESS: "off" }, false, { kind: "open", reason: "opted-out" }],
    [{}, false, { kind: "not-configured" }],
    [{ ACCESS: "" }, false, { kind: "not-configured" }],
    [{ CF_ACCESS_TEAM_DOMAIN: "t" }, true, { kind: "half-configured", missing: "CF_ACCESS_AUD" }],
    [{ CF_ACCESS_AUD: "a", ACCESS: "off" }, false, { kind: "half-configured", missing: "CF_ACCESS_TEAM_DOMAIN" }],
    [{ ACCESS: "on" }, true, { kind: "bad-setting", value: "on" }],
    [{ CF_ACCESS_TEAM_DOMAIN: "t", CF_ACCESS_AUD: "a", ACCESS: " no " }, false, { kind: "bad-setting", value: "no" }]
  ])("%j with localDev %s is %j", (settings, localDev, mode) => {
    expect(accessMode(settings, { localDev })).toMatchObject(mode);
  });
});

describe("helpers", () => {
  it("normalizeTeamDomain", () => {
    expect(normalizeTeamDomain("https://Team.CloudflareAccess.com/")).toBe("team.cloudflareaccess.com");
    expect(normalizeTeamDomain("team")).toBe("team.cloudflareaccess.com");
  });

  it("accessToken prefers the header", () => {
    expect(accessToken(request("/", { "cf-access-jwt-assertion": "h", cookie: "CF_Authorization=c" }))).toBe("h");
    expect(accessToken(request("/", { cookie: "CF_Authorization=" }))).toBeNull();
  });
});
