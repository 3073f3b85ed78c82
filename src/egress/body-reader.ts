/**
 * A request body read from its start into one growing buffer, for the
 * gateway's readers of a push (receive-pack.ts reads the commands,
 * pack-commits.ts the commits at the start of the pack) without buffering
 * the rest: `replay()` is the whole body again, what was read and then what
 * was not, to send on unchanged; and `readUpTo`, a body whole or, past a
 * bound, read so far and the rest. It does not parse anything. Pure: Web
 * Streams and bytes only.
 */

export class BodyReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer = new Uint8Array(4096);
  #length = 0;
  #ended = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** Every byte read so far, from the start of the body. */
  get bytes(): Uint8Array {
    return this.#buffer.subarray(0, this.#length);
  }

  /** Read one more chunk into `bytes`; false when the body has ended. */
  async more(): Promise<boolean> {
    if (this.#ended) return false;
    const { done, value } = await this.#reader.read();
    if (done) {
      this.#ended = true;
      return false;
    }
    this.#append(value);
    return true;
  }

  /** Read until `bytes` holds at least `length` bytes; false when the body ends first. */
  async fill(length: number): Promise<boolean> {
    while (this.#length < length) if (!(await this.more())) return false;
    return true;
  }

  /**
   * The bytes read so far, then the rest of the body as it arrives. Lazy
   * (nothing is pulled before its first read), so what `more` reads until
   * then is replayed too; nothing may be read through `more` after that.
   */
  replay(): ReadableStream<Uint8Array> {
    let replayed = 0;
    const reader = this.#reader;
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          if (replayed < this.#length) {
            controller.enqueue(this.#buffer.slice(replayed, this.#length));
            replayed = this.#length;
            return;
          }
          if (this.#ended) return controller.close();
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel(reason) {
          return reader.cancel(reason);
        }
      },
      { highWaterMark: 0 }
    );
  }

  /** Read the rest of the body and drop it, or cancel it past `limitBytes` (see drainReader). */
  drain(limitBytes: number): Promise<void> {
    if (this.#ended) return Promise.resolve();
    return drainReader(this.#reader, limitBytes);
  }

  #append(chunk: Uint8Array): void {
    if (this.#length + chunk.length > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(this.#buffer.length * 2, this.#length + chunk.length));
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
    this.#buffer.set(chunk, this.#length);
    this.#length += chunk.length;
  }
}

/** Read `reader` to its end, or cancel it past `limitBytes`: a sender that never stops is cut off. */
export async function drainReader(reader: ReadableStreamDefaultReader<Uint8Array>, limitBytes: number): Promise<void> {
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.length;
      if (read > limitBytes) {
        await reader.cancel().catch(() => {});
        return;
      }
    }
  } catch {
    // A sender that hung up has nothing left to send.
  }
}

/** The chunks as one array of bytes. */
export function joinChunks(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * The body whole when it is at most `limit` bytes; past that, `rest`: the
 * bytes read so far followed by the unread remainder, as one stream.
 */
export async function readUpTo(body: ReadableStream<Uint8Array>, limit: number): Promise<{ bytes: Uint8Array; rest?: undefined } | { rest: ReadableStream<Uint8Array> }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      return {
        rest: new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk);
          },
          async pull(controller) {
            const next = await reader.read();
            if (next.done) controller.close();
            else controller.enqueue(next.value);
          },
          cancel(reason) {
            return reader.cancel(reason);
          }
        })
      };
    }
  }
  return { bytes: joinChunks(chunks) };
}
