/**
 * The Access guard in workerd, where it runs: jose verifying RS256 tokens
 * with WebCrypto against a team JWKS that MSW serves. The plain tests
 * (test/unit/access.test.ts) cover every case; this one proves the runtime.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessGuard } from "../../src/http/access";

const TEAM = "agent-think-workerd.cloudflareaccess.com";
const AUD = "aud-workerd";
const config = { CF_ACCESS_TEAM_DOMAIN: TEAM, CF_ACCESS_AUD: AUD };

const keys = await generateKeyPair("RS256");
const jwk = { ...(await exportJWK(keys.publicKey)), kid: "k1", alg: "RS256" };
const server = setupServer(http.get(`https://${TEAM}/cdn-cgi/access/certs`, () => HttpResponse.json({ keys: [jwk] })));
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());

const sign = (aud: string, exp: string | number = "5m") =>
  new SignJWT({}).setProtectedHeader({ alg: "RS256", kid: "k1" }).setIssuer(`https://${TEAM}`).setAudience(aud).setExpirationTime(exp).sign(keys.privateKey);
const at = (headers: Record<string, string>) => new Request("https://agent-think.test/api/command-center", { headers });

describe("accessGuard in workerd", () => {
  it("verifies against the MSW-served team JWKS", async () => {
    expect(await accessGuard(at({ "cf-access-jwt-assertion": await sign(AUD) }), config)).toBeNull();
    expect(await accessGuard(at({ cookie: `CF_Authorization=${await sign(AUD)}` }), config)).toBeNull();
    expect((await accessGuard(at({ "cf-access-jwt-assertion": await sign("other") }), config))?.status).toBe(403);
    expect((await accessGuard(at({ "cf-access-jwt-assertion": await sign(AUD, Math.floor(Date.now() / 1000) - 60) }), config))?.status).toBe(403);
    expect((await accessGuard(at({}), config))?.status).toBe(403);
    expect(await accessGuard(at({}), { CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "" }, { localDev: true })).toBeNull();
    expect((await accessGuard(at({}), { CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "" }))?.status).toBe(503);
  });
});
