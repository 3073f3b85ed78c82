/**
 * Reproduction pages: publishing a built site from the workspace into the
 * bucket (replacing the session's earlier page, bounded, refusing what is
 * not a built page), and serving it sandboxed at /repro/:session/.
 */
import { describe, expect, it } from "vitest";
import { handleReproRoute, REPRO_SANDBOX } from "../../src/http/repro-routes";
import { MAX_REPRO_FILES, publishInputSchema, publishReproduction, reproUrl } from "../../src/repro/publish";
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
const deps = (fs: ReturnType<typeof memoryFs>, bucket: ReturnType<typeof memoryBucket>) => ({
  fs,
  bucket: bucket as never,
  session: "acme-widgets-7",
  publicBaseUrl: "https://bot.test/"
});

describe("publishReproduction", () => {
  it("uploads the built site under the session with content types and returns its URL", async () => {
    const bucket = memoryBucket();
    const result = await publishReproduction({ directory: "/workspace/repro/dist/" }, deps(memoryFs(SITE), bucket));
    expect(result).toEqual({ published: true, url: "https://bot.test/repro/acme-widgets-7/", files: 2, bytes: 42, removed: 0 });
    expect(bucket.objects.get("repros/acme-widgets-7/assets/app.js")?.contentType).toBe("text/javascript; charset=utf-8");
    expect(bucket.objects.get("repros/acme-widgets-7/index.html")?.contentType).toBe("text/html; charset=utf-8");
  });

  it("replaces the session's earlier page, and leaves other sessions alone", async () => {
    const bucket = memoryBucket();
    for (const key of ["repros/acme-widgets-7/old.js", "repros/acme-widgets-7/older.css", "repros/acme-widgets-70/index.html"]) {
      await bucket.put(key, new Uint8Array(1));
    }
    const result = await publishReproduction({ directory: "/workspace/repro/dist" }, deps(memoryFs(SITE), bucket));
    expect(result).toMatchObject({ published: true, removed: 2 });
    expect([...bucket.objects.keys()].sort()).toEqual([
      "repros/acme-widgets-7/assets/app.js",
      "repros/acme-widgets-7/index.html",
      "repros/acme-widgets-70/index.html"
    ]);
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
    expect(reproUrl("https://bot.test", "a-b-1")).toBe("https://bot.test/repro/a-b-1/");
  });
});

describe("GET /repro/:session/*", () => {
  const request = (path: string, init?: RequestInit) => new Request(`https://bot.test${path}`, init);
  async function served() {
    const bucket = memoryBucket();
    await publishReproduction({ directory: "/workspace/repro/dist" }, deps(memoryFs(SITE), bucket));
    return bucket;
  }

  it("serves the page sandboxed, its assets with CORS, and index.html for the directory", async () => {
    const bucket = (await served()) as never;
    const page = (await handleReproRoute(request("/repro/acme-widgets-7/"), bucket))!;
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(REPRO_SANDBOX);
    expect(await page.text()).toBe("<button>Trigger bug</button>");
    const script = (await handleReproRoute(request("/repro/acme-widgets-7/assets/app.js"), bucket))!;
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("redirects the bare session path, and answers 404 and 405 where it should", async () => {
    const bucket = (await served()) as never;
    const redirect = (await handleReproRoute(request("/repro/acme-widgets-7"), bucket))!;
    expect([redirect.status, redirect.headers.get("location")]).toEqual([301, "https://bot.test/repro/acme-widgets-7/"]);
    expect((await handleReproRoute(request("/repro/acme-widgets-7/missing.js"), bucket))!.status).toBe(404);
    expect((await handleReproRoute(request("/repro/acme-widgets-7/%2e%2e/x"), bucket))!.status).toBe(404);
    expect((await handleReproRoute(request("/repro/Not A Session/"), bucket))!.status).toBe(404);
    expect((await handleReproRoute(request("/repro/acme-widgets-7/", { method: "POST" }), bucket))!.status).toBe(405);
    expect(await handleReproRoute(request("/reproduce"), bucket)).toBeNull();
  });
});
