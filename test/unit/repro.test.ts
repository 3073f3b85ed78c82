/**
 * Reproduction pages: publishing a built site from the workspace into the
 * bucket at an unguessable address (replacing the issue's earlier page,
 * bounded, refusing what is not a built page or holds a token), and serving
 * it sandboxed: public pages to anyone with the address, private ones
 * through a grant after Access.
 */
import { describe, expect, it } from "vitest";
import { handleReproRoute, REPRO_SANDBOX, reproPolicy, type ReproRouteDeps } from "../../src/http/repro-routes";
import { canonicalize } from "../../src/http/route-policy";
import { GRANT_TTL_MS, importGrantKey } from "../../src/repro/grant";
import {
  MAX_REPRO_FILES,
  publishInputSchema,
  publishReproduction,
  reproUrl,
  type PublishDeps
} from "../../src/repro/publish";
import { reproVisibility } from "../../src/repro/publisher";
import { contentTypeFor } from "../../src/shared/buckets";

function memoryBucket() {
  const objects = new Map<string, { body: Uint8Array; contentType?: string }>();
  const bucket = {
    objects,
    async put(key: string, body: Uint8Array, options?: { httpMetadata?: { contentType?: string } }) {
      objects.set(key, { body, contentType: options?.httpMetadata?.contentType });
      return null;
    },
    async list(options: { prefix?: string; cursor?: string }) {
      const keys = [...objects.keys()].filter((key) => key.startsWith(options.prefix ?? "")).sort();
      const start = Number(options.cursor ?? 0);
      const page = keys.slice(start, start + 2);
      const truncated = start + 2 < keys.length;
      return { objects: page.map((key) => ({ key })), truncated, ...(truncated ? { cursor: String(start + 2) } : {}) };
    },
    async delete(keys: string | string[]) {
      for (const key of [keys].flat()) objects.delete(key);
    },
    async head(key: string) {
      return objects.has(key) ? { key } : null;
    },
    async get(key: string) {
      const object = objects.get(key);
      if (!object) return null;
      return { body: new Response(object.body).body, httpMetadata: { contentType: object.contentType }, httpEtag: '"e"' };
    }
  };
  return bucket;
}

function memoryFs(files: Record<string, string>) {
  return {
    async find(directory: string) {
      return Object.keys(files)
        .filter((path) => path.startsWith(`${directory}/`))
        .map((path) => ({ path, type: "file" }));
    },
    async readFile(path: string) {
      return new Response(files[path]).body!;
    }
  };
}

const SITE = {
  "/workspace/repro/dist/index.html": "<button>Trigger bug</button>",
  "/workspace/repro/dist/assets/app.js": "console.log(1)"
};
const ID = "0123456789abcdef0123456789abcdef";
const NEXT_ID = "fedcba9876543210fedcba9876543210";
const RUN_TOKEN = "run-canary-token-0001";
const deps = (fs: ReturnType<typeof memoryFs>, bucket: ReturnType<typeof memoryBucket>, extra: Partial<PublishDeps> = {}): PublishDeps => ({
  fs,
  bucket: bucket as never,
  session: "acme-widgets-7",
  publicBaseUrl: "https://bot.test/",
  visibility: "public",
  secrets: [RUN_TOKEN],
  createId: () => ID,
  ...extra
});

describe("publishReproduction", () => {
  it("uploads the built site under a new unguessable id with content types and returns its URL", async () => {
    const bucket = memoryBucket();
    const result = await publishReproduction({ directory: "/workspace/repro/dist/" }, deps(memoryFs(SITE), bucket));
    expect(result).toEqual({
      published: true,
      url: `https://bot.test/repro/${ID}/`,
      files: 2,
      bytes: 42,
      removed: 0,
      publication: { id: ID, visibility: "public" }
    });
    expect(bucket.objects.get(`repros/${ID}/assets/app.js`)?.contentType).toBe("text/javascript; charset=utf-8");
    expect(bucket.objects.get(`repros/${ID}/index.html`)?.contentType).toBe("text/html; charset=utf-8");
  });

  it("makes 128 random bits of id by default", async () => {
    const bucket = memoryBucket();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const result = await publishReproduction({ directory: "/workspace/repro/dist" }, deps(memoryFs(SITE), bucket, { createId: undefined }));
      if (!result.published) throw new Error(result.error);
      expect(result.publication.id).toMatch(/^[0-9a-f]{32}$/);
      ids.add(result.publication.id);
    }
    expect(ids.size).toBe(20);
  });

  it("keeps a private repository's page under private/, at a private URL", async () => {
    const bucket = memoryBucket();
    const result = await publishReproduction({ directory: "/workspace/repro/dist" }, deps(memoryFs(SITE), bucket, { visibility: "private" }));
    expect(result).toMatchObject({ published: true, url: `https://bot.test/repro/private/${ID}/`, publication: { id: ID, visibility: "private" } });
    expect([...bucket.objects.keys()].sort()).toEqual([`repros/private/${ID}/assets/app.js`, `repros/private/${ID}/index.html`]);
    expect(reproVisibility("public")).toBe("public");
    for (const other of ["private", "internal", undefined] as const) expect(reproVisibility(other)).toBe("private");
  });

  it("replaces the issue's earlier page and its old per-session page, and leaves others alone", async () => {
    const bucket = memoryBucket();
    for (const key of [`repros/${ID}/old.js`, `repros/${ID}/index.html`, "repros/acme-widgets-7/index.html", "repros/acme-widgets-70/index.html", "repros/aaaa/index.html"]) {
      await bucket.put(key, new Uint8Array(1));
    }
    const result = await publishReproduction(
      { directory: "/workspace/repro/dist" },
      deps(memoryFs(SITE), bucket, { previous: { id: ID, visibility: "public" }, createId: () => NEXT_ID })
    );
    expect(result).toMatchObject({ published: true, removed: 3, url: `https://bot.test/repro/${NEXT_ID}/` });
    expect([...bucket.objects.keys()].sort()).toEqual([
      "repros/aaaa/index.html",
      "repros/acme-widgets-70/index.html",
      `repros/${NEXT_ID}/assets/app.js`,
      `repros/${NEXT_ID}/index.html`
    ]);
  });

  it.each([
    ["the run's own token", `<p>${RUN_TOKEN}</p>`],
    ["an installation token", `const t = "ghs_${"A".repeat(36)}";`],
    ["a fine-grained PAT", `github_pat_${"B".repeat(22)}_${"c".repeat(59)}`],
    ["a token after bytes that are not UTF-8", "\uFFFD\u0000ghp_" + "Z".repeat(36)]
  ])("refuses a build holding %s, publishing nothing and saying what to do", async (_what, content) => {
    const bucket = memoryBucket();
    const site = { ...SITE, "/workspace/repro/dist/assets/leak.js": content };
    const result = await publishReproduction({ directory: "/workspace/repro/dist" }, deps(memoryFs(site), bucket));
    expect(result.published).toBe(false);
    if (result.published) return;
    expect(result.error).toMatch(/^refused: assets\/leak\.js holds a GitHub token .*Nothing was published/);
    expect(result.error).not.toContain(RUN_TOKEN);
    expect(result.error).not.toMatch(/gh[ps]_|github_pat_[A-Z]/);
    expect(bucket.objects.size).toBe(0);
  });

  it("refuses a directory without index.html, or with too many files, writing nothing", async () => {
    const bucket = memoryBucket();
    expect(await publishReproduction({ directory: "/workspace/repro" }, deps(memoryFs({ "/workspace/repro/src/App.tsx": "x" }), bucket))).toEqual({
      published: false,
      error: "/workspace/repro has no index.html: build the page first"
    });
    const many = Object.fromEntries([...Array(MAX_REPRO_FILES + 1).keys()].map((i) => [`/workspace/d/${i === 0 ? "index.html" : `f${i}.js`}`, "x"]));
    expect(await publishReproduction({ directory: "/workspace/d" }, deps(memoryFs(many), bucket))).toMatchObject({ published: false });
    expect(bucket.objects.size).toBe(0);
  });

  it("takes only directories under /workspace", () => {
    expect(publishInputSchema.safeParse({ directory: "/workspace/repro/dist" }).success).toBe(true);
    expect(publishInputSchema.safeParse({ directory: "/etc" }).success).toBe(false);
    expect(publishInputSchema.safeParse({ directory: "/workspace/../etc" }).success).toBe(false);
  });

  it("names content types and URLs", () => {
    expect(contentTypeFor("a/b.SVG")).toBe("image/svg+xml");
    expect(contentTypeFor("blob")).toBe("application/octet-stream");
    expect(reproUrl("https://bot.test/", { id: ID, visibility: "public" })).toBe(`https://bot.test/repro/${ID}/`);
    expect(reproUrl("https://bot.test", { id: ID, visibility: "private" })).toBe(`https://bot.test/repro/private/${ID}/`);
  });
});

describe("GET /repro/*", () => {
  const KEY = crypto.getRandomValues(new Uint8Array(32));
  let now = Date.parse("2026-11-30T12:00:00Z");
  async function served(visibility: "public" | "private" = "public") {
    const bucket = memoryBucket();
    await publishReproduction({ directory: "/workspace/repro/dist" }, deps(memoryFs(SITE), bucket, { visibility }));
    const routeDeps: ReproRouteDeps = { bucket: bucket as never, grantKey: () => importGrantKey(KEY), now: () => now };
    return async (path: string, init?: RequestInit) => {
      const canonical = canonicalize(new Request(`https://bot.test${path}`, init));
      if (!canonical.ok) throw new Error(canonical.reason);
      return handleReproRoute(canonical.request, canonical.segments, routeDeps);
    };
  }

  it("serves a public page sandboxed, its assets with CORS, and index.html for the directory", async () => {
    const get = await served();
    const page = (await get(`/repro/${ID}/`))!;
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(reproPolicy(`https://bot.test/repro/${ID}/`));
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await page.text()).toBe("<button>Trigger bug</button>");
    const script = (await get(`/repro/${ID}/assets/app.js`))!;
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("access-control-allow-origin")).toBe("*");
    expect(script.headers.get("content-security-policy")).toBe(page.headers.get("content-security-policy"));
  });

  it("keeps the page home: sandboxed, loading only from under its own address, and fetching, connecting and posting nowhere", async () => {
    const get = await served();
    const policy = (await get(`/repro/${ID}/`))!.headers.get("content-security-policy")!;
    const directives = new Map(policy.split(";").map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name!, values] as const;
    }));
    const home = `https://bot.test/repro/${ID}/`;
    expect(policy.startsWith(`${REPRO_SANDBOX}; `)).toBe(true);
    expect(directives.get("sandbox")).not.toContain("allow-same-origin");
    expect(directives.get("default-src")).toEqual(["'none'"]);
    expect(directives.get("connect-src")).toEqual(["'none'"]);
    expect(directives.get("form-action")).toEqual(["'none'"]);
    expect(directives.get("base-uri")).toEqual(["'none'"]);
    for (const kind of ["script-src", "style-src", "img-src", "font-src", "media-src"]) {
      const sources = directives.get(kind)!;
      expect(sources[0], kind).toBe(home);
      // Nothing else with a host or a scheme that goes over the network: no 'self', no other origin, no http(s):, no *.
      expect(sources.slice(1).every((source) => ["'unsafe-inline'", "'unsafe-eval'", "data:", "blob:"].includes(source)), `${kind}: ${sources.join(" ")}`).toBe(true);
    }
    // frames, workers, objects and manifests fall back to default-src 'none'.
    expect([...directives.keys()].filter((name) => /^(frame|child|worker|object|manifest)-src$/.test(name))).toEqual([]);
  });

  it("redirects the bare id, and answers 404 and 405 where it should", async () => {
    const get = await served();
    const redirect = (await get(`/repro/${ID}`))!;
    expect([redirect.status, redirect.headers.get("location")]).toEqual([301, `https://bot.test/repro/${ID}/`]);
    expect((await get(`/repro/${ID}/missing.js`))!.status).toBe(404);
    expect((await get(`/repro/${ID.toUpperCase()}/`))!.status).toBe(404);
    expect((await get("/repro/acme-widgets-7/"))!.status).toBe(404);
    expect((await get(`/repro/${ID}/`, { method: "POST" }))!.status).toBe(405);
    expect(await get("/reproduce")).toBeNull();
  });

  it("does not serve a private page at the public address, nor a public one at the private address", async () => {
    const privately = await served("private");
    expect((await privately(`/repro/${ID}/`))!.status).toBe(404);
    const publicly = await served("public");
    expect((await publicly(`/repro/private/${ID}/`))!.status).toBe(404);
  });

  it("grants a private page for an hour, with its relative assets, and sends an expired grant back through Access", async () => {
    const get = await served("private");
    const granted = (await get(`/repro/private/${ID}/?x=1`))!;
    expect(granted.status).toBe(302);
    const location = new URL(granted.headers.get("location")!);
    expect(location.pathname).toMatch(new RegExp(`^/repro/private/${ID}\\.\\d+\\.[A-Za-z0-9_-]{43}/$`));
    expect(location.search).toBe("?x=1");
    // The gate treats the granted address as public (the grant is the credential).
    expect(canonicalize(new Request(location)).ok && canonicalize(new Request(location))).toMatchObject({ rule: { access: "public" } });

    const page = (await get(location.pathname))!;
    expect(page.status).toBe(200);
    // Its own address is the granted one: the grant is part of the path its assets load from.
    expect(page.headers.get("content-security-policy")).toBe(reproPolicy(`https://bot.test${location.pathname}`));
    expect(await page.text()).toBe("<button>Trigger bug</button>");
    expect((await get(`${location.pathname}assets/app.js`))!.status).toBe(200);

    now += GRANT_TTL_MS + 1_000;
    const expired = (await get(`${location.pathname}assets/app.js`))!;
    expect([expired.status, expired.headers.get("location")]).toEqual([302, `https://bot.test/repro/private/${ID}/assets/app.js`]);
  });

  it("serves nothing for a forged, altered or foreign grant, and grants nothing that is not published", async () => {
    const get = await served("private");
    const location = new URL((await get(`/repro/private/${ID}/`))!.headers.get("location")!);
    const [id, expires, mac] = location.pathname.split("/")[3]!.split(".");
    const later = Number(expires) + 3600;
    for (const segment of [`${id}.${later}.${mac}`, `${NEXT_ID}.${expires}.${mac}`, `${id}.${expires}.${"A".repeat(43)}`, `${id}.${expires}`]) {
      expect((await get(`/repro/private/${segment}/`))!.status, segment).toBe(404);
    }
    expect((await get(`/repro/private/${NEXT_ID}/`))!.status).toBe(404);
    expect((await get(`/repro/private/${ID}/nothing.js`))!.status).toBe(404);
  });
});
