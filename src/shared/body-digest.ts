/**
 * The digest both Workers take of an issue's body, to tell one edited after
 * the mention: the hex SHA-256 of the body's UTF-8 bytes exactly as GitHub
 * gives it (null, an issue without a body, as ""). The webhook app sends it
 * with the dispatch (`issueBodySha256`); a run compares it with the body it
 * reads before the model starts (src/steps/prepare.ts). Pure (WebCrypto).
 */
export async function bodySha256(body: string | null): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body ?? ""));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
