import { describe, expect, it } from "vitest";
import {
  CENTER_OUTBOX_PREFIX,
  CENTER_SWEEP_KEY,
  centerEventId,
  CenterReports,
  FLUSH_BATCH,
  MAX_PENDING_AGE_MS,
  reportSafely,
  SWEEP_DELAYS_MS,
  type CenterOutboxStorage,
  type EventSink
} from "../../src/command-center/report";
import type { CommandCenterEvent } from "../../src/shared/command-center-events";
import { RunRecoveries } from "../../src/run/recoveries";

describe("reportSafely", () => {
  it("resolves whatever the sender does, and tells the sink", async () => {
    const errors: unknown[] = [];
    await expect(reportSafely(async () => "ok", (error) => errors.push(error))).resolves.toBeUndefined();
    await expect(reportSafely(async () => { throw new Error("down"); }, (error) => errors.push(error))).resolves.toBeUndefined();
    await expect(reportSafely(() => { throw new Error("sync"); }, (error) => errors.push(error))).resolves.toBeUndefined();
    await expect(reportSafely(async () => { throw new Error("x"); }, () => { throw new Error("sink"); })).resolves.toBeUndefined();
    expect(errors.map((error) => (error as Error).message)).toEqual(["down", "sync"]);
  });
});

/** The Durable Object's synchronous KV, in memory, copying values in and out as storage does. */
class MemoryKv implements CenterOutboxStorage {
  readonly map = new Map<string, unknown>();
  get<T>(key: string) {
    return structuredClone(this.map.get(key)) as T | undefined;
  }
  put<T>(key: string, value: T) {
    this.map.set(key, structuredClone(value));
  }
  delete(key: string) {
    return this.map.delete(key);
  }
  *list<T>({ prefix, limit = Infinity }: { prefix: string; limit?: number }): Iterable<[string, T]> {
    let n = 0;
    for (const key of [...this.map.keys()].sort()) {
      if (!key.startsWith(prefix) || n++ >= limit) continue;
      yield [key, structuredClone(this.map.get(key)) as T];
    }
  }
  outbox() {
    return [...this.map.keys()].filter((key) => key.startsWith(CENTER_OUTBOX_PREFIX));
  }
}

/** A command center that records what it got, and fails while `down`. */
class Center implements EventSink {
  down = false;
  received: unknown[] = [];
  batches = 0;
  async record(event: unknown) {
    if (this.down) throw new Error("command center unreachable");
    this.received.push(event);
    return { applied: true };
  }
  async recordBatch(events: unknown[]) {
    if (this.down) throw new Error("command center unreachable");
    this.batches++;
    this.received.push(...events);
    return events.map(() => ({ applied: true }));
  }
}

const T0 = 1_700_000_000_000;
const tool = (n: number): CommandCenterEvent => ({ type: "tool", session: "acme-widgets-7", submissionId: "s1", tool: "bash", ok: true, toolCallId: `call-${n}`, at: T0 + n });
const ended: CommandCenterEvent = { type: "turn-ended", session: "acme-widgets-7", submissionId: "s1", status: "error", error: "token ghs_secret leaked", at: T0 + 9 };

function reporter(overrides: { now?: () => number } = {}) {
  const kv = new MemoryKv();
  const center = new Center();
  const sweeps: number[] = [];
  const logs: string[] = [];
  const background: Promise<unknown>[] = [];
  const reports = new CenterReports({
    storage: kv,
    center: async () => center,
    redact: (value) => JSON.parse(JSON.stringify(value).replaceAll("ghs_secret", "[redacted]")),
    waitUntil: (promise) => void background.push(promise),
    scheduleSweep: async (inMs) => void sweeps.push(inMs),
    now: overrides.now ?? (() => T0 + 1_000),
    log: (event) => void logs.push(event)
  });
  return { kv, center, sweeps, logs, reports, settle: () => Promise.all(background) };
}

describe("CenterReports: the command-center outbox", () => {
  it("records each event, redacted, before it leaves, and forgets it once acknowledged", async () => {
    const { kv, center, reports, sweeps } = reporter();
    const sending = reports.send(ended);
    // Written before the command center answered, redacted.
    expect(kv.outbox()).toEqual([CENTER_OUTBOX_PREFIX + "turn-ended:s1"]);
    expect(JSON.stringify([...kv.map.values()])).not.toContain("ghs_secret");
    // A sweep is scheduled before the send, so a killed process is woken again.
    expect(sweeps).toEqual([SWEEP_DELAYS_MS[0]]);
    await sending;
    expect(center.received).toEqual([{ ...ended, error: "token [redacted] leaked" }]);
    expect(kv.outbox()).toEqual([]);
  });

  it("keeps what the command center did not take and resends it, in batches, until it does", async () => {
    const { kv, center, reports, logs } = reporter();
    center.down = true;
    for (let n = 0; n < FLUSH_BATCH + 5; n++) await reports.send(tool(n));
    expect(kv.outbox()).toHaveLength(FLUSH_BATCH + 5);
    expect(logs).toContain("command-center:report-failed");

    expect(await reports.flush()).toEqual({ delivered: 0, dropped: 0, pending: FLUSH_BATCH + 5 });
    expect(reports.pending().every((entry) => entry.attempts === 1)).toBe(true);

    center.down = false;
    expect(await reports.flush()).toEqual({ delivered: FLUSH_BATCH + 5, dropped: 0, pending: 0 });
    expect(center.batches).toBe(2);
    expect(kv.outbox()).toEqual([]);
    // Oldest first: the order they happened in.
    expect((center.received as CommandCenterEvent[]).map((event) => (event as { toolCallId: string }).toolCallId)[0]).toBe("call-0");
  });

  it("the same event sent twice is one entry: its id is its identity in the registry", async () => {
    const { kv, center, reports } = reporter();
    center.down = true;
    await reports.send(tool(1));
    await reports.send(tool(1));
    expect(kv.outbox()).toHaveLength(1);
  });

  it("schedules one sweep at a time, backing off while something is still owed", async () => {
    let now = T0;
    const { center, reports, sweeps } = reporter({ now: () => now });
    center.down = true;
    await reports.send(tool(1));
    await reports.send(tool(2));
    expect(sweeps).toEqual([SWEEP_DELAYS_MS[0]]);
    now += SWEEP_DELAYS_MS[0];
    await reports.sweep();
    expect(sweeps).toEqual([SWEEP_DELAYS_MS[0], SWEEP_DELAYS_MS[1]]);
    now += SWEEP_DELAYS_MS[1];
    center.down = false;
    expect(await reports.sweep()).toMatchObject({ delivered: 2, pending: 0 });
    expect(sweeps).toHaveLength(2);
  });

  it("drops an event too old to change what the command center shows, and says so", async () => {
    let now = T0;
    const { kv, center, reports, logs } = reporter({ now: () => now });
    center.down = true;
    await reports.send(tool(1));
    now += MAX_PENDING_AGE_MS + 1;
    center.down = false;
    expect(await reports.flush()).toEqual({ delivered: 0, dropped: 1, pending: 0 });
    expect(kv.outbox()).toEqual([]);
    expect(logs).toContain("command-center:event-dropped");
  });

  it("never throws into the turn, even when storage does", async () => {
    const { reports, logs } = reporter();
    const broken = new CenterReports({
      storage: { get: () => undefined, put: () => { throw new Error("disk full"); }, delete: () => false, list: () => [] },
      center: async () => { throw new Error("never reached"); },
      redact: (value) => value,
      waitUntil: () => {},
      scheduleSweep: async () => {},
      now: () => T0,
      log: (event) => void logs.push(event)
    });
    await expect(broken.send(tool(1))).resolves.toBeUndefined();
    expect(logs).toContain("command-center:outbox-failed");
    expect(reports).toBeDefined();
  });

  it("keeps the command center's stub while it works, and gets a fresh one after a failure", async () => {
    const center = new Center();
    let gets = 0;
    const reports = new CenterReports({
      storage: new MemoryKv(),
      center: async () => {
        gets++;
        return center;
      },
      redact: (value) => value,
      waitUntil: () => {},
      scheduleSweep: async () => {},
      now: () => T0,
      log: () => {}
    });
    for (let n = 0; n < 5; n++) await reports.send(tool(n));
    expect(gets).toBe(1);
    center.down = true;
    await reports.send(tool(5));
    center.down = false;
    await reports.send(tool(6));
    expect(gets).toBe(2);
    expect(center.received).toHaveLength(6);
  });

  it("names each event by run and kind, and by what makes it distinct within a run", () => {
    const base = { session: "a-b-1", submissionId: "s9", at: T0 };
    expect(centerEventId({ ...base, type: "turn-started" })).toBe("turn-started:s9");
    expect(centerEventId({ ...base, type: "tool", tool: "bash", ok: false })).toBe(`tool:s9:bash@${T0}`);
    expect(centerEventId({ ...base, type: "notice", kind: "closing", state: "failed" })).toBe("notice:s9:closing:failed");
    expect(centerEventId({ ...base, type: "recovery", state: "resumed", recoveries: 2 })).toBe("recovery:s9:2:resumed");
    expect(centerEventId({ ...base, type: "reproduction", url: "https://x.example/repro/a/" })).toBe(`reproduction:s9:${T0}`);
    // A tally is named by its total: a resend is the same event, a grown tally a new one.
    const tally = [
      { host: "api.github.com", method: "POST", count: 3 },
      { host: "evil.example", method: "GET", count: 1 }
    ];
    expect(centerEventId({ ...base, type: "egress", blocked: tally })).toBe("egress:s9:4");
    expect(centerEventId({ ...base, at: T0 + 5, type: "egress", blocked: tally })).toBe("egress:s9:4");
    expect(centerEventId({ ...base, type: "egress", blocked: [{ ...tally[0]!, count: 4 }, tally[1]!] })).toBe("egress:s9:5");
    // A run's private sources only grow: a list is named by its length.
    expect(centerEventId({ ...base, type: "private-sources", hosts: ["npm.acme.example"] })).toBe("private-sources:s9:1");
    expect(centerEventId({ ...base, at: T0 + 5, type: "private-sources", hosts: ["npm.acme.example"] })).toBe("private-sources:s9:1");
    expect(centerEventId({ ...base, type: "private-sources", hosts: ["maven.acme.example", "npm.acme.example"] })).toBe("private-sources:s9:2");
  });
});

describe("RunRecoveries", () => {
  it("counts each takeover, resumes it once, and forgets the run when it ends", () => {
    const kv = new MemoryKv();
    const recoveries = new RunRecoveries(kv);
    expect(recoveries.resumed("a-b-1", "s1", T0)).toBeNull();
    expect(recoveries.interrupted("a-b-1", "s1", T0)).toMatchObject({ type: "recovery", state: "recovering", recoveries: 1 });
    expect(recoveries.resumed("a-b-1", "s1", T0 + 1)).toMatchObject({ state: "resumed", recoveries: 1 });
    expect(recoveries.resumed("a-b-1", "s1", T0 + 2)).toBeNull();
    expect(recoveries.interrupted("a-b-1", "s1", T0 + 3)).toMatchObject({ recoveries: 2 });
    recoveries.forget("s1");
    expect(recoveries.get("s1")).toBeUndefined();
  });
});
