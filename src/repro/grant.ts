/**
 * Grants for reproductions of private repositories: Access is checked once, on the page's
 * address (`/repro/private/<id>/…`); the Worker then redirects to a granted one
 * (`/repro/private/<id>.<expires>.<mac>/…`: an HMAC-SHA256 over the id and an expiry an hour
 * ahead), under which the page and what it loads by relative URL are served; an expired grant
 * goes back through Access. Why (a sandboxed page loads without the Access cookie):
 * docs/security.md, Reproduction pages. Pure apart from WebCrypto; the key is a parameter.
 */
import { PUBLICATION_ID } from "./publish";

export const GRANT_TTL_MS = 60 * 60 * 1000;

/** `<id>.<expires, epoch seconds>.<base64url HMAC>`: one URL segment. */
export const GRANTED_SEGMENT = /^([0-9a-f]{32})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

export async function importGrantKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

/** The granted URL segment for publication `id`, valid until `now + GRANT_TTL_MS`. */
export async function grantSegment(key: CryptoKey, id: string, now: number): Promise<string> {
  if (!PUBLICATION_ID.test(id)) throw new TypeError("not a publication id");
  const expires = Math.floor((now + GRANT_TTL_MS) / 1000);
  return `${id}.${expires}.${await mac(key, id, expires)}`;
}

export type GrantCheck = { ok: true; id: string } | { ok: false; reason: "invalid" } | { ok: false; reason: "expired"; id: string };

export async function checkGrant(key: CryptoKey, segment: string, now: number): Promise<GrantCheck> {
  const match = GRANTED_SEGMENT.exec(segment);
  if (!match) return { ok: false, reason: "invalid" };
  const [, id, expiresText, signature] = match as unknown as [string, string, string, string];
  const expires = Number(expiresText);
  const valid = await crypto.subtle.verify("HMAC", key, fromBase64Url(signature), message(id, expires));
  if (!valid) return { ok: false, reason: "invalid" };
  return expires * 1000 <= now ? { ok: false, reason: "expired", id } : { ok: true, id };
}

function message(id: string, expires: number): Uint8Array {
  return new TextEncoder().encode(`agent-think repro grant\n${id}\n${expires}`);
}

async function mac(key: CryptoKey, id: string, expires: number): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", key, message(id, expires))));
}

function toBase64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
