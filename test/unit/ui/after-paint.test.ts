import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { afterNextPaint } from "../../../src/ui/hooks/after-paint";

/** A browser's frame callbacks, run when the test says a frame is drawn. */
let frames: Map<number, (time: number) => void>;

beforeEach(() => {
  vi.useFakeTimers();
  frames = new Map();
  let next = 1;
  vi.stubGlobal("requestAnimationFrame", (callback: (time: number) => void) => {
    frames.set(next, callback);
    return next++;
  });
  vi.stubGlobal("cancelAnimationFrame", (id: number) => frames.delete(id));
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const drawFrame = () => {
  const pending = [...frames.values()];
  frames.clear();
  for (const callback of pending) callback(0);
};

describe("afterNextPaint", () => {
  it("runs the task once, in a task after the next frame, not before it", () => {
    const task = vi.fn();
    afterNextPaint(task);
    vi.advanceTimersByTime(100);
    expect(task).not.toHaveBeenCalled();
    drawFrame();
    expect(task).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(task).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5_000);
    expect(task).toHaveBeenCalledTimes(1);
  });

  it("runs it after a second where no frame comes (a background tab)", () => {
    const task = vi.fn();
    afterNextPaint(task);
    vi.advanceTimersByTime(1_000);
    expect(task).toHaveBeenCalledTimes(1);
    drawFrame();
    vi.advanceTimersByTime(0);
    expect(task).toHaveBeenCalledTimes(1);
  });

  it("runs nothing once cancelled, before or after the frame", () => {
    const early = vi.fn();
    afterNextPaint(early)();
    drawFrame();
    vi.advanceTimersByTime(2_000);
    expect(early).not.toHaveBeenCalled();

    const late = vi.fn();
    const cancel = afterNextPaint(late);
    drawFrame();
    cancel();
    vi.advanceTimersByTime(2_000);
    expect(late).not.toHaveBeenCalled();
  });
});
