/**
 * StaleRefresh: one pending wake-up, the earliest asked for, translated from
 * the agent's clock to real time; a failed request is logged and forgotten,
 * and a wake-up clears it.
 */
import { describe, expect, it } from "vitest";
import { StaleRefresh } from "../../src/command-center/stale-refresh";

function refresh(request: (at: number) => Promise<void> = async () => {}) {
  const asked: number[] = [];
  const logged: Array<{ event: string; fields?: Record<string, unknown> }> = [];
  const stale = new StaleRefresh({
    request: (at) => {
      asked.push(at);
      return request(at);
    },
    clock: () => 1_000, // the agent's clock: a test's, far from real time
    wallClock: () => 50_000,
    log: (event, fields) => void logged.push({ event, fields })
  });
  return { stale, asked, logged };
}

describe("StaleRefresh", () => {
  it("asks for the earliest wake-up only, in real time", () => {
    const { stale, asked } = refresh();
    stale.schedule(undefined);
    stale.schedule(4_000);
    stale.schedule(5_000); // later than the pending one
    stale.schedule(4_000);
    stale.schedule(2_000); // earlier: asked again
    stale.schedule(500); // already due: at once
    expect(asked).toEqual([53_000, 51_000, 50_000]);
  });

  it("asks again after the wake-up came", () => {
    const { stale, asked } = refresh();
    stale.schedule(2_000);
    stale.woke();
    stale.schedule(3_000);
    expect(asked).toEqual([51_000, 52_000]);
  });

  it("forgets a request that failed, so the next flush asks again", async () => {
    const failure = Promise.reject(new Error("storage is gone"));
    let fail = true;
    const { stale, asked, logged } = refresh(() => (fail ? failure : Promise.resolve()));
    stale.schedule(2_000);
    // Its handler was attached first, so it has run once this one has.
    await failure.catch(() => {});
    expect(logged).toEqual([{ event: "stale-refresh:failed", fields: { error: "storage is gone" } }]);
    fail = false;
    stale.schedule(3_000);
    expect(asked).toEqual([51_000, 52_000]);
  });
});
