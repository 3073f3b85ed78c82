import { describe, expect, it } from "vitest";
import { RunReports } from "../../src/report/run-reports";
import type { RunRef } from "../../src/report/run-ref";
import type { CommandCenterEvent } from "../../src/shared/command-center-events";

/** Both halves of a Durable Object's storage, in memory. */
function memoryStorage() {
  const map = new Map<string, unknown>();
  const kv = {
    get: <T,>(key: string) => map.get(key) as T | undefined,
    put: <T,>(key: string, value: T) => void map.set(key, structuredClone(value)),
    delete: (key: string) => map.delete(key),
    *list<T>({ prefix }: { prefix: string }): Iterable<[string, T]> {
      for (const [key, value] of map) if (key.startsWith(prefix)) yield [key, value as T];
    }
  };
  return {
    kv,
    get: async <T,>(key: string) => kv.get<T>(key),
    put: async <T,>(key: string, value: T) => kv.put(key, value),
    list: async <T,>({ prefix }: { prefix: string }) => new Map([...kv.list<T>({ prefix })])
  };
}

function reports() {
  const events: CommandCenterEvent[] = [];
  const logs: string[] = [];
  const background: Promise<unknown>[] = [];
  const sink = {
    record: async (event: unknown) => void events.push(event as CommandCenterEvent),
    recordBatch: async (batch: unknown[]) => void events.push(...(batch as CommandCenterEvent[]))
  };
  const subject = new RunReports({
    storage: memoryStorage(),
    session: () => "acme-widgets-7",
    commandCenter: async () => sink,
    // Reporting to GitHub off: the issue's messages are logged, not posted.
    github: { apiUrl: () => "", token: async () => "ghs_secret", botLogin: async () => "agent-think[bot]" },
    redact: (text) => text.replaceAll("ghs_secret", "[redacted]"),
    redactDeep: (value) => JSON.parse(JSON.stringify(value).replaceAll("ghs_secret", "[redacted]")),
    schedules: { listSchedules: async () => [], schedule: async () => ({}) as never, cancelSchedule: async () => false },
    waitUntil: (promise) => void background.push(promise),
    log: (event) => void logs.push(event),
    now: () => 1_000
  });
  return { subject, events, logs, settle: () => Promise.all(background) };
}

const run: RunRef = { repo: "acme/widgets", issueNumber: 7, submissionId: "s1", threadUrl: "https://x.test/thread/a", publicBaseUrl: "https://x.test", githubWebUrl: "https://github.com" };

describe("RunReports", () => {
  it("reports how a run ended: done, failed with its error redacted, cancelled without one, tokens only when used, the outcome it reported", async () => {
    const { subject, events, logs, settle } = reports();
    await subject.turnEnded("s1", { run, ending: { kind: "finished", text: "ok" }, usage: { input: 0, output: 0, steps: 1 }, at: 5 });
    await subject.turnEnded("s2", { run: null, ending: { kind: "failed", error: "bad ghs_secret" }, usage: { input: 3, output: 4, steps: 1 }, at: 6 });
    await subject.turnEnded("s3", { run: null, ending: { kind: "cancelled", reason: "stopped by @a" }, at: 7 });
    await subject.turnEnded("s4", { run: null, ending: { kind: "budget", limit: { kind: "steps", steps: 250 } }, at: 8 });
    await subject.turnEnded("s5", { run: null, ending: { kind: "result", result: { outcome: "needs-info", summary: "Which version?" } }, at: 9 });
    await settle();
    expect(events).toEqual([
      { type: "turn-ended", session: "acme-widgets-7", submissionId: "s1", status: "done", at: 5 },
      { type: "turn-ended", session: "acme-widgets-7", submissionId: "s2", status: "error", error: "bad [redacted]", tokens: { input: 3, output: 4 }, at: 6 },
      { type: "turn-ended", session: "acme-widgets-7", submissionId: "s3", status: "cancelled", at: 7 },
      { type: "turn-ended", session: "acme-widgets-7", submissionId: "s4", status: "error", error: "budget exhausted: step cap of 250", at: 8 },
      { type: "turn-ended", session: "acme-widgets-7", submissionId: "s5", status: "done", outcome: "needs-info", at: 9 }
    ]);
    // The closing message is queued only for a known run (here logged: reporting is off).
    expect(logs.filter((event) => event === "github:off")).toHaveLength(1);
    expect(subject.pendingEvents()).toBe(0);
  });

  it("reports a recovery, and the turn that resumes it once", async () => {
    const { subject, events, settle } = reports();
    subject.resumedIfRecovering("s1", 1);
    subject.recovering("s1", 2);
    subject.resumedIfRecovering("s1", 3);
    subject.resumedIfRecovering("s1", 4);
    await settle();
    expect(events.map((event) => (event.type === "recovery" ? `${event.state}:${event.recoveries}` : event.type))).toEqual(["recovering:1", "resumed:1"]);
  });
});
