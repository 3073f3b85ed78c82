/** What the egress tests share: joining Uint8Arrays, a body that arrives in chunks of a given size, reading one whole, public-suffix wildcards. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** `bytes` as a stream of `size`-byte chunks, as a body that arrives piece by piece; `onEnd` when it was read to its end. */
export function chunked(bytes: Uint8Array, size: number, onEnd?: () => void): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) {
        onEnd?.();
        return controller.close();
      }
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    }
  });
}

/** Everything `stream` sends, as one array. */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return concat(...chunks);
    chunks.push(value);
  }
}

/** Wildcards over a public suffix (the list's ICANN and private sections), each with the suffix a refusal names. */
export const PUBLIC_SUFFIX_WILDCARDS: Array<[string, string]> = [
  ["*.com", "com"],
  ["*.co.uk", "co.uk"],
  ["*.github.io", "github.io"],
  ["*.s3.amazonaws.com", "s3.amazonaws.com"],
  ["*.workers.dev", "workers.dev"],
  ["*.herokuapp.com", "herokuapp.com"]
];
