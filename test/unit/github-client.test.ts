/**
 * The agent Worker's GitHub client against a stub fetch that answers as
 * GitHub does: the marker search pages through every comment since the
 * notice was queued (following the Link header, at most
 * MARKER_SEARCH_MAX_PAGES pages, each request with its own timeout) and
 * trusts only comments our App wrote; a failed call says when GitHub asked
 * us to try again.
 */
import { describe, expect, it } from "vitest";
import { byAuthor, createGitHubClient, GitHubCallError, MARKER_SEARCH_MAX_PAGES } from "../../src/github/client";

const BASE = "https://gh.test/api/v3";
const MARKER = "<!-- agent-think:s1:closing -->";
const bot = { login: "agent-think[bot]", type: "Bot" };
const human = { login: "mallory", type: "User" };

type Listed = { id: number; body: string; user: { login: string; type: string }; performed_via_github_app?: { slug: string } | null };

/** GitHub listing `comments` `perPage` at a time, with a Link header to the next and last page. */
function listingGitHub(comments: Listed[], perPage = 100, stall?: (page: number) => boolean) {
  const requested: string[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    requested.push(`${url.pathname}?${url.searchParams}`);
    const page = Number(url.searchParams.get("page") ?? 1);
    if (stall?.(page)) {
      await new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    }
    const last = Math.max(1, Math.ceil(comments.length / perPage));
    const link = (n: number) => {
      const next = new URL(url);
      next.searchParams.set("page", String(n));
      return next.href;
    };
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (page < last) headers.link = `<${link(page + 1)}>; rel="next", <${link(last)}>; rel="last"`;
    const body = comments.slice((page - 1) * perPage, page * perPage).map((c) => ({ ...c, html_url: `https://gh.test/c/${c.id}` }));
    return new Response(JSON.stringify(body), { status: 200, headers });
  }) as typeof globalThis.fetch;
  return { fetch, requested };
}

const filler = (from: number, count: number): Listed[] => Array.from({ length: count }, (_, i) => ({ id: from + i, body: "hello", user: human }));

describe("the marker search", () => {
  it("pages on to find our comment on page 2 of 3, and stops there", async () => {
    const github = listingGitHub([...filler(1, 100), { id: 150, body: `${MARKER}\nresult`, user: bot }, ...filler(151, 150)]);
    const client = createGitHubClient({ baseUrl: BASE, token: "ghs_x", fetch: github.fetch });
    expect(await client.findComment("acme/app", 3, MARKER, Date.UTC(2025, 0, 1))).toEqual({ id: 150, url: "https://gh.test/c/150" });
    expect(github.requested).toEqual([
      "/api/v3/repos/acme/app/issues/3/comments?since=2025-01-01T00%3A00%3A00.000Z&per_page=100",
      "/api/v3/repos/acme/app/issues/3/comments?since=2025-01-01T00%3A00%3A00.000Z&per_page=100&page=2"
    ]);
  });

  it("trusts only our App's comments: a pasted marker, another bot or another App's comment does not count", async () => {
    const pasted: Listed[] = [
      { id: 1, body: `${MARKER} pasted`, user: human },
      { id: 2, body: MARKER, user: { login: "agent-think[bot]", type: "User" } },
      { id: 3, body: MARKER, user: { login: "other[bot]", type: "Bot" } },
      { id: 4, body: MARKER, user: bot, performed_via_github_app: { slug: "impostor" } }
    ];
    const none = listingGitHub(pasted);
    expect(await createGitHubClient({ baseUrl: BASE, token: "t", fetch: none.fetch }).findComment("acme/app", 3, MARKER, 0)).toBeNull();
    const ours = listingGitHub([...pasted, { id: 5, body: MARKER, user: { login: "Agent-Think[bot]", type: "Bot" }, performed_via_github_app: { slug: "agent-think" } }]);
    expect(await createGitHubClient({ baseUrl: BASE, token: "t", fetch: ours.fetch }).findComment("acme/app", 3, MARKER, 0)).toMatchObject({ id: 5 });
  });

  it("trusts the run's bot login, and no other App's", async () => {
    const github = listingGitHub([{ id: 7, body: MARKER, user: { login: "acme-think[bot]", type: "Bot" } }]);
    const runs = createGitHubClient({ baseUrl: BASE, token: "t", fetch: github.fetch, botLogin: "acme-think[bot]" });
    expect(await runs.findComment("acme/app", 3, MARKER, 0)).toMatchObject({ id: 7 });
    const another = createGitHubClient({ baseUrl: BASE, token: "t", fetch: github.fetch, botLogin: "agent-think[bot]" });
    expect(await another.findComment("acme/app", 3, MARKER, 0)).toBeNull();
    // Unset: the local stand-in's bot, which is not this one either.
    const standIn = createGitHubClient({ baseUrl: BASE, token: "t", fetch: github.fetch });
    expect(await standIn.findComment("acme/app", 3, MARKER, 0)).toBeNull();
    expect(byAuthor({ user: null }, "agent-think[bot]")).toBe(false);
  });

  it("reads at most MARKER_SEARCH_MAX_PAGES pages", async () => {
    const github = listingGitHub([...filler(1, (MARKER_SEARCH_MAX_PAGES + 2) * 10), { id: 9999, body: MARKER, user: bot }], 10);
    const client = createGitHubClient({ baseUrl: BASE, token: "t", fetch: github.fetch });
    expect(await client.findComment("acme/app", 3, MARKER, 0)).toBeNull();
    expect(github.requested).toHaveLength(MARKER_SEARCH_MAX_PAGES);
  });

  it("gives each page its own timeout", async () => {
    const github = listingGitHub([...filler(1, 20), { id: 50, body: MARKER, user: bot }], 10, (page) => page === 2);
    const client = createGitHubClient({ baseUrl: BASE, token: "t", fetch: github.fetch, timeoutMs: 50 });
    const error = await client.findComment("acme/app", 3, MARKER, 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubCallError);
    expect(error).toMatchObject({ kind: "retryable" });
  });
});

describe("a refused call", () => {
  it("carries what GitHub said about when to try again", async () => {
    const answers: Array<{ status: number; headers: Record<string, string>; message: string }> = [
      { status: 403, headers: { "retry-after": "61" }, message: "You have exceeded a secondary rate limit." },
      { status: 429, headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000600" }, message: "rate limited" },
      { status: 403, headers: { "x-ratelimit-remaining": "4000" }, message: "Resource not accessible by integration" }
    ];
    const errors: GitHubCallError[] = [];
    for (const answer of answers) {
      const fetch = (async () =>
        new Response(JSON.stringify({ message: answer.message }), {
          status: answer.status,
          headers: { "content-type": "application/json", ...answer.headers }
        })) as unknown as typeof globalThis.fetch;
      const error: unknown = await createGitHubClient({ baseUrl: BASE, token: "t", fetch })
        .comment("acme/app", 3, "hi")
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GitHubCallError);
      errors.push(error as GitHubCallError);
    }
    expect(errors[0]).toMatchObject({ kind: "retryable", status: 403, retry: { rateLimited: true, retryAfterSeconds: 61 } });
    expect(errors[1]).toMatchObject({ kind: "retryable", status: 429, retry: { rateLimited: true, remaining: 0, resetEpochSeconds: 1_700_000_600 } });
    expect(errors[2]).toMatchObject({ kind: "rejected", status: 403 });
    expect(errors[2]!.retry).toBeUndefined();
  });
});
