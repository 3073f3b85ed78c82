/**
 * The webhook app's Octokit (ingress/src/github/octokit.ts): what
 * @octokit/plugin-retry and @octokit/plugin-throttling do with GitHub's
 * answers, as configured here, over a scripted fetch. Waits run in
 * milliseconds (retryBaseMs 1), so a figure of seconds is read as
 * milliseconds here; so does the pacing of one client's writes.
 */
import { describe, expect, it } from "vitest";
import { clientOptions } from "../../src/github/app-client";
import { GitHubOctokit, MAX_IN_PROCESS_WAIT_SECONDS, patienceOptions } from "../../src/github/octokit";
import { createLogger } from "../../src/log";

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

function github(answers: Answer[], retryBaseMs = 1) {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({}, [], (line) => lines.push(JSON.parse(line.slice(line.indexOf("{"))) as Record<string, unknown>));
  let asked = 0;
  const askedAt: number[] = [];
  const fetch = async () => {
    askedAt.push(Date.now());
    const answer = answers[Math.min(asked++, answers.length - 1)]!;
    return new Response(JSON.stringify(answer.body ?? {}), { status: answer.status, headers: { "content-type": "application/json", ...answer.headers } });
  };
  const options = clientOptions("https://api.github.test", log, { retryBaseMs });
  const octokit = new GitHubOctokit({ ...options, request: { fetch }, auth: "ghs_test" });
  const react = () => octokit.rest.reactions.createForIssueComment({ owner: "acme", repo: "widgets", comment_id: 1, content: "eyes" });
  return { react, asked: () => asked, askedAt, lines };
}

const created: Answer = { status: 201, body: { id: 1, content: "eyes" } };
const secondary = (retryAfter: string): Answer => ({
  status: 403,
  body: { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." },
  headers: { "retry-after": retryAfter }
});

describe("GitHub's transient failures and rate limits, handled by Octokit's plugins", () => {
  it("tries a 5xx twice more, then gives up with GitHub's status", async () => {
    const { react, asked } = github([{ status: 502 }]);
    await expect(react()).rejects.toMatchObject({ status: 502 });
    expect(asked()).toBe(3);
  });

  it("succeeds when GitHub recovers within the retries", async () => {
    const { react, asked } = github([{ status: 503 }, { status: 500 }, created]);
    await expect(react()).resolves.toMatchObject({ status: 201 });
    expect(asked()).toBe(3);
  });

  it("never retries a 4xx that is not a rate limit", async () => {
    for (const status of [401, 404, 422]) {
      const { react, asked } = github([{ status, body: { message: "no" } }]);
      await expect(react()).rejects.toMatchObject({ status });
      expect(asked(), String(status)).toBe(1);
    }
  });

  it("waits out a short secondary limit once, and says so", async () => {
    const { react, asked, lines } = github([secondary(String(MAX_IN_PROCESS_WAIT_SECONDS)), created]);
    await expect(react()).resolves.toMatchObject({ status: 201 });
    expect(asked()).toBe(2);
    expect(lines).toContainEqual(expect.objectContaining({ event: "github:rate-limited", kind: "secondary", retryAfterSeconds: MAX_IN_PROCESS_WAIT_SECONDS, retrying: true }));
  });

  it("does not wait for a secondary limit longer than a request's background time, nor for one without Retry-After (60 s)", async () => {
    for (const retryAfter of ["61", ""]) {
      const { react, asked, lines } = github([secondary(retryAfter), created]);
      await expect(react()).rejects.toMatchObject({ status: 403 });
      expect(asked()).toBe(1);
      expect(lines).toContainEqual(expect.objectContaining({ event: "github:rate-limited", kind: "secondary", retryAfterSeconds: retryAfter ? 61 : 60, retrying: false }));
    }
  });

  it("reads a spent primary limit from x-ratelimit-reset: waits when the reset is seconds away, not when it is an hour away", async () => {
    const spent = (inSeconds: number): Answer => ({
      status: 403,
      body: { message: "API rate limit exceeded for installation." },
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + inSeconds) }
    });
    const soon = github([spent(2), created]);
    await expect(soon.react()).resolves.toMatchObject({ status: 201 });
    expect(soon.lines).toContainEqual(expect.objectContaining({ kind: "primary", retrying: true }));

    const later = github([spent(3600), created]);
    await expect(later.react()).rejects.toMatchObject({ status: 403 });
    expect(later.asked()).toBe(1);
    expect(later.lines).toContainEqual(expect.objectContaining({ kind: "primary", retrying: false }));
  });
});

describe("the pacing of one client's writes", () => {
  it("is the plugin's own at the default unit, and a unit apart at a shorter one", async () => {
    const log = createLogger({}, [], () => {});
    for (const throttle of [patienceOptions(log).throttle, patienceOptions(log, { retryBaseMs: 1_000 }).throttle]) {
      expect(throttle).not.toHaveProperty("write");
      expect(throttle).not.toHaveProperty("notifications");
    }
    // Two writes asked at once: the second reaches GitHub a unit after the first was asked, at the earliest (a slow
    // machine only widens the gap; a timer may fire a millisecond early by Date.now).
    const UNIT_MS = 200;
    const { react, askedAt } = github([created], UNIT_MS);
    const started = Date.now();
    await Promise.all([react(), react()]);
    expect(askedAt).toHaveLength(2);
    expect(askedAt[1]! - started).toBeGreaterThanOrEqual(UNIT_MS - 5);
  });
});
