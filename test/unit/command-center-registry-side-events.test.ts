/**
 * The registry's side events: what a run posted on its issue (`notice`),
 * the reproduction page it published, what the egress gateway refused it,
 * and the private registries it used. Each lands on its run and reaches the
 * thread only while that run is current; a notice, a tally and a private
 * source are not activity. Plain, over the in-memory store.
 */
import { describe, expect, it } from "vitest";
import { recordEvent } from "../../src/command-center/registry";
import { claimThread, releaseClaim } from "../../src/command-center/thread-claims";
import { commandCenterEventSchema, type CommandCenterEvent } from "../../src/shared/command-center-events";
import { threadDetailSchema, threadSummarySchema } from "../../src/shared/command-center";
import { threadDetail } from "../../src/command-center/snapshot";
import { MemoryRegistryStore } from "../command-center/memory-store";
import { askedActive, COMMENT_URL, dispatched, ended, started, STALE, T0, thread, tool } from "../command-center/registry-events";

const notice = (
  at: number,
  kind: "rocket" | "closing" | "stale",
  state: "sent" | "failed",
  extra: { url?: string; error?: string } = {},
  submissionId = "s1"
): CommandCenterEvent => ({ type: "notice", session: "acme-widgets-7", submissionId, kind, state, at, ...extra });
const repro = (at: number, url: string, submissionId = "s1"): CommandCenterEvent => ({ type: "reproduction", session: "acme-widgets-7", submissionId, url, at });
const REPRO_URL = "https://agent-think.example.dev/repro/0123456789abcdef0123456789abcdef/";
const REPRO_URL_2 = "https://agent-think.example.dev/repro/private/fedcba9876543210fedcba9876543210/";
const egress = (at: number, blocked: Array<{ host: string; method: string; count: number }>, submissionId = "s1"): CommandCenterEvent => ({
  type: "egress",
  session: "acme-widgets-7",
  submissionId,
  blocked,
  at
});
const EVIL = { host: "evil.example", method: "GET", count: 1 };
const privateSources = (at: number, hosts: string[], submissionId = "s1"): CommandCenterEvent => ({
  type: "private-sources",
  session: "acme-widgets-7",
  submissionId,
  hosts,
  at
});

describe("thread registry: what the run posted on its issue", () => {
  it("shows each settled message of the current run, without counting it as activity", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, started(T0 + 10));
    expect(recordEvent(store, notice(T0 + 20, "rocket", "sent"))).toEqual({ applied: true });
    recordEvent(store, ended(T0 + 1_000, "done"));
    expect(recordEvent(store, notice(T0 + 1_500, "closing", "sent", { url: COMMENT_URL }))).toEqual({ applied: true });
    const summary = thread(store, T0 + 2_000)!;
    expect(summary.issueMessages).toEqual({ rocket: { state: "sent" }, closing: { state: "sent", url: COMMENT_URL } });
    expect(summary.lastActivityAt).toBe(T0 + 1_000);
    expect(threadSummarySchema.parse(summary)).toEqual(summary);
  });

  it("a stale notice does not make a quiet run look active", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, notice(T0 + STALE + 5, "stale", "sent", { url: COMMENT_URL }));
    askedActive(store, T0 + STALE + 6);
    expect(thread(store, T0 + STALE + 10)).toMatchObject({ stale: true, lastActivityAt: T0, issueMessages: { stale: { state: "sent" } } });
  });

  it("records why a message failed, redacted and cut, and drops a URL too long to be whole", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, notice(T0 + 1, "rocket", "sent", { url: `https://x.test/${"u".repeat(400)}` }));
    recordEvent(store, notice(T0 + 2, "closing", "failed", { error: `GitHub comment: 403 ghs_abcdefghijklmnopqrstuvwxyz0123 ${"e".repeat(1_000)}`, url: COMMENT_URL }));
    recordEvent(store, notice(T0 + 3, "stale", "failed"));
    const messages = thread(store)!.issueMessages!;
    expect(messages.rocket).toEqual({ state: "sent" });
    expect(messages.closing?.url).toBeUndefined();
    expect(messages.closing?.error).toMatch(/^GitHub comment: 403 \[redacted\] e+…$/);
    expect(messages.closing!.error!.length).toBeLessThanOrEqual(200);
    expect(messages.stale).toEqual({ state: "failed", error: "failed" });
  });

  it("is idempotent: the first report of a message wins, except that sent replaces failed", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, notice(T0 + 1, "closing", "failed", { error: "GitHub comment: 502" }));
    const once = thread(store);
    expect(recordEvent(store, notice(T0 + 1, "closing", "failed", { error: "GitHub comment: 502" }))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, notice(T0 + 2, "closing", "failed", { error: "other" }))).toEqual({ applied: false, reason: "duplicate" });
    expect(thread(store)).toEqual(once);
    expect(recordEvent(store, notice(T0 + 3, "closing", "sent", { url: COMMENT_URL }))).toEqual({ applied: true });
    expect(recordEvent(store, notice(T0 + 4, "closing", "failed", { error: "late" }))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, notice(T0 + 3, "closing", "sent", { url: COMMENT_URL }))).toEqual({ applied: false, reason: "duplicate" });
    expect(thread(store)?.issueMessages).toEqual({ closing: { state: "sent", url: COMMENT_URL } });
  });

  it("follows only the current run: an older run's message is ignored, a new run starts with none", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, notice(T0 + 1, "closing", "failed", { error: "GitHub comment: 404" }));
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 100 }));
    expect(thread(store)?.issueMessages).toBeUndefined();
    expect(recordEvent(store, notice(T0 + 150, "rocket", "sent", {}, "s1"))).toEqual({ applied: false, reason: "not_current" });
    expect(thread(store)?.issueMessages).toBeUndefined();
    recordEvent(store, notice(T0 + 200, "rocket", "sent", {}, "s2"));
    expect(thread(store)?.issueMessages).toEqual({ rocket: { state: "sent" } });
  });

  it("takes over a message that arrived before its run's dispatch", () => {
    const store = new MemoryRegistryStore();
    expect(recordEvent(store, notice(T0 + 50, "rocket", "sent"))).toEqual({ applied: false, reason: "not_current" });
    recordEvent(store, dispatched());
    expect(thread(store)?.issueMessages).toEqual({ rocket: { state: "sent" } });
  });

  it("keeps when the run's first message was posted: the earliest sent one, whatever order they arrive in, never a failed one", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, notice(T0 + 5, "rocket", "failed", { error: "GitHub reaction: 502" }));
    expect(store.getRun("acme-widgets-7", "s1")?.firstMessageAt).toBeUndefined();
    recordEvent(store, notice(T0 + 900, "closing", "sent", { url: COMMENT_URL }));
    expect(store.getRun("acme-widgets-7", "s1")?.firstMessageAt).toBe(T0 + 900);
    // The 🚀's retry was posted before the closing comment, and reported after it.
    recordEvent(store, notice(T0 + 40, "rocket", "sent"));
    expect(store.getRun("acme-widgets-7", "s1")?.firstMessageAt).toBe(T0 + 40);
    recordEvent(store, notice(T0 + 2_000, "stale", "sent", { url: COMMENT_URL }));
    expect(store.getRun("acme-widgets-7", "s1")?.firstMessageAt).toBe(T0 + 40);
  });

  it("keeps a message known after retention pruned the current run", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 10, "done"));
    recordEvent(store, notice(T0 + 20, "closing", "sent", { url: COMMENT_URL }));
    store.prune(T0 + 1_000_000, T0 + 1_000_000);
    expect(recordEvent(store, notice(T0 + 2_000_000, "closing", "failed", { error: "late" }))).toEqual({ applied: false, reason: "duplicate" });
    recordEvent(store, notice(T0 + 2_000_000, "rocket", "sent"));
    expect(thread(store)?.issueMessages).toEqual({ closing: { state: "sent", url: COMMENT_URL }, rocket: { state: "sent" } });
  });
});

describe("thread registry: the issue's reproduction page", () => {
  it("shows the current run's page on the thread, as activity", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 100, true, "a"));
    expect(recordEvent(store, repro(T0 + 200, REPRO_URL))).toEqual({ applied: true });
    const summary = thread(store, T0 + 300)!;
    expect(summary).toMatchObject({ reproductionUrl: REPRO_URL, lastActivityAt: T0 + 200, toolCalls: 1 });
    expect(threadSummarySchema.parse(summary)).toEqual(summary);
    expect(store.getRun("acme-widgets-7", "s1")).toMatchObject({ reproduction: { url: REPRO_URL, at: T0 + 200 }, touchedAt: T0 + 200 });
  });

  it("is idempotent: the same URL again is a duplicate, a newer one replaces it, an older one does not", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, repro(T0 + 200, REPRO_URL));
    expect(recordEvent(store, repro(T0 + 200, REPRO_URL))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, repro(T0 + 900, REPRO_URL))).toEqual({ applied: false, reason: "duplicate" });
    expect(thread(store)?.lastActivityAt).toBe(T0 + 200);

    expect(recordEvent(store, repro(T0 + 500, REPRO_URL_2))).toEqual({ applied: true });
    expect(thread(store)?.reproductionUrl).toBe(REPRO_URL_2);
    // A publication the newer one replaced, reported late (or at the same moment).
    expect(recordEvent(store, repro(T0 + 300, "https://agent-think.example.dev/repro/older/"))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, repro(T0 + 500, "https://agent-think.example.dev/repro/same-time/"))).toEqual({ applied: false, reason: "duplicate" });
    expect(thread(store)).toMatchObject({ reproductionUrl: REPRO_URL_2, lastActivityAt: T0 + 500 });
  });

  it("drops a URL that is not http(s) or is longer than 300 characters, never cutting it", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    const long = `https://agent-think.example.dev/repro/${"a".repeat(300)}/`;
    for (const bad of ["javascript:alert(1)", "data:text/html,x", "/repro/0123/", "", "not a url", long]) {
      expect(recordEvent(store, repro(T0 + 10, bad))).toEqual({ applied: false, reason: "invalid" });
    }
    expect(thread(store)?.reproductionUrl).toBeUndefined();
    expect(thread(store)?.lastActivityAt).toBe(T0);
    expect(store.getRun("acme-widgets-7", "s1")?.reproduction).toBeUndefined();

    const exactly300 = `http://x.test/${"a".repeat(300 - "http://x.test/".length)}`;
    expect(recordEvent(store, repro(T0 + 20, ` ${exactly300} `))).toEqual({ applied: true });
    expect(thread(store)?.reproductionUrl).toBe(exactly300);
  });

  it("keeps the page across later runs until a publication replaces it", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, repro(T0 + 200, REPRO_URL));
    recordEvent(store, ended(T0 + 1_000, "error", { error: "boom" }));
    // A continuation, then a new mention: the page stays published.
    claimThread(store, "acme-widgets-7", T0 + 2_000, STALE);
    expect(thread(store, T0 + 2_000)?.reproductionUrl).toBe(REPRO_URL);
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 2_100, instruction: "continue" }));
    expect(thread(store, T0 + 2_100)).toMatchObject({ submissionId: "s2", reproductionUrl: REPRO_URL });
    recordEvent(store, ended(T0 + 3_000, "done", {}, "s2"));
    recordEvent(store, dispatched({ submissionId: "s3", at: T0 + 4_000, instruction: "open a PR" }));
    expect(thread(store, T0 + 4_000)).toMatchObject({ submissionId: "s3", runCount: 3, reproductionUrl: REPRO_URL });

    expect(recordEvent(store, repro(T0 + 4_500, REPRO_URL_2, "s3"))).toEqual({ applied: true });
    expect(thread(store, T0 + 4_500)?.reproductionUrl).toBe(REPRO_URL_2);
  });

  it("a released claim keeps the page", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, repro(T0 + 200, REPRO_URL));
    recordEvent(store, ended(T0 + 1_000, "error", { error: "boom" }));
    claimThread(store, "acme-widgets-7", T0 + 2_000, STALE);
    releaseClaim(store, "acme-widgets-7", T0 + 2_100, "could not mint a token");
    expect(thread(store, T0 + 2_100)).toMatchObject({ status: "error", reproductionUrl: REPRO_URL });
  });

  it("follows only the current run: an older run's page does not reach the thread", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 100 }));
    expect(recordEvent(store, repro(T0 + 150, REPRO_URL, "s1"))).toEqual({ applied: false, reason: "not_current" });
    expect(thread(store)).toMatchObject({ submissionId: "s2", lastActivityAt: T0 + 100 });
    expect(thread(store)?.reproductionUrl).toBeUndefined();
    expect(store.getRun("acme-widgets-7", "s1")?.reproduction).toEqual({ url: REPRO_URL, at: T0 + 150 });
  });

  it("takes over a page published before its run's dispatch arrived, over the thread's earlier one", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, repro(T0 + 50, REPRO_URL));
    recordEvent(store, ended(T0 + 100, "done"));
    expect(recordEvent(store, repro(T0 + 900, REPRO_URL_2, "s2"))).toEqual({ applied: false, reason: "not_current" });
    expect(thread(store)?.reproductionUrl).toBe(REPRO_URL);
    expect(recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 500 }))).toEqual({ applied: true });
    expect(thread(store, T0 + 1_000)).toMatchObject({ submissionId: "s2", reproductionUrl: REPRO_URL_2, lastActivityAt: T0 + 900 });
  });
});

describe("thread registry: what the egress gateway refused a run", () => {
  it("keeps the run's tally and shows its total on the thread, without counting it as activity", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 100, true, "a"));
    expect(recordEvent(store, egress(T0 + 200, [EVIL]))).toEqual({ applied: true });
    const summary = thread(store, T0 + 300)!;
    expect(summary).toMatchObject({ blockedRequests: 1, lastActivityAt: T0 + 100 });
    expect(threadSummarySchema.parse(summary)).toEqual(summary);
    expect(store.getRun("acme-widgets-7", "s1")).toMatchObject({ blocked: [EVIL], touchedAt: T0 + 200 });
  });

  it("keeps the larger tally: the same one again, or an older one arriving late, changes nothing", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    const later = [
      { host: "api.github.com", method: "POST", count: 3 },
      { host: "evil.example", method: "GET", count: 1 }
    ];
    expect(recordEvent(store, egress(T0 + 500, later))).toEqual({ applied: true });
    expect(recordEvent(store, egress(T0 + 500, later))).toEqual({ applied: false, reason: "duplicate" });
    // The first tally, resent after the later one arrived.
    expect(recordEvent(store, egress(T0 + 200, [EVIL]))).toEqual({ applied: false, reason: "duplicate" });
    // As many requests in all is no news either, whatever its time.
    expect(recordEvent(store, egress(T0 + 900, [{ host: "other.example", method: "GET", count: 4 }]))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, egress(T0 + 900, []))).toEqual({ applied: false, reason: "duplicate" });
    expect(store.getRun("acme-widgets-7", "s1")?.blocked).toEqual(later);
    expect(thread(store)?.blockedRequests).toBe(4);

    const grown = [{ ...later[0]!, count: 4 }, later[1]!];
    expect(recordEvent(store, egress(T0 + 600, grown))).toEqual({ applied: true });
    expect(thread(store)?.blockedRequests).toBe(5);
  });

  it("takes the run's last tally after its end, as the agent sends it with the end", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 1_000, "done"));
    expect(recordEvent(store, egress(T0 + 1_000, [{ host: "evil.example", method: "GET", count: 2 }]))).toEqual({ applied: true });
    expect(thread(store, T0 + 2_000)).toMatchObject({ status: "done", blockedRequests: 2, lastActivityAt: T0 + 1_000 });
  });

  it("keeps an older run's tally on that run only, and a new run starts with none", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, egress(T0 + 50, [EVIL]));
    recordEvent(store, ended(T0 + 100, "error", { error: "boom" }));
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 200 }));
    expect(thread(store)?.blockedRequests).toBeUndefined();

    const tally = [{ host: "evil.example", method: "GET", count: 2 }];
    expect(recordEvent(store, egress(T0 + 300, tally, "s1"))).toEqual({ applied: false, reason: "not_current" });
    expect(recordEvent(store, egress(T0 + 300, tally, "s1"))).toEqual({ applied: false, reason: "duplicate" });
    expect(store.getRun("acme-widgets-7", "s1")?.blocked).toEqual(tally);
    expect(thread(store)?.blockedRequests).toBeUndefined();
    expect(thread(store)?.lastActivityAt).toBe(T0 + 200);

    const detail = threadDetail(store, "acme-widgets-7", T0 + 400, STALE);
    expect(detail?.runs.map((run) => [run.submissionId, run.blocked])).toEqual([
      ["s2", undefined],
      ["s1", tally]
    ]);
    expect(threadDetailSchema.parse(detail)).toEqual(detail);
  });

  it("takes over a tally that arrived before its run's dispatch", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    expect(recordEvent(store, egress(T0 + 900, [EVIL], "s2"))).toEqual({ applied: false, reason: "not_current" });
    expect(recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 500 }))).toEqual({ applied: true });
    expect(thread(store, T0 + 1_000)).toMatchObject({ submissionId: "s2", blockedRequests: 1 });
  });

  it("stores hosts redacted, most frequent first, at most 20", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    const token = `ghs_${"a".repeat(36)}`;
    const blocked = [
      { host: `${token}.evil.example`, method: "GET", count: 1 },
      ...Array.from({ length: 18 }, (_, i) => ({ host: `h${String(i).padStart(2, "0")}.example`, method: "GET", count: 2 })),
      { host: "api.github.com", method: "POST", count: 5 }
    ];
    expect(recordEvent(store, egress(T0 + 10, blocked))).toEqual({ applied: true });
    const kept = store.getRun("acme-widgets-7", "s1")!.blocked!;
    expect(kept).toHaveLength(20);
    expect(kept[0]).toEqual({ host: "api.github.com", method: "POST", count: 5 });
    expect(kept.at(-1)).toEqual({ host: "[redacted].evil.example", method: "GET", count: 1 });
    expect(JSON.stringify(kept)).not.toContain(token);

    // More than the schema allows (the command center refuses it as invalid; the registry alone still keeps 20).
    expect(recordEvent(store, egress(T0 + 20, [...kept, { host: "z.example", method: "GET", count: 1 }, { host: "y.example", method: "PUT", count: 9 }]))).toEqual({ applied: true });
    const capped = store.getRun("acme-widgets-7", "s1")!.blocked!;
    expect(capped).toHaveLength(20);
    expect(capped[0]).toEqual({ host: "y.example", method: "PUT", count: 9 });
    expect(capped.map((entry) => entry.host)).not.toContain("z.example");
  });
});

describe("thread registry: the private registries a run used", () => {
  it("keeps every host on the run, sorted, in whatever order the lists arrive; not activity; shown in the thread's detail", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, tool(T0 + 100, true, "a"));
    expect(recordEvent(store, privateSources(T0 + 200, ["npm.acme.example"]))).toEqual({ applied: true });
    expect(recordEvent(store, privateSources(T0 + 200, ["npm.acme.example"]))).toEqual({ applied: false, reason: "duplicate" });
    expect(recordEvent(store, privateSources(T0 + 400, ["maven.acme.example", "npm.acme.example"]))).toEqual({ applied: true });
    // The first list, resent after the longer one arrived, takes nothing away.
    expect(recordEvent(store, privateSources(T0 + 200, ["npm.acme.example"]))).toEqual({ applied: false, reason: "duplicate" });
    expect(store.getRun("acme-widgets-7", "s1")?.privateSources).toEqual(["maven.acme.example", "npm.acme.example"]);
    expect(thread(store, T0 + 500)?.lastActivityAt).toBe(T0 + 100);

    recordEvent(store, ended(T0 + 1_000, "done"));
    // The run's end brings its whole list again: nothing new.
    expect(recordEvent(store, privateSources(T0 + 1_000, ["maven.acme.example", "npm.acme.example"]))).toEqual({ applied: false, reason: "duplicate" });
    const detail = threadDetail(store, "acme-widgets-7", T0 + 2_000, STALE);
    expect(detail?.runs[0]?.privateSources).toEqual(["maven.acme.example", "npm.acme.example"]);
    expect(threadDetailSchema.parse(detail)).toEqual(detail);
  });

  it("keeps an older run's hosts on that run only; a run that used none shows none", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    recordEvent(store, ended(T0 + 100, "done"));
    recordEvent(store, dispatched({ submissionId: "s2", at: T0 + 200 }));
    expect(recordEvent(store, privateSources(T0 + 300, ["npm.acme.example"], "s1"))).toEqual({ applied: false, reason: "not_current" });
    const detail = threadDetail(store, "acme-widgets-7", T0 + 400, STALE);
    expect(detail?.runs.map((run) => [run.submissionId, run.privateSources])).toEqual([
      ["s2", undefined],
      ["s1", ["npm.acme.example"]]
    ]);
    expect(Object.keys(detail!.runs[0]!)).not.toContain("privateSources");
  });

  it("reads the event on the wire: one to 20 hosts, each a host's length; the events before it parse as they did", () => {
    const parses = (event: unknown) => commandCenterEventSchema.safeParse(event).success;
    expect(parses(privateSources(T0, ["npm.acme.example"]))).toBe(true);
    expect(parses(privateSources(T0, []))).toBe(false);
    expect(parses(privateSources(T0, Array.from({ length: 21 }, (_, i) => `r${i}.acme.example`)))).toBe(false);
    expect(parses(privateSources(T0, ["x".repeat(254)]))).toBe(false);
    expect(parses(egress(T0, [EVIL]))).toBe(true);
  });

  it("stores hosts redacted, at most 20", () => {
    const store = new MemoryRegistryStore();
    recordEvent(store, dispatched());
    const token = `ghs_${"b".repeat(36)}`;
    const hosts = [`${token}.acme.example`, ...Array.from({ length: 25 }, (_, i) => `r${String(i).padStart(2, "0")}.acme.example`)];
    expect(recordEvent(store, privateSources(T0 + 10, hosts))).toEqual({ applied: true });
    const kept = store.getRun("acme-widgets-7", "s1")!.privateSources!;
    expect(kept).toHaveLength(20);
    expect(kept).toEqual([...kept].sort());
    expect(JSON.stringify(kept)).not.toContain(token);
  });
});
