/**
 * The reporter over a GitHub that a stub fetch plays: a notice queued while
 * a delivery pass is in flight goes out in the same call, not at the next
 * scheduled pass; with no API URL nothing is kept or sent.
 */
import { describe, expect, it } from "vitest";
import { closingNotice, rocketNotice } from "../../src/report/notices";
import { Reporter } from "../../src/report/reporter";

const run = { repo: "acme/app", issueNumber: 3, submissionId: "s1", threadUrl: "https://bot.test/thread/acme-app-3" };

function memoryStorage() {
  const map = new Map<string, unknown>();
  return {
    get: async <T>(key: string) => map.get(key) as T | undefined,
    put: async <T>(key: string, value: T) => void map.set(key, structuredClone(value)),
    list: async <T>({ prefix }: { prefix: string }) => new Map([...map].filter(([key]) => key.startsWith(prefix)) as Array<[string, T]>)
  };
}

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

function reporter(apiUrl: string, fetch: typeof globalThis.fetch, retries: number[] = []) {
  const logged: string[] = [];
  return {
    logged,
    reporter: new Reporter({
      storage: memoryStorage(),
      apiUrl: () => apiUrl,
      token: async () => "ghs_x",
      scheduleRetry: async (inMs) => void retries.push(inMs),
      log: (event) => void logged.push(event),
      fetch
    })
  };
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
});
