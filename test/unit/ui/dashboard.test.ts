import { describe, expect, it } from "vitest";
import type { CommandCenterState, Snapshot } from "../../../src/shared/command-center";
import {
  combineSources,
  connectionView,
  MAX_POLL_INTERVAL_MS,
  POLL_INTERVAL_MS,
  pollDelayMs,
  shouldPoll,
  snapshotPath
} from "../../../src/ui/view-models/dashboard";
import { metrics, NOW, thread } from "./fixtures";

const live: CommandCenterState = {
  metrics: { ...metrics, runs24h: 20 },
  recent: [thread({ session: "s1", status: "running", lastActivityAt: NOW })],
  total: 60,
  updatedAt: NOW
};

const snapshot = (generatedAt: number, threads = [thread({ session: "s2", lastActivityAt: NOW - 90_000 })]): Snapshot => ({
  metrics: { ...metrics, runs24h: 7 },
  threads,
  total: 2,
  generatedAt
});

describe("combineSources", () => {
  it("takes metrics from the fresher source and merges every thread", () => {
    const fromLive = combineSources(live, [snapshot(NOW - 5_000)]);
    expect(fromLive).toMatchObject({ source: "live", total: 60, asOf: NOW });
    expect(fromLive.metrics?.runs24h).toBe(20);
    expect(fromLive.threads.map((t) => t.session)).toEqual(["s1", "s2"]);

    const fromPoll = combineSources(live, [snapshot(NOW + 5_000)]);
    expect(fromPoll).toMatchObject({ source: "snapshot", asOf: NOW + 5_000 });
    expect(fromPoll.metrics?.runs24h).toBe(7);
    expect(fromPoll.total).toBe(2);
  });

  it("takes a thread from the fresher source when its activity did not move (an issue message settled)", () => {
    const answered = thread({ session: "s1", status: "running", lastActivityAt: NOW, issueMessages: { rocket: { state: "sent" } } });
    const polled = snapshot(NOW + 5_000, [answered]);
    expect(combineSources(live, [polled]).threads[0]?.issueMessages).toEqual({ rocket: { state: "sent" } });
    expect(combineSources({ ...live, updatedAt: NOW + 9_000 }, [polled]).threads[0]?.issueMessages).toBeUndefined();
  });

  it("never reports fewer threads in total than it lists", () => {
    const many = snapshot(NOW, [thread({ session: "a" }), thread({ session: "b" }), thread({ session: "c" })]);
    expect(combineSources(null, [many]).total).toBe(3);
  });

  it("is empty with no source yet", () => {
    expect(combineSources(null, [])).toEqual({ metrics: null, threads: [], total: 0, asOf: null, source: "none" });
  });
});

describe("polling", () => {
  it("polls while the socket is not open or has not delivered state", () => {
    expect(shouldPoll("open", true)).toBe(false);
    expect(shouldPoll("open", false)).toBe(true);
    expect(shouldPoll("closed", true)).toBe(true);
    expect(shouldPoll("connecting", false)).toBe(true);
  });

  it("polls every few seconds, backing off after failures, capped", () => {
    expect(pollDelayMs(0)).toBe(POLL_INTERVAL_MS);
    expect(pollDelayMs(1)).toBe(2 * POLL_INTERVAL_MS);
    expect(pollDelayMs(50)).toBe(MAX_POLL_INTERVAL_MS);
  });

  it("asks for a page by cursor and limit", () => {
    expect(snapshotPath()).toBe("/api/command-center?limit=100");
    expect(snapshotPath("abc=", 20)).toBe("/api/command-center?cursor=abc%3D&limit=20");
  });

  it("labels the connection", () => {
    expect(connectionView("open", false, false).label).toBe("live");
    expect(connectionView("closed", true, false).label).toBe("polling");
    expect(connectionView("closed", true, true).label).toBe("offline");
    expect(connectionView("connecting", false, false).label).toBe("connecting");
  });
});
