/**
 * The turn watchdog on fake timers: quiet past the window → one onQuiet;
 * activity inside the window → it looks again when the turn could next be
 * quiet; a turn that ended, or a stopped watch, → nothing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TurnWatchdog } from "../../src/run/watchdog";

beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => vi.useRealTimers());

function watchdog(options: { activity: () => number | undefined; current?: () => boolean }) {
  const quiet: Array<[string, number]> = [];
  const subject = new TurnWatchdog({
    windowMs: () => 1_000,
    isCurrent: async () => options.current?.() ?? true,
    lastActivity: async () => options.activity(),
    onQuiet: async (id, quietForMs) => void quiet.push([id, quietForMs]),
    onError: (_id, error) => {
      throw error;
    }
  });
  return { subject, quiet };
}

describe("TurnWatchdog", () => {
  it("calls onQuiet once for a turn quiet past the window", async () => {
    const { subject, quiet } = watchdog({ activity: () => 0 });
    subject.arm("s1");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(quiet).toEqual([["s1", 1_000]]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(quiet).toHaveLength(1);
  });

  it("looks again when a turn that was active could next be quiet", async () => {
    let last = 0;
    const { subject, quiet } = watchdog({ activity: () => last });
    subject.arm("s1");
    await vi.advanceTimersByTimeAsync(600);
    last = 600;
    await vi.advanceTimersByTimeAsync(400); // first check at 1,000: quiet only 400 ms
    expect(quiet).toEqual([]);
    await vi.advanceTimersByTimeAsync(600); // next check at 1,600
    expect(quiet).toEqual([["s1", 1_000]]);
  });

  it("does nothing for a turn that is no longer running, or once stopped", async () => {
    const ended = watchdog({ activity: () => 0, current: () => false });
    ended.subject.arm("s1");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(ended.quiet).toEqual([]);
    const stopped = watchdog({ activity: () => 0 });
    stopped.subject.arm("s1");
    stopped.subject.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(stopped.quiet).toEqual([]);
  });
});
