/**
 * A throwaway certificate authority and one server certificate it issued
 * for the IP address 127.0.0.1, made fresh for each test run (RSA keys from
 * node:crypto, certificates assembled and signed with node-forge: CI has no
 * `openssl` and nothing is committed). A Worker under `wrangler dev` trusts
 * the CA when wrangler is started with `NODE_EXTRA_CA_CERTS` naming the file
 * `writeCaFile` wrote; nothing else on the machine does.
 *
 * Used by `access-issuer.ts` for its HTTPS JWKS. Not a general PKI: one CA,
 * one leaf, valid a day either side of now.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import forge from "node-forge";

export type TestCertificates = {
  /** The CA certificate, PEM: what the client must trust. */
  caPem: string;
  /** The server certificate (subjectAltName IP 127.0.0.1), PEM. */
  certPem: string;
  /** The server certificate's private key, PEM. */
  keyPem: string;
};

const DAY_MS = 24 * 60 * 60 * 1000;

export function makeTestCertificates(options: { ip?: string; commonName?: string } = {}): TestCertificates {
  const ip = options.ip ?? "127.0.0.1";
  const ca = rsaKeyPair();
  const leaf = rsaKeyPair();

  const caSubject = [
    { name: "commonName", value: "agent-think e2e throwaway CA" },
    { name: "organizationName", value: "agent-think tests" }
  ];
  const caCert = certificate(ca.publicKey, caSubject, caSubject, [
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" }
  ]);
  caCert.sign(ca.privateKey, forge.md.sha256.create());

  const leafCert = certificate(
    leaf.publicKey,
    [{ name: "commonName", value: options.commonName ?? ip }],
    caSubject,
    [
      { name: "basicConstraints", cA: false, critical: true },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      // type 7: iPAddress. Clients match an IP literal against this, never the CN.
      { name: "subjectAltName", altNames: [{ type: 7, ip }] },
      { name: "subjectKeyIdentifier" },
      { name: "authorityKeyIdentifier", keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() }
    ]
  );
  leafCert.sign(ca.privateKey, forge.md.sha256.create());

  return {
    caPem: forge.pki.certificateToPem(caCert),
    certPem: forge.pki.certificateToPem(leafCert),
    keyPem: leaf.privateKeyPem
  };
}

/** Writes the CA certificate as `ca.pem` in `directory` and returns its path (for NODE_EXTRA_CA_CERTS). */
export async function writeCaFile(directory: string, certificates: TestCertificates): Promise<string> {
  const path = join(directory, "ca.pem");
  await writeFile(path, certificates.caPem);
  return path;
}

function certificate(
  publicKey: forge.pki.PublicKey,
  subject: forge.pki.CertificateField[],
  issuer: forge.pki.CertificateField[],
  extensions: object[]
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // A positive serial: the top bit clear.
  cert.serialNumber = `01${randomBytes(15).toString("hex")}`;
  const now = Date.now();
  cert.validity.notBefore = new Date(now - DAY_MS);
  cert.validity.notAfter = new Date(now + DAY_MS);
  cert.setSubject(subject);
  cert.setIssuer(issuer);
  cert.setExtensions(extensions);
  return cert;
}

/** node:crypto makes the key (forge's own RSA key generation is pure JS and slow). */
function rsaKeyPair() {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" }
  });
  return {
    publicKey: forge.pki.publicKeyFromPem(publicKey),
    privateKey: forge.pki.privateKeyFromPem(privateKey),
    privateKeyPem: privateKey
  };
}
