/**
 * A stand-in Cloudflare Access team for the e2e tests: an HTTPS server on
 * 127.0.0.1 that serves the team's JWKS at `/cdn-cgi/access/certs`, exactly
 * where the Worker fetches it in production, and the Access JWTs it would
 * issue (RS256, `kid` in the header, issuer `https://127.0.0.1:<port>`,
 * audience the application's AUD), plus the bad ones a hostile test needs:
 * another audience, expired, and signed by a key the team never published.
 *
 * The certificate comes from a throwaway CA (`test-ca.ts`); a `wrangler dev`
 * started with `NODE_EXTRA_CA_CERTS` = `caFile` trusts it. `jwksRequests`
 * counts the fetches, so a test can tell that the Worker really reached it.
 * The caller owns the directory `caFile` is written to.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { makeTestCertificates, writeCaFile } from "./test-ca";

export const JWKS_PATH = "/cdn-cgi/access/certs";
export const ACCESS_JWT_HEADER = "Cf-Access-Jwt-Assertion";
export const ACCESS_COOKIE = "CF_Authorization";

const TOKEN_LIFETIME_S = 60 * 60;

export type AccessClaims = {
  aud?: string | string[];
  iss?: string;
  sub?: string;
  email?: string;
  /** Seconds since the epoch. */
  exp?: number;
  iat?: number;
  [claim: string]: unknown;
};

export type AccessIssuer = {
  /** What `CF_ACCESS_TEAM_DOMAIN` is set to: `127.0.0.1:<port>`. */
  teamDomain: string;
  /** `https://127.0.0.1:<port>`: the `iss` of every token it signs. */
  issuer: string;
  /** What `CF_ACCESS_AUD` is set to. */
  aud: string;
  /** The CA certificate that issued the server's, for `NODE_EXTRA_CA_CERTS`. */
  caFile: string;
  /** How many times the JWKS was fetched. */
  jwksRequests(): number;
  /** A token as Access would issue it for this application; `claims` override or add to the defaults. */
  sign(claims?: AccessClaims): Promise<string>;
  /** Valid in every way but its audience. */
  wrongAudience(): Promise<string>;
  /** Valid in every way but that it expired an hour ago. */
  expired(): Promise<string>;
  /** Right claims and `kid`, signed by a key that is not in the JWKS. */
  foreignKey(): Promise<string>;
  stop(): Promise<void>;
};

/** The request headers that carry a token, the way Access sends it to the origin. */
export function accessHeader(token: string): Record<string, string> {
  return { [ACCESS_JWT_HEADER]: token };
}

/** The cookie a browser behind Access sends. */
export function accessCookie(token: string): Record<string, string> {
  return { Cookie: `${ACCESS_COOKIE}=${token}` };
}

export async function startAccessIssuer(options: { directory: string; aud?: string }): Promise<AccessIssuer> {
  const aud = options.aud ?? `e2e-aud-${randomUUID()}`;
  const certificates = makeTestCertificates();
  const caFile = await writeCaFile(options.directory, certificates);

  const kid = `e2e-${randomUUID()}`;
  const teamKey = await generateKeyPair("RS256", { extractable: true });
  const foreignKey = await generateKeyPair("RS256");
  const jwk: JWK = { ...(await exportJWK(teamKey.publicKey)), kid, alg: "RS256", use: "sig" };
  const body = JSON.stringify({ keys: [jwk] });

  let jwksRequests = 0;
  const server = createServer({ key: certificates.keyPem, cert: certificates.certPem }, (request, response) => {
    if (request.method === "GET" && request.url?.split("?")[0] === JWKS_PATH) {
      jwksRequests += 1;
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      response.end(body);
      return;
    }
    response.writeHead(404, { "content-type": "text/plain" });
    response.end("not found");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const teamDomain = `127.0.0.1:${port}`;
  const issuer = `https://${teamDomain}`;

  const signWith = async (key: CryptoKey, claims: AccessClaims = {}): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    const payload: AccessClaims = {
      aud: [aud],
      iss: issuer,
      sub: randomUUID(),
      email: "operator@example.com",
      type: "app",
      iat: now,
      nbf: now - 5,
      exp: now + TOKEN_LIFETIME_S,
      ...claims
    };
    return new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid, typ: "JWT" }).sign(key);
  };

  return {
    teamDomain,
    issuer,
    aud,
    caFile,
    jwksRequests: () => jwksRequests,
    sign: (claims) => signWith(teamKey.privateKey, claims),
    wrongAudience: () => signWith(teamKey.privateKey, { aud: [`not-${aud}`] }),
    expired: () => {
      const now = Math.floor(Date.now() / 1000);
      return signWith(teamKey.privateKey, { iat: now - 2 * TOKEN_LIFETIME_S, nbf: now - 2 * TOKEN_LIFETIME_S, exp: now - TOKEN_LIFETIME_S });
    },
    foreignKey: () => signWith(foreignKey.privateKey),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })
  };
}
