/**
 * The reporter over a GitHub that a stub fetch plays: a notice queued while
 * a delivery pass is in flight goes out in the same call, not at the next
 * scheduled pass; with no API URL nothing is kept or sent; each entry that
 * settles is handed to `onSettled`, and becomes the command center's
 * `notice` event. A rate limit ends a pass and the next one comes when
 * GitHub said; a body too long for GitHub is capped as it is queued. The
 * marker search trusts the run's bot, and a run with no bot posts nothing
 * and says so.
 */
import { describe, expect, it } from "vitest";
import { MAX_COMMENT_BODY_CHARS } from "../../src/report/body-cap";
import { closingNotice, rocketNotice, type Notice } from "../../src/report/notices";
import { noticeEvent } from "../../src/report/notice-event";
import type { OutboxEntry } from "../../src/report/outbox";
import { Reporter } from "../../src/report/reporter";
import { commandCenterEventSchema } from "../../src/shared/command-center-events";
import { memoryClonedStorage } from "./memory-storage";

const run = { repo: "acme/app", issueNumber: 3, submissionId: "s1", threadUrl: "https://bot.test/thread/acme-app-3" };

function slowGitHub(delayMs: number) {
  const requests: string[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    requests.push(`${init?.method ?? "GET"} ${url.pathname}`);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    const body = url.pathname.endsWith("/reactions") ? { id: 1, content: "rocket" } : { id: 2, html_url: "https://gh.test/c/2" };
    return new Response(JSON.stringify(body), { status: 201, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

function reporter(
  apiUrl: string,
  fetch: typeof globalThis.fetch,
  retries: number[] = [],
  onSettled?: (entry: OutboxEntry) => void,
  extra: { botLogin?: () => Promise<string>; now?: () => number } = {}
) {
  const logged: string[] = [];
  return {
    logged,
    reporter: new Reporter({
      storage: memoryClonedStorage(),
      apiUrl: () => apiUrl,
      token: async () => "ghs_x",
      botLogin: async () => "agent-think[bot]",
      scheduleDelivery: async (inMs) => void retries.push(inMs),
      waitUntil: () => {},
      log: (event) => void logged.push(event),
      ...(onSettled ? { onSettled } : {}),
      ...extra,
      fetch
    })
  };
}

/** GitHub answering each path with its status; a comment gets its page. */
function statusGitHub(statusFor: (path: string) => number) {
  return (async (input: RequestInfo | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const status = statusFor(url.pathname);
    const body = status >= 400 ? { message: "Resource not accessible by integration" } : { id: 2, html_url: "https://gh.test/c/2" };
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
}

describe("Reporter", () => {
  it("delivers a notice queued during a pass before the call returns", async () => {
    const github = slowGitHub(30);
    const { reporter: subject } = reporter("https://gh.test/api/v3", github.fetch);
    await subject.enqueue(rocketNotice(run, 5));
    const first = subject.deliverPending();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await subject.enqueue(closingNotice(run, { kind: "interrupted" }));
    const second = subject.deliverPending();
    await Promise.all([first, second]);
    expect(github.requests).toEqual(["POST /api/v3/repos/acme/app/issues/comments/5/reactions", "POST /api/v3/repos/acme/app/issues/3/comments"]);
    expect((await subject.entries()).map((entry) => entry.state)).toEqual(["sent", "sent"]);
  });

  it("keeps and sends nothing without an API URL, and says so", async () => {
    const github = slowGitHub(0);
    const { reporter: subject, logged } = reporter("", github.fetch);
    expect(await subject.enqueue(rocketNotice(run, 5))).toBe(false);
    await subject.deliverPending();
    expect(github.requests).toEqual([]);
    expect(await subject.entries()).toEqual([]);
    expect(logged).toEqual(["github:off"]);
  });

  it("asks for a retry when GitHub is down", async () => {
    const retries: number[] = [];
    const down = (async () => new Response("{}", { status: 503 })) as unknown as typeof globalThis.fetch;
    const { reporter: subject } = reporter("https://gh.test/api/v3", down, retries);
    await subject.enqueue(closingNotice(run, { kind: "interrupted" }));
    await subject.deliverPending();
    expect(retries).toEqual([2_000]);
    expect((await subject.entries())[0]).toMatchObject({ state: "pending", attempts: 1, lastError: expect.stringMatching(/^GitHub comment: 503/) });
  });

  it("hands each entry that ends sent or failed to onSettled, and none that waits for a retry", async () => {
    const settled: OutboxEntry[] = [];
    const github = statusGitHub((path) => (path.endsWith("/reactions") ? 503 : path.endsWith("/comments") ? 403 : 201));
    const { reporter: subject } = reporter("https://gh.test/api/v3", github, [], (entry) => void settled.push(entry));
    await subject.enqueue(rocketNotice(run, 5));
    await subject.enqueue(closingNotice(run, { kind: "interrupted" }));
    await subject.deliverPending();
    expect(settled).toEqual([
      expect.objectContaining({ kind: "closing", state: "failed", lastError: "GitHub comment: 403 Resource not accessible by integration" })
    ]);

    const ok = reporter("https://gh.test/api/v3", statusGitHub(() => 201), [], (entry) => void settled.push(entry));
    await ok.reporter.enqueue(closingNotice(run, { kind: "interrupted" }));
    await ok.reporter.deliverPending();
    expect(settled[1]).toMatchObject({ kind: "closing", state: "sent", url: "https://gh.test/c/2" });
  });

  it("keeps delivering when onSettled throws, and logs it", async () => {
    const { reporter: subject, logged } = reporter("https://gh.test/api/v3", statusGitHub(() => 201), [], () => {
      throw new Error("sink down");
    });
    await subject.enqueue(rocketNotice(run, 5));
    await subject.enqueue(closingNotice(run, { kind: "interrupted" }));
    await subject.deliverPending();
    expect((await subject.entries()).map((entry) => entry.state)).toEqual(["sent", "sent"]);
    expect(logged.filter((event) => event === "github:on-settled-failed")).toHaveLength(2);
  });
});

describe("Reporter and GitHub's limits", () => {
  it("ends a pass at a rate limit and comes back when Retry-After says, leaving the other notices for then", async () => {
    const retries: number[] = [];
    const requests: string[] = [];
    const limited = (async (input: RequestInfo | URL) => {
      requests.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
      return new Response(JSON.stringify({ message: "You have exceeded a secondary rate limit." }), {
        status: 403,
        headers: { "content-type": "application/json", "retry-after": "90" }
      });
    }) as typeof globalThis.fetch;
    let now = 1_000_000;
    const { reporter: subject, logged } = reporter("https://gh.test/api/v3", limited, retries, undefined, { now: () => now });
    await subject.enqueue(closingNotice(run, { kind: "interrupted" }));
    await subject.enqueue(closingNotice({ ...run, submissionId: "s2" }, { kind: "interrupted" }));
    await subject.deliverPending();
    expect(requests).toHaveLength(1);
    expect(retries).toEqual([90_000]);
    expect(logged).toContain("github:retry");
    const [first, second] = await subject.entries();
    expect(first).toMatchObject({ attempts: 1, notBefore: 1_090_000 });
    expect(second).toMatchObject({ attempts: 0 });
    // An early pass (a new notice, the backstop) tries the waiting one no sooner, and schedules for what is left.
    now += 30_000;
    retries.length = 0;
    requests.length = 0;
    await subject.deliverPending();
    expect(requests).toHaveLength(1);
    expect((await subject.entries())[0]).toMatchObject({ attempts: 1 });
    expect(Math.min(...retries)).toBe(60_000);
  });

  it("caps a body too long for GitHub as it is queued, after redaction", async () => {
    const github = slowGitHub(0);
    const { reporter: subject } = reporter("https://gh.test/api/v3", github.fetch);
    const huge: Notice = { ...closingNotice(run, { kind: "interrupted" }), body: `<!-- agent-think:s1:closing -->\n${"line\n".repeat(20_000)}` };
    await subject.enqueue(huge);
    const [entry] = await subject.entries();
    expect(entry!.body!.length).toBeLessThanOrEqual(MAX_COMMENT_BODY_CHARS);
    expect(entry!.body!.startsWith("<!-- agent-think:s1:closing -->\n")).toBe(true);
    expect(entry!.body).toContain("cut to fit GitHub's size limit");
  });

  it("looks for its marker among the comments of the run's bot", async () => {
    const calls: string[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      calls.push(`${init?.method ?? "GET"} ${new URL(input instanceof Request ? input.url : String(input)).pathname}`);
      const comments = [{ id: 9, body: "<!-- agent-think:s1:closing -->\nx", html_url: "https://gh.test/c/9", user: { login: "acme-think[bot]", type: "Bot" } }];
      return new Response(JSON.stringify(comments), { status: 200, headers: { "content-type": "application/json" } });
    }) as typeof globalThis.fetch;
    const storage = memoryClonedStorage();
    // An earlier attempt was cut off: this one searches first.
    const notice = closingNotice(run, { kind: "interrupted" });
    await storage.put(`agent-think:outbox:${notice.id}`, { ...notice, state: "pending", attempts: 1, createdAt: Date.now() });
    const subject = new Reporter({
      storage,
      apiUrl: () => "https://gh.test/api/v3",
      token: async () => "ghs_x",
      botLogin: async () => "acme-think[bot]",
      scheduleDelivery: async () => {},
      waitUntil: () => {},
      log: () => {},
      fetch
    });
    await subject.deliverPending();
    expect(calls).toEqual(["GET /api/v3/repos/acme/app/issues/3/comments"]);
    expect((await subject.entries())[0]).toMatchObject({ state: "sent", url: "https://gh.test/c/9" });
  });

  it("posts nothing as an unknown bot: a run with no identity fails its pass loudly and keeps its notices", async () => {
    const github = slowGitHub(0);
    const { reporter: subject, logged } = reporter("https://gh.test/api/v3", github.fetch, [], undefined, {
      botLogin: async () => {
        throw new Error("the App's bot identity is missing");
      }
    });
    const errors: string[] = [];
    await subject.enqueue(closingNotice(run, { kind: "interrupted" }));
    await subject.deliverPending().catch((error: Error) => void errors.push(error.message));
    expect(errors).toEqual(["the App's bot identity is missing"]);
    expect(github.requests).toEqual([]);
    expect((await subject.entries())[0]).toMatchObject({ state: "pending", attempts: 0 });
    expect(logged).toEqual(["github:queued"]);
  });
});

describe("noticeEvent", () => {
  const entry = (fields: Partial<OutboxEntry>): OutboxEntry => ({
    ...closingNotice(run, { kind: "interrupted" }),
    state: "sent",
    attempts: 1,
    createdAt: 1_000,
    ...fields
  });

  it("reports a sent comment with its page, at the time it was sent", () => {
    const event = noticeEvent("acme-app-3", entry({ sentAt: 2_000, url: "https://gh.test/c/2" }), { now: 9_000 });
    expect(event).toEqual({ type: "notice", session: "acme-app-3", submissionId: "s1", kind: "closing", state: "sent", url: "https://gh.test/c/2", at: 2_000 });
    expect(commandCenterEventSchema.parse(event)).toEqual(event);
  });

  it("reports a failure with its error, redacted, now", () => {
    const event = noticeEvent("acme-app-3", entry({ state: "failed", lastError: "GitHub comment: 403 ghs_secret" }), {
      now: 9_000,
      redact: (text) => text.replace("ghs_secret", "[redacted]")
    });
    expect(event).toEqual({
      type: "notice",
      session: "acme-app-3",
      submissionId: "s1",
      kind: "closing",
      state: "failed",
      error: "GitHub comment: 403 [redacted]",
      at: 9_000
    });
  });

  it("has nothing to report for a pending entry", () => {
    expect(noticeEvent("acme-app-3", entry({ state: "pending" }), { now: 1 })).toBeNull();
  });
});
