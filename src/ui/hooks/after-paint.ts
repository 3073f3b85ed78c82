/**
 * Work that the first frame must not wait for (the live socket's chunk, the
 * health report): started once the browser has drawn the next frame, or
 * after FALLBACK_MS where no frame comes (a tab opened in the background).
 */
const FALLBACK_MS = 1_000;

/** The browser's frame clock, named here so the test project (no DOM types) compiles this too. */
type FrameClock = { requestAnimationFrame(callback: () => void): number; cancelAnimationFrame(id: number): void };
const clock = globalThis as unknown as FrameClock;

/** Runs `task` once, after the next frame; the returned function cancels it. */
export function afterNextPaint(task: () => void): () => void {
  let done = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    if (done) return;
    done = true;
    clock.cancelAnimationFrame(frame);
    clearTimeout(fallback);
    task();
  };
  // A task queued from requestAnimationFrame runs once that frame's rendering is done.
  const frame = clock.requestAnimationFrame(() => {
    timer = setTimeout(run, 0);
  });
  const fallback = setTimeout(run, FALLBACK_MS);
  return () => {
    done = true;
    clock.cancelAnimationFrame(frame);
    clearTimeout(fallback);
    if (timer !== undefined) clearTimeout(timer);
  };
}
