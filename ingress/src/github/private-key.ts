/**
 * The GitHub App's private key as the JWT signer needs it. GitHub hands out
 * PKCS#1 PEM ("BEGIN RSA PRIVATE KEY"); WebCrypto, which signs the App JWT in
 * workerd, imports only PKCS#8. This wraps a PKCS#1 key in the PKCS#8
 * envelope (the same bytes `openssl pkcs8 -topk8 -nocrypt` writes) so an
 * operator can paste the downloaded key as it is. Escaped `\n` line breaks
 * (keys kept in one-line env files) are accepted too.
 *
 * Pure. Never puts the key, or any part of it, into an error message.
 */
const PKCS1_LABEL = "RSA PRIVATE KEY";
const PKCS8_LABEL = "PRIVATE KEY";
const PEM = /^-----BEGIN ([A-Z ]+)-----\n([\s\S]*?)\n-----END \1-----$/;

/** AlgorithmIdentifier { rsaEncryption (1.2.840.113549.1.1.1), NULL }, DER. */
const RSA_ALGORITHM_ID = [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];
const PKCS8_VERSION_0 = [0x02, 0x01, 0x00];
const DER_SEQUENCE = 0x30;
const DER_OCTET_STRING = 0x04;

export class PrivateKeyError extends Error {
  override readonly name = "PrivateKeyError";
  readonly code = "bad_private_key";
}

/** The key as PKCS#8 PEM, from PKCS#1 or PKCS#8 PEM; throws PrivateKeyError for anything else. */
export function toPkcs8Pem(key: string): string {
  const pem = key.replace(/\\n/g, "\n").replace(/\r\n?/g, "\n").trim();
  const match = PEM.exec(pem);
  if (!match) throw new PrivateKeyError("GITHUB_APP_PRIVATE_KEY is not a PEM private key");
  const [, label, body] = match as unknown as [string, string, string];
  if (label === PKCS8_LABEL) return pem;
  if (label !== PKCS1_LABEL) {
    throw new PrivateKeyError(`GITHUB_APP_PRIVATE_KEY is a "${label}" PEM; expected an RSA private key (PKCS#1 or PKCS#8)`);
  }
  let pkcs1: Uint8Array;
  try {
    pkcs1 = fromBase64(body.replace(/\s+/g, ""));
  } catch {
    throw new PrivateKeyError("GITHUB_APP_PRIVATE_KEY is not valid base64 inside its PEM armour");
  }
  return toPem(PKCS8_LABEL, wrapPkcs1(pkcs1));
}

/**
 * Whether WebCrypto can sign with `pkcs8Pem` (toPkcs8Pem's output) as the
 * App's JWT is signed (RS256). A PEM whose inside is not a usable RSA key
 * passes toPkcs8Pem and would otherwise fail only inside the signer, where
 * it reads as GitHub not answering.
 */
export async function canSign(pkcs8Pem: string): Promise<boolean> {
  const match = PEM.exec(pkcs8Pem);
  if (!match) return false;
  try {
    await crypto.subtle.importKey("pkcs8", fromBase64((match[2] ?? "").replace(/\s+/g, "")), { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
    return true;
  } catch {
    return false;
  }
}

/** PrivateKeyInfo { version 0, rsaEncryption, OCTET STRING pkcs1 } (RFC 5208). */
export function wrapPkcs1(pkcs1: Uint8Array): Uint8Array {
  const octets = derElement(DER_OCTET_STRING, pkcs1);
  return derElement(DER_SEQUENCE, concat([Uint8Array.from(PKCS8_VERSION_0), Uint8Array.from(RSA_ALGORITHM_ID), octets]));
}

export function toPem(label: string, der: Uint8Array): string {
  const lines = toBase64(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----`;
}

function derElement(tag: number, content: Uint8Array): Uint8Array {
  return concat([Uint8Array.of(tag), derLength(content.length), content]);
}

function derLength(length: number): Uint8Array {
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Uint8Array.from([0x80 | bytes.length, ...bytes]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
