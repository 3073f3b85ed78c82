/** The App key as GitHub hands it out (PKCS#1) becomes the PKCS#8 WebCrypto imports. */
import { describe, expect, it } from "vitest";
import { fromBase64, PrivateKeyError, toPem, toPkcs8Pem } from "../src/github/private-key";
import { generatedPkcs8 } from "./support/keys";

/** The RSAPrivateKey inside a PKCS#8 PrivateKeyInfo: the content of its OCTET STRING (2048-bit keys use two length bytes). */
function innerPkcs1(pkcs8: Uint8Array): Uint8Array {
  const at = 4 + 3 + 15; // SEQUENCE header, version, AlgorithmIdentifier
  expect([pkcs8[at], pkcs8[at + 1]]).toEqual([0x04, 0x82]);
  const length = (pkcs8[at + 2]! << 8) | pkcs8[at + 3]!;
  return pkcs8.slice(at + 4, at + 4 + length);
}

const derOf = (pem: string) => fromBase64(pem.split("\n").slice(1, -1).join(""));

describe("toPkcs8Pem", () => {
  it("wraps a PKCS#1 key into exactly the PKCS#8 bytes WebCrypto exports, and the result imports", async () => {
    const pkcs8 = await generatedPkcs8();
    const converted = toPkcs8Pem(toPem("RSA PRIVATE KEY", innerPkcs1(pkcs8)));
    expect(converted).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(derOf(converted)).toEqual(pkcs8);
    const key = await crypto.subtle.importKey("pkcs8", derOf(converted), { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
    expect(key.type).toBe("private");
  });

  it("passes a PKCS#8 key through, and accepts keys kept on one line with escaped newlines or CRLF", async () => {
    const pem = toPem("PRIVATE KEY", await generatedPkcs8());
    expect(toPkcs8Pem(pem)).toBe(pem);
    expect(toPkcs8Pem(pem.replaceAll("\n", "\\n"))).toBe(pem);
    expect(toPkcs8Pem(`\n${pem.replaceAll("\n", "\r\n")}\r\n`)).toBe(pem);
  });

  it("refuses what is not an RSA private key, without quoting it", () => {
    const secretish = "ghs_thisMustNotAppearInAnError0000";
    expect(() => toPkcs8Pem(secretish)).toThrow(PrivateKeyError);
    expect(() => toPkcs8Pem(secretish)).toThrow(/^GITHUB_APP_PRIVATE_KEY is not a PEM private key$/);
    expect(() => toPkcs8Pem("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----")).toThrow(/"EC PRIVATE KEY" PEM/);
    expect(() => toPkcs8Pem(`-----BEGIN RSA PRIVATE KEY-----\n${secretish}!\n-----END RSA PRIVATE KEY-----`)).toThrow(
      /^GITHUB_APP_PRIVATE_KEY is not valid base64 inside its PEM armour$/
    );
  });
});
