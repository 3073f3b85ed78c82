/** readCapped (src/shared/capped-body.ts): a body whole, or the count at which it passed the cap, its stream cancelled then. */
import { describe, expect, it } from "vitest";
import { readCapped } from "../../src/shared/capped-body";

/** A stream of `chunks`, noting whether it was cancelled and how many chunks were pulled. */
function streamOf(chunks: number[]) {
  const seen = { cancelled: false, pulled: 0 };
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next === chunks.length) return controller.close();
      seen.pulled++;
      controller.enqueue(new Uint8Array(chunks[next++]!).fill(next));
    },
    cancel() {
      seen.cancelled = true;
    }
  });
  return { stream, seen };
}

describe("readCapped", () => {
  it("reads a body up to the cap whole, in order", async () => {
    const { stream, seen } = streamOf([3, 2]);
    expect(Array.from((await readCapped(stream, 5)) as Uint8Array)).toEqual([1, 1, 1, 2, 2]);
    expect(seen.cancelled).toBe(false);
  });

  it("stops at the first chunk past the cap, cancels the stream and says how much had come", async () => {
    const { stream, seen } = streamOf([4, 4, 4, 4]);
    expect(await readCapped(stream, 6)).toEqual({ over: 8 });
    expect(seen.cancelled).toBe(true);
    // Never the whole body: at most the chunk past the cap and the one the stream queued behind it.
    expect(seen.pulled).toBeLessThan(4);
  });

  it("reads a missing body as empty", async () => {
    expect(await readCapped(null, 1)).toEqual(new Uint8Array());
  });
});
