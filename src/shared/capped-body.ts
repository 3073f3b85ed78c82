/**
 * A body read whole, or not at all once it passes a size: a chunked body
 * has no Content-Length to trust, so the cap is counted as the bytes arrive
 * and the stream is cancelled at the first chunk over it. Used for webhook
 * deliveries (ingress) and the attachments the Worker fetches for a run.
 */

/** `body`'s bytes, or `{ over }` (the bytes read when it passed `maxBytes`) with the stream cancelled. A missing body is empty. */
export async function readCapped(body: ReadableStream<Uint8Array> | null | undefined, maxBytes: number): Promise<Uint8Array | { over: number }> {
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return { over: total };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
