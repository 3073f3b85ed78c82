/**
 * The commenter permission lookup (ingress/src/permission.ts) over an
 * in-memory cache, a fake GitHub and a clock the test sets: GitHub is asked
 * once per repository and login while the answer is kept, both answers (a
 * permission, a 404) are kept for five minutes by that clock and asked
 * again after, a failure is never kept, and a cache that fails only costs a
 * call.
 */
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log";
import {
  lookupPermission,
  PERMISSION_CACHE_TTL_SECONDS,
  permissionKey,
  type CollaboratorPermission,
  type PermissionCache
} from "../../src/permission";

const REPO = { owner: "Octocat_Acme", name: "Widgets" };

const START_MS = Date.parse("2026-10-15T12:00:00Z");
const FIVE_MINUTES_MS = 5 * 60_000;

function setup(answers: (CollaboratorPermission | Error)[], cache: PermissionCache = memoryCache().cache) {
  const asked: string[] = [];
  const lines: string[] = [];
  const clock = { now: START_MS };
  const deps = {
    now: () => clock.now,
    cache,
    ask: async (repo: { owner: string; name: string }, login: string) => {
      asked.push(`${repo.owner}/${repo.name}:${login}`);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("asked more often than the test expected");
      if (answer instanceof Error) throw answer;
      return answer;
    },
    log: createLogger({}, [], (line) => lines.push(line))
  };
  return { deps, asked, lines, clock };
}

function memoryCache() {
  const entries = new Map<string, { value: string; ttlSeconds: number }>();
  const cache: PermissionCache = {
    get: async (key) => entries.get(key)?.value ?? null,
    put: async (key, value, ttlSeconds) => void entries.set(key, { value, ttlSeconds })
  };
  return { cache, entries };
}

describe("lookupPermission", () => {
  it("asks GitHub once, then answers from the cache for five minutes, per repository and login in any case", async () => {
    const { cache, entries } = memoryCache();
    const { deps, asked } = setup([{ permission: "write", roleName: "maintain" }], cache);
    expect(await lookupPermission(REPO, "Mona_Acme", deps)).toEqual({
      ok: true,
      answer: { permission: "write", roleName: "maintain" },
      source: "github"
    });
    expect(await lookupPermission({ owner: "octocat_acme", name: "widgets" }, "mona_acme", deps)).toEqual({
      ok: true,
      answer: { permission: "write", roleName: "maintain" },
      source: "cache"
    });
    expect(asked).toEqual(["Octocat_Acme/Widgets:Mona_Acme"]);
    expect([...entries]).toEqual([
      ["permission:octocat_acme/widgets:mona_acme", { value: expect.any(String), ttlSeconds: PERMISSION_CACHE_TTL_SECONDS }]
    ]);
    expect(PERMISSION_CACHE_TTL_SECONDS).toBe(300);
  });

  it("asks GitHub again once five minutes have passed by the app's clock, whatever KV still holds", async () => {
    const { cache, entries } = memoryCache();
    const { deps, asked, clock } = setup([{ permission: "write", roleName: "write" }, { permission: "read", roleName: "read" }], cache);
    expect(await lookupPermission(REPO, "mona", deps)).toMatchObject({ source: "github", answer: { permission: "write" } });
    clock.now = START_MS + FIVE_MINUTES_MS - 1;
    expect(await lookupPermission(REPO, "mona", deps)).toMatchObject({ source: "cache", answer: { permission: "write" } });
    expect(asked).toHaveLength(1);
    // KV may hand out an edge's copy after its TTL; the answer's own time decides.
    clock.now = START_MS + FIVE_MINUTES_MS;
    expect(entries.size).toBe(1);
    expect(await lookupPermission(REPO, "mona", deps)).toMatchObject({ source: "github", answer: { permission: "read" } });
    expect(asked).toHaveLength(2);
    expect(JSON.parse(entries.get(permissionKey(REPO, "mona"))!.value)).toEqual({
      askedAt: START_MS + FIVE_MINUTES_MS,
      collaborator: true,
      permission: "read",
      roleName: "read"
    });
  });

  it("does not take an answer dated in its future (a clock that went back) or kept without its time", async () => {
    for (const stored of [
      { askedAt: START_MS + 1, collaborator: true, permission: "admin", roleName: "admin" },
      { collaborator: true, permission: "admin", roleName: "admin" }
    ]) {
      const { cache, entries } = memoryCache();
      entries.set(permissionKey(REPO, "eve"), { value: JSON.stringify(stored), ttlSeconds: 300 });
      const { deps, asked } = setup([null], cache);
      expect(await lookupPermission(REPO, "eve", deps)).toEqual({ ok: true, answer: null, source: "github" });
      expect(asked).toHaveLength(1);
    }
  });

  it("keeps a 404 (not a collaborator) too", async () => {
    const { deps, asked } = setup([null]);
    expect(await lookupPermission(REPO, "passerby", deps)).toEqual({ ok: true, answer: null, source: "github" });
    expect(await lookupPermission(REPO, "passerby", deps)).toEqual({ ok: true, answer: null, source: "cache" });
    expect(asked).toHaveLength(1);
  });

  it("asks again for another login or another repository", async () => {
    const { deps, asked } = setup([null, { permission: "admin", roleName: "admin" }, { permission: "read", roleName: "triage" }]);
    await lookupPermission(REPO, "a", deps);
    await lookupPermission(REPO, "b", deps);
    await lookupPermission({ owner: "octocat_acme", name: "gadgets" }, "a", deps);
    expect(asked).toEqual(["Octocat_Acme/Widgets:a", "Octocat_Acme/Widgets:b", "octocat_acme/gadgets:a"]);
  });

  it("never keeps a failure: it is a result with GitHub's public reason, and the next lookup asks again", async () => {
    const { deps, asked } = setup([new Error("GitHub answered 502 when asked for mona's permission"), { permission: "write", roleName: "write" }]);
    expect(await lookupPermission(REPO, "mona", deps)).toEqual({ ok: false, error: "GitHub answered 502 when asked for mona's permission" });
    expect(await lookupPermission(REPO, "mona", deps)).toMatchObject({ ok: true, source: "github" });
    expect(asked).toHaveLength(2);
  });

  it("treats a failing or garbled cache as a miss and logs it, never as an answer", async () => {
    const broken: PermissionCache = {
      get: async () => {
        throw new Error("KV GET failed: 503");
      },
      put: async () => {
        throw new Error("KV PUT failed: 429 Too Many Requests");
      }
    };
    const { deps, asked, lines } = setup([{ permission: "write", roleName: "write" }, { permission: "write", roleName: "write" }], broken);
    expect(await lookupPermission(REPO, "mona", deps)).toMatchObject({ ok: true, source: "github" });
    expect(await lookupPermission(REPO, "mona", deps)).toMatchObject({ ok: true, source: "github" });
    expect(asked).toHaveLength(2);
    expect(lines.map((line) => JSON.parse(line.slice(line.indexOf("{"))))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ event: "permission:cache-failed", operation: "get" }),
        expect.objectContaining({ event: "permission:cache-failed", operation: "put" })
      ])
    );

    for (const garbled of ["not json", "{}", '{"collaborator":true}', '{"collaborator":"yes","permission":"admin"}']) {
      const { cache, entries } = memoryCache();
      entries.set(permissionKey(REPO, "eve"), { value: garbled, ttlSeconds: 300 });
      const { deps: fresh, asked: freshAsked } = setup([null], cache);
      expect(await lookupPermission(REPO, "eve", fresh), garbled).toEqual({ ok: true, answer: null, source: "github" });
      expect(freshAsked).toHaveLength(1);
    }
  });
});
