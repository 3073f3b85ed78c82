/**
 * Delivering one outbox entry: the attempt is counted before the call, a
 * comment attempted before is looked up by its marker instead of posted
 * again, a 401 gets one try with a fresh token, and failures are retried
 * with backoff or given up as GitHub's answer says, and no sooner than
 * GitHub asked (Retry-After, x-ratelimit-reset, a minute for a rate limit).
 */
import { describe, expect, it } from "vitest";
import { GitHubCallError, toCallError, type GitHubClient } from "../../src/github/client";
import { closingNotice, rocketNotice } from "../../src/report/notices";
import {
  deliver,
  MAX_DELIVERY_ATTEMPTS,
  nextAttemptDelayMs,
  Outbox,
  RATE_LIMIT_MAX_WAIT_MS,
  RATE_LIMIT_MIN_WAIT_MS,
  retryDelayMs,
  type OutboxEntry
} from "../../src/report/outbox";

const run = { repo: "acme/app", issueNumber: 3, submissionId: "s1", threadUrl: "https://bot.test/thread/acme-app-3" };

function memoryStorage() {
  const map = new Map<string, unknown>();
  return {
    map,
    get: async <T>(key: string) => map.get(key) as T | undefined,
    put: async <T>(key: string, value: T) => void map.set(key, structuredClone(value)),
    list: async <T>({ prefix }: { prefix: string }) =>
      new Map([...map].filter(([key]) => key.startsWith(prefix)) as Array<[string, T]>)
  };
}

function fakeClient(script: { comment?: Array<Error | null>; find?: string | null } = {}) {
  const calls: string[] = [];
  const client: GitHubClient = {
    async react(_repo, commentId, content) {
      calls.push(`react ${commentId} ${content}`);
    },
    async comment() {
      calls.push("comment");
      const failure = script.comment?.shift();
      if (failure) throw failure;
      return { id: 1, url: "https://gh.test/c/1" };
    },
    async findComment(_repo, _issue, marker) {
      calls.push(`find ${marker}`);
      return script.find ? { id: 2, url: script.find } : null;
    }
  };
  return { client, calls };
}

async function added(outbox: Outbox, notice = closingNotice(run, { kind: "interrupted" })) {
  return (await outbox.add(notice, 1_000))!;
}

describe("outbox", () => {
  it("keeps one entry per id", async () => {
    const outbox = new Outbox(memoryStorage());
    expect(await outbox.add(closingNotice(run, { kind: "interrupted" }), 1)).not.toBeNull();
    expect(await outbox.add(closingNotice(run, { kind: "failed", error: "other" }), 2)).toBeNull();
    expect(await outbox.all()).toHaveLength(1);
  });

  it("posts a first attempt without searching, and records where", async () => {
    const outbox = new Outbox(memoryStorage());
    const { client, calls } = fakeClient();
    const result = await deliver(await added(outbox), { outbox, client, now: () => 5 });
    expect(result).toMatchObject({ outcome: "sent", found: false, entry: { state: "sent", attempts: 1, url: "https://gh.test/c/1", sentAt: 5 } });
    expect(calls).toEqual(["comment"]);
    expect((await outbox.get("s1:closing"))!.state).toBe("sent");
  });

  it("finds a comment an earlier attempt posted instead of posting it again", async () => {
    const outbox = new Outbox(memoryStorage());
    const entry: OutboxEntry = { ...(await added(outbox)), attempts: 1 };
    const { client, calls } = fakeClient({ find: "https://gh.test/c/earlier" });
    const result = await deliver(entry, { outbox, client, now: () => 5 });
    expect(result).toMatchObject({ outcome: "sent", found: true, entry: { url: "https://gh.test/c/earlier", attempts: 2 } });
    expect(calls).toEqual(["find <!-- agent-think:s1:closing -->"]);
  });

  it("counts the attempt durably before calling GitHub", async () => {
    const storage = memoryStorage();
    const outbox = new Outbox(storage);
    const entry = await added(outbox);
    let seen: number | undefined;
    const client: GitHubClient = {
      ...fakeClient().client,
      async comment() {
        seen = (await outbox.get(entry.id))!.attempts;
        return { id: 1, url: "u" };
      }
    };
    await deliver(entry, { outbox, client, now: () => 1 });
    expect(seen).toBe(1);
  });

  it("retries a retryable failure with backoff, and gives up after the last attempt", async () => {
    const outbox = new Outbox(memoryStorage());
    const { client } = fakeClient({ comment: [new GitHubCallError("GitHub comment: 502", "retryable", 502)] });
    const first = await deliver(await added(outbox), { outbox, client, now: () => 1 });
    expect(first).toMatchObject({ outcome: "retry", inMs: retryDelayMs(1), entry: { state: "pending", lastError: "GitHub comment: 502" } });
    const last: OutboxEntry = { ...first.entry, attempts: MAX_DELIVERY_ATTEMPTS - 1 };
    const failing = fakeClient({ comment: [new GitHubCallError("GitHub comment: 503", "retryable", 503)] });
    expect(await deliver(last, { outbox, client: failing.client, now: () => 1 })).toMatchObject({ outcome: "failed" });
  });

  it("gives up at once on a refusal", async () => {
    const outbox = new Outbox(memoryStorage());
    const { client } = fakeClient({ comment: [new GitHubCallError("GitHub comment: 422 Validation Failed", "rejected", 422)] });
    expect(await deliver(await added(outbox), { outbox, client, now: () => 1 })).toMatchObject({
      outcome: "failed",
      entry: { state: "failed", attempts: 1, lastError: "GitHub comment: 422 Validation Failed" }
    });
  });

  it("tries once more with a fresh token after a 401", async () => {
    const outbox = new Outbox(memoryStorage());
    const stale = fakeClient({ comment: [new GitHubCallError("GitHub comment: 401", "unauthorized", 401)] });
    const fresh = fakeClient();
    const result = await deliver(await added(outbox), { outbox, client: stale.client, refreshClient: async () => fresh.client, now: () => 1 });
    expect(result.outcome).toBe("sent");
    expect(fresh.calls).toEqual(["comment"]);
    const noBroker = fakeClient({ comment: [new GitHubCallError("GitHub comment: 401", "unauthorized", 401)] });
    const outbox2 = new Outbox(memoryStorage());
    expect(await deliver(await added(outbox2), { outbox: outbox2, client: noBroker.client, refreshClient: async () => null, now: () => 1 })).toMatchObject({
      outcome: "retry"
    });
  });

  it("reacts 🚀 on the triggering comment", async () => {
    const outbox = new Outbox(memoryStorage());
    const { client, calls } = fakeClient();
    await deliver(await added(outbox, rocketNotice(run, 77)), { outbox, client, now: () => 1 });
    expect(calls).toEqual(["react 77 rocket"]);
  });

  it("leaves a delivered entry alone", async () => {
    const outbox = new Outbox(memoryStorage());
    const { client, calls } = fakeClient();
    const sent = { ...(await added(outbox)), state: "sent" as const };
    expect((await deliver(sent, { outbox, client, now: () => 1 })).outcome).toBe("skipped");
    expect(calls).toEqual([]);
  });
});

describe("when to try again", () => {
  const NOW = 1_700_000_000_000;
  /** Octokit's error for a response with `status` and `headers`. */
  const answer = (status: number, headers: Record<string, string>, message = "failed") =>
    toCallError("comment", Object.assign(new Error(message), { status, response: { headers, data: { message } } }));

  it("waits as long as Retry-After says", () => {
    expect(nextAttemptDelayMs(answer(503, { "retry-after": "7" }), 1, NOW)).toEqual({ inMs: 7_000, asked: true });
    expect(nextAttemptDelayMs(answer(502, { "retry-after": "0" }), 1, NOW)).toEqual({ inMs: 0, asked: true });
  });

  it("waits until x-ratelimit-reset when x-ratelimit-remaining is 0", () => {
    const reset = String(NOW / 1_000 + 600);
    const spent = answer(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }, "API rate limit exceeded for installation");
    expect(spent).toMatchObject({ kind: "retryable", retry: { rateLimited: true, remaining: 0, resetEpochSeconds: Number(reset) } });
    expect(nextAttemptDelayMs(spent, 1, NOW)).toEqual({ inMs: 601_000, asked: true });
    // Remaining requests: the reset time says nothing about this failure.
    expect(nextAttemptDelayMs(answer(502, { "x-ratelimit-remaining": "10", "x-ratelimit-reset": reset }), 1, NOW)).toEqual({ inMs: retryDelayMs(1), asked: false });
  });

  it("waits at least a minute for a secondary rate limit (403 or 429 with those headers)", () => {
    const secondary = answer(403, { "retry-after": "5" }, "You have exceeded a secondary rate limit");
    expect(nextAttemptDelayMs(secondary, 1, NOW)).toEqual({ inMs: RATE_LIMIT_MIN_WAIT_MS, asked: true });
    expect(nextAttemptDelayMs(answer(429, { "retry-after": "120" }), 1, NOW)).toEqual({ inMs: 120_000, asked: true });
    expect(nextAttemptDelayMs(answer(429, {}), 1, NOW)).toEqual({ inMs: RATE_LIMIT_MIN_WAIT_MS, asked: true });
    const soonReset = answer(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(NOW / 1_000 + 2) });
    expect(nextAttemptDelayMs(soonReset, 1, NOW)).toEqual({ inMs: RATE_LIMIT_MIN_WAIT_MS, asked: true });
    // A 403 with Retry-After is a rate limit whatever its message says.
    expect(answer(403, { "retry-after": "30" }, "Forbidden")).toMatchObject({ kind: "retryable", retry: { rateLimited: true } });
  });

  it("keeps the backoff when GitHub says nothing, and never waits past an hour", () => {
    expect(nextAttemptDelayMs(answer(502, {}), 1, NOW)).toEqual({ inMs: 2_000, asked: false });
    expect(nextAttemptDelayMs(answer(502, {}), 2, NOW)).toEqual({ inMs: 10_000, asked: false });
    expect(nextAttemptDelayMs(answer(503, { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }), 1, NOW)).toEqual({ inMs: 2_000, asked: false });
    expect(nextAttemptDelayMs(answer(503, { "retry-after": "999999" }), 1, NOW)).toEqual({ inMs: RATE_LIMIT_MAX_WAIT_MS, asked: true });
    // A permission 403 carries the rate-limit headers too (remaining above 0): it is refused, not waited for.
    expect(answer(403, { "x-ratelimit-remaining": "4999", "x-ratelimit-reset": "1" }, "Resource not accessible by integration").kind).toBe("rejected");
  });

  it("keeps the wait GitHub asked for on the entry, and tries nothing before it", async () => {
    const outbox = new Outbox(memoryStorage());
    const { client, calls } = fakeClient({ comment: [answer(403, { "retry-after": "90" }, "secondary rate limit")] });
    const first = await deliver(await added(outbox), { outbox, client, now: () => NOW });
    expect(first).toMatchObject({ outcome: "retry", inMs: 90_000, rateLimited: true, entry: { state: "pending", notBefore: NOW + 90_000 } });
    expect((await outbox.get("s1:closing"))!.notBefore).toBe(NOW + 90_000);
    const early = await deliver(first.entry, { outbox, client, now: () => NOW + 30_000 });
    expect(early).toMatchObject({ outcome: "waiting", inMs: 60_000 });
    expect(calls).toEqual(["comment"]);
    const due = await deliver(first.entry, { outbox, client, now: () => NOW + 90_000 });
    expect(due).toMatchObject({ outcome: "sent" });
    expect(due.entry.notBefore).toBeUndefined();
    // The plain backoff keeps its old shape: no wait is recorded, a pass may try sooner.
    const other = new Outbox(memoryStorage());
    const plain = await deliver(await added(other), { outbox: other, client: fakeClient({ comment: [answer(502, {})] }).client, now: () => NOW });
    expect(plain).toMatchObject({ outcome: "retry", inMs: 2_000, rateLimited: false });
    expect(plain.entry.notBefore).toBeUndefined();
  });
});

describe("GitHub errors", () => {
  it("are sorted by whether a fresh token, a later try, or neither can help", () => {
    const withStatus = (status: number, message = "x") => Object.assign(new Error("e"), { status, response: { data: { message } } });
    expect(toCallError("comment", withStatus(401)).kind).toBe("unauthorized");
    expect(toCallError("comment", withStatus(502)).kind).toBe("retryable");
    expect(toCallError("comment", withStatus(429)).kind).toBe("retryable");
    expect(toCallError("comment", withStatus(403, "API rate limit exceeded")).kind).toBe("retryable");
    expect(toCallError("comment", withStatus(403, "Resource not accessible by integration")).kind).toBe("rejected");
    expect(toCallError("comment", withStatus(404, "Not Found")).message).toBe("GitHub comment: 404 Not Found");
    expect(toCallError("comment", new TypeError("fetch failed"))).toMatchObject({ kind: "retryable", message: "GitHub comment: fetch failed" });
  });
});
