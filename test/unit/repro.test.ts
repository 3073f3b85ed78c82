/**
 * Reproduction pages: publishing a built site from the workspace into the
 * bucket at an unguessable address (replacing the issue's earlier page,
 * bounded, refusing what is not a built page or holds a token, recording the
 * issue it is for; none at all from a reporter-tier run on a repository not
 * known to be public), and serving it: the page's address answers the
 * Worker's wrapper (a header naming the run and the issue over a frame
 * sandboxed to scripts), the model's documents go only to that frame, and
 * private pages go through a grant after Access.
 */
import { describe, expect, it } from "vitest";
import { handleReproRoute, REPRO_SANDBOX, reproPolicy, type ReproRouteDeps } from "../../src/http/repro-routes";
import { servesModelFile, wrapperHtml, wrapperPolicy } from "../../src/http/repro-wrapper";
import { canonicalize } from "../../src/http/route-policy";
import { GRANT_TTL_MS, importGrantKey } from "../../src/repro/grant";
import { issueFromMetadata, issueMetadata, reproIssue } from "../../src/repro/publication-issue";
import {
  MAX_REPRO_FILES,
  publishInputSchema,
  publishReproduction,
  reproUrl,
  type PublishDeps
} from "../../src/repro/publish";
import { REPORTER_PRIVATE_REFUSAL, ReproPublisher, reproVisibility } from "../../src/repro/publisher";
import { contentTypeFor } from "../../src/shared/buckets";

type PutOptions = { httpMetadata?: { contentType?: string }; customMetadata?: Record<string, string> };

function memoryBucket() {
  const objects = new Map<string, { body: Uint8Array; contentType?: string; customMetadata?: Record<string, string> }>();
  const bucket = {
    objects,
    async put(key: string, body: Uint8Array | string, options?: PutOptions) {
      const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
      objects.set(key, { body: bytes, contentType: options?.httpMetadata?.contentType, customMetadata: options?.customMetadata });
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
      const object = objects.get(key);
      return object ? { key, httpMetadata: { contentType: object.contentType }, customMetadata: object.customMetadata ?? {} } : null;
    },
    async get(key: string) {
      const object = objects.get(key);
      if (!object) return null;
      return {
        body: new Response(object.body).body!,
        httpMetadata: { contentType: object.contentType },
        customMetadata: object.customMetadata ?? {},
        httpEtag: '"e"'
      };
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
const ISSUE = { repo: "acme/widgets", number: 7, url: "https://github.com/acme/widgets/issues/7" };
const deps = (fs: ReturnType<typeof memoryFs>, bucket: ReturnType<typeof memoryBucket>, extra: Partial<PublishDeps> = {}): PublishDeps => ({
  fs,
  bucket: bucket as never,
  session: "acme-widgets-7",
  publicBaseUrl: "https://bot.test/",
  visibility: "public",
  issue: ISSUE,
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

  it("records the issue the page is for on every object it writes, and nothing when it has none", async () => {
    const bucket = memoryBucket();
    await publishReproduction({ directory: "/workspace/repro/dist" }, deps(memoryFs(SITE), bucket));
    for (const key of [`repros/${ID}/index.html`, `repros/${ID}/assets/app.js`]) {
      expect(bucket.objects.get(key)?.customMetadata, key).toEqual({
        "agent-think-repo": "acme/widgets",
        "agent-think-issue": "7",
        "agent-think-issue-url": "https://github.com/acme/widgets/issues/7"
      });
      expect(issueFromMetadata(bucket.objects.get(key)?.customMetadata)).toEqual(ISSUE);
    }
    const bare = memoryBucket();
    await publishReproduction({ directory: "/workspace/repro/dist" }, deps(memoryFs(SITE), bare, { issue: undefined }));
    expect(bare.objects.get(`repros/${ID}/index.html`)?.customMetadata).toEqual({});
  });

  it("reads back only an issue record that holds: none, a partial or a malformed one is no issue, and a bad link is dropped", () => {
    const record = issueMetadata(ISSUE);
    expect(issueFromMetadata(undefined)).toBeUndefined();
    expect(issueFromMetadata({})).toBeUndefined();
    expect(issueFromMetadata({ "agent-think-repo": "acme/widgets" })).toBeUndefined();
    for (const [key, value] of [
      ["agent-think-repo", "acme/widgets/extra"],
      ["agent-think-repo", "<b>acme</b>/widgets"],
      ["agent-think-issue", "0"],
      ["agent-think-issue", "7x"],
      ["agent-think-issue", "99999999999"]
    ] as const) {
      expect(issueFromMetadata({ ...record, [key]: value }), `${key}=${value}`).toBeUndefined();
    }
    for (const url of ["javascript:alert(1)", "data:text/html,x", "https://user:pw@github.com/acme/widgets/issues/7", "not a url"]) {
      expect(issueFromMetadata({ ...record, "agent-think-issue-url": url }), url).toEqual({ repo: "acme/widgets", number: 7 });
    }
    expect(issueMetadata({ repo: "not a repo", number: 7 })).toEqual({});
    expect(reproIssue({ repo: "acme/widgets", issueNumber: 7 }, "https://github.com")).toEqual(ISSUE);
    expect(reproIssue({ repo: "acme/widgets", issueNumber: 7 }, undefined)).toEqual({ repo: "acme/widgets", number: 7 });
    expect(issueMetadata({ repo: "acme/widgets", number: 7 })).toEqual({ "agent-think-repo": "acme/widgets", "agent-think-issue": "7" });
  });

  it("names content types and URLs", () => {
    expect(contentTypeFor("a/b.SVG")).toBe("image/svg+xml");
    expect(contentTypeFor("blob")).toBe("application/octet-stream");
    expect(reproUrl("https://bot.test/", { id: ID, visibility: "public" })).toBe(`https://bot.test/repro/${ID}/`);
    expect(reproUrl("https://bot.test", { id: ID, visibility: "private" })).toBe(`https://bot.test/repro/private/${ID}/`);
  });
});

function memoryStorage() {
  const values = new Map<string, unknown>();
  return {
    values,
    async get<T>(key: string) {
      return values.get(key) as T | undefined;
    },
    async put<T>(key: string, value: T) {
      values.set(key, value);
    }
  };
}

describe("ReproPublisher", () => {
  function publisher(bucket: ReturnType<typeof memoryBucket>, storage = memoryStorage()) {
    let next = 0;
    const ids = [ID, NEXT_ID];
    return new ReproPublisher({
      storage,
      bucket: bucket as never,
      publicBaseUrl: "https://bot.test",
      fs: () => memoryFs(SITE),
      session: () => "acme-widgets-7",
      createId: () => ids[next++]!
    });
  }
  const input = { directory: "/workspace/repro/dist" };

  it.each([["private"], ["internal"], [undefined]] as const)(
    "publishes no page for a reporter-tier run on a repository not known to be public (%s), keeping the issue's earlier page, and says what to report instead",
    async (repoVisibility) => {
      const bucket = memoryBucket();
      const storage = memoryStorage();
      const repros = publisher(bucket, storage);
      const earlier = await repros.publish(input, { issue: ISSUE, repoVisibility, secrets: [RUN_TOKEN] });
      expect(earlier).toMatchObject({ published: true, url: `https://bot.test/repro/private/${ID}/` });
      const before = [...bucket.objects.keys()].sort();

      const refused = await repros.publish(input, { issue: ISSUE, repoVisibility, tier: "reporter", secrets: [RUN_TOKEN] });
      expect(refused).toEqual({ published: false, error: REPORTER_PRIVATE_REFUSAL });
      expect([...bucket.objects.keys()].sort()).toEqual(before);
      expect(storage.values.get("agent-think:reproduction")).toEqual({ id: ID, visibility: "private" });
      // Words the model can act on: what happened, not to retry, and where the page's content goes instead.
      expect(REPORTER_PRIVATE_REFUSAL).toMatch(/^refused: .*reporter tier.*not known to be public.*Nothing was published; do not try again\./);
      for (const field of ["report_result", "no reproductionUrl", "steps", "evidence", "check"]) expect(REPORTER_PRIVATE_REFUSAL).toContain(field);
    }
  );

  it("publishes a reporter-tier run's page on a public repository, and a maintainer's on any", async () => {
    const bucket = memoryBucket();
    expect(await publisher(bucket).publish(input, { issue: ISSUE, repoVisibility: "public", tier: "reporter", secrets: [] })).toMatchObject({
      published: true,
      url: `https://bot.test/repro/${ID}/`
    });
    expect(await publisher(memoryBucket()).publish(input, { issue: ISSUE, repoVisibility: "private", secrets: [] })).toMatchObject({
      published: true,
      url: `https://bot.test/repro/private/${ID}/`
    });
    expect(issueFromMetadata(bucket.objects.get(`repros/${ID}/index.html`)?.customMetadata)).toEqual(ISSUE);
  });
});

describe("GET /repro/*", () => {
  const KEY = crypto.getRandomValues(new Uint8Array(32));
  let now = Date.parse("2026-11-30T12:00:00Z");
  const PAGE_SITE = {
    ...SITE,
    "/workspace/repro/dist/other.html": "<p>another document</p>",
    "/workspace/repro/dist/logo.svg": "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>",
    "/workspace/repro/dist/logo.png": "png"
  };
  const FRAME = { "sec-fetch-dest": "iframe", "sec-fetch-mode": "navigate", "sec-fetch-site": "same-origin" };
  const TOP = { "sec-fetch-dest": "document", "sec-fetch-mode": "navigate", "sec-fetch-site": "none" };

  async function served(visibility: "public" | "private" = "public", extra: Partial<PublishDeps> = {}) {
    const bucket = memoryBucket();
    await publishReproduction({ directory: "/workspace/repro/dist" }, deps(memoryFs(PAGE_SITE), bucket, { visibility, ...extra }));
    return route(bucket);
  }
  function route(bucket: ReturnType<typeof memoryBucket>) {
    const routeDeps: ReproRouteDeps = { bucket: bucket as never, grantKey: () => importGrantKey(KEY), now: () => now };
    return async (path: string, init?: RequestInit) => {
      const canonical = canonicalize(new Request(`https://bot.test${path}`, init));
      if (!canonical.ok) throw new Error(canonical.reason);
      return (await handleReproRoute(canonical.request, canonical.segments, routeDeps))!;
    };
  }
  function directives(policy: string): Map<string, string[]> {
    return new Map(
      policy.split(";").map((part) => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name!, values] as const;
      })
    );
  }
  /** The frame the wrapper holds: its attributes as written. */
  function frameOf(html: string): Record<string, string> {
    const frames = [...html.matchAll(/<iframe\b([^>]*)>/g)];
    expect(frames).toHaveLength(1);
    return Object.fromEntries([...frames[0]![1]!.matchAll(/([a-z-]+)="([^"]*)"/g)].map(([, name, value]) => [name!, value!]));
  }
  const decode = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

  it("answers the page's address with the wrapper: a header naming the run and the issue, and the model's page in a frame sandboxed to scripts", async () => {
    const get = await served();
    const home = `https://bot.test/repro/${ID}/`;
    for (const headers of [TOP, {}] as Array<Record<string, string>>) {
      const wrapper = await get(`/repro/${ID}/`, { headers });
      expect(wrapper.status).toBe(200);
      expect(wrapper.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(wrapper.headers.get("content-security-policy")).toBe(await wrapperPolicy(home));
      expect(wrapper.headers.get("x-frame-options")).toBe("DENY");
      expect(wrapper.headers.get("referrer-policy")).toBe("no-referrer");
      expect(wrapper.headers.get("vary")).toBe("sec-fetch-dest");
      expect(wrapper.headers.get("access-control-allow-origin")).toBeNull();
      const html = await wrapper.text();
      expect(html).not.toContain("Trigger bug");
      const header = /<header id="agent-think-repro">([\s\S]*?)<\/header>/.exec(html)?.[1] ?? "";
      expect(header.replace(/<[^>]+>/g, "")).toContain("A reproduction written by an agent-think run for acme/widgets#7, not by the repository's maintainers.");
      expect(header).toContain('<a href="https://github.com/acme/widgets/issues/7" rel="noreferrer">acme/widgets#7</a>');
      expect(html.indexOf("<header")).toBeLessThan(html.indexOf("<iframe"));
      expect(frameOf(html)).toEqual({ src: "index.html", sandbox: "allow-scripts", referrerpolicy: "no-referrer", title: "The reproduction page" });
      expect(html).not.toMatch(/<script|<form|<base|<meta http-equiv/i);
    }
  });

  it("gives the wrapper a policy with no script, one hashed style, frames only from the page's address, and no framing, forms or base", async () => {
    const get = await served();
    const wrapper = await get(`/repro/${ID}/`);
    const policy = directives(wrapper.headers.get("content-security-policy")!);
    expect(policy.get("default-src")).toEqual(["'none'"]);
    expect(policy.get("script-src")).toEqual(["'none'"]);
    expect(policy.get("frame-src")).toEqual([`https://bot.test/repro/${ID}/`]);
    expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
    expect(policy.get("form-action")).toEqual(["'none'"]);
    expect(policy.get("base-uri")).toEqual(["'none'"]);
    expect(policy.has("sandbox")).toBe(false);
    // The one inline style is allowed by its hash, and nothing else is.
    const style = /<style>([\s\S]*?)<\/style>/.exec(await wrapper.text())![1]!;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style)));
    expect(policy.get("style-src")).toEqual([`'sha256-${btoa(String.fromCharCode(...digest))}'`]);
    expect([...policy.keys()].sort()).toEqual(["base-uri", "default-src", "form-action", "frame-ancestors", "frame-src", "script-src", "style-src"]);
  });

  it("serves the model's documents only to a frame, sandboxed to scripts and framed only by the dashboard's origin", async () => {
    const get = await served();
    const home = `https://bot.test/repro/${ID}/`;
    for (const path of [`/repro/${ID}/index.html`, `/repro/${ID}/`]) {
      const framed = await get(path, { headers: FRAME });
      expect(framed.status, path).toBe(200);
      expect(await framed.text()).toBe("<button>Trigger bug</button>");
      expect(framed.headers.get("content-security-policy")).toBe(reproPolicy(home, "https://bot.test"));
      expect(framed.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(framed.headers.get("vary")).toBe("sec-fetch-dest");
    }
    expect(await (await get(`/repro/${ID}/other.html`, { headers: FRAME })).text()).toBe("<p>another document</p>");

    // A top-level visit, a client without Sec-Fetch-*, or any other destination: the wrapper, never the model's document.
    for (const path of [`/repro/${ID}/index.html`, `/repro/${ID}/other.html`, `/repro/${ID}/logo.svg`]) {
      for (const headers of [TOP, {}, { "sec-fetch-dest": "script" }, { "sec-fetch-dest": "embed" }, { "sec-fetch-dest": "frame" }, { "sec-fetch-dest": "empty" }] as Array<Record<string, string>>) {
        const response = await get(`${path}?case=2`, { headers });
        expect([response.status, response.headers.get("location")], `${path} ${JSON.stringify(headers)}`).toEqual([302, `${home}?case=2`]);
        expect(response.headers.get("vary")).toBe("sec-fetch-dest");
        expect(await response.text()).toBe("");
      }
    }
    // An SVG is also an image, where it runs nothing.
    expect((await get(`/repro/${ID}/logo.svg`, { headers: { "sec-fetch-dest": "image" } })).status).toBe(200);
  });

  it("serves the model's other files as before, to any destination, with CORS and the same policy", async () => {
    const get = await served();
    const home = `https://bot.test/repro/${ID}/`;
    for (const headers of [{ "sec-fetch-dest": "script", "sec-fetch-mode": "cors" }, {}, TOP] as Array<Record<string, string>>) {
      const script = await get(`/repro/${ID}/assets/app.js`, { headers });
      expect(script.status).toBe(200);
      expect(await script.text()).toBe("console.log(1)");
      expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(script.headers.get("access-control-allow-origin")).toBe("*");
      expect(script.headers.get("content-security-policy")).toBe(reproPolicy(home, "https://bot.test"));
    }
    expect((await get(`/repro/${ID}/logo.png`, { headers: { "sec-fetch-dest": "image" } })).headers.get("content-type")).toBe("image/png");
  });

  it("keeps the model's page home and harmless: scripts only, loading only from under its own address, and fetching, connecting and posting nowhere", async () => {
    const get = await served();
    const policy = (await get(`/repro/${ID}/index.html`, { headers: FRAME })).headers.get("content-security-policy")!;
    const parsed = directives(policy);
    const home = `https://bot.test/repro/${ID}/`;
    expect(REPRO_SANDBOX).toBe("sandbox allow-scripts");
    expect(policy.startsWith(`${REPRO_SANDBOX}; `)).toBe(true);
    // Not even the flags that would let it act for the page's author: forms, popups, dialogs, top navigation, same origin.
    expect(parsed.get("sandbox")).toEqual(["allow-scripts"]);
    expect(policy).not.toMatch(/allow-(forms|popups|modals|top-navigation|same-origin|downloads)/);
    expect(parsed.get("frame-ancestors")).toEqual(["https://bot.test"]);
    expect(parsed.get("default-src")).toEqual(["'none'"]);
    expect(parsed.get("connect-src")).toEqual(["'none'"]);
    expect(parsed.get("form-action")).toEqual(["'none'"]);
    expect(parsed.get("base-uri")).toEqual(["'none'"]);
    for (const kind of ["script-src", "style-src", "img-src", "font-src", "media-src"]) {
      const sources = parsed.get(kind)!;
      expect(sources[0], kind).toBe(home);
      // Nothing else with a host or a scheme that goes over the network: no 'self', no other origin, no http(s):, no *.
      expect(sources.slice(1).every((source) => ["'unsafe-inline'", "'unsafe-eval'", "data:", "blob:"].includes(source)), `${kind}: ${sources.join(" ")}`).toBe(true);
    }
    // frames, workers, objects and manifests fall back to default-src 'none'.
    expect([...parsed.keys()].filter((name) => /^(frame|child|worker|object|manifest)-src$/.test(name))).toEqual([]);
  });

  it("hands the page's query to the frame, escaped", async () => {
    const get = await served();
    const html = await (await get(`/repro/${ID}/?case=2&name="x"<y>'z'`)).text();
    const src = decode(frameOf(html).src!);
    expect(src).toBe(`index.html${new URL(`https://bot.test/?case=2&name="x"<y>'z'`).search}`);
    expect(frameOf(html).src).not.toMatch(/[<>"']|&(?!#\d+;)/);
  });

  it("answers HEAD with the headers and no body, for the wrapper and the model's files", async () => {
    const get = await served();
    const wrapper = await get(`/repro/${ID}/`, { method: "HEAD" });
    expect([wrapper.status, wrapper.headers.get("x-frame-options"), await wrapper.text()]).toEqual([200, "DENY", ""]);
    const framed = await get(`/repro/${ID}/index.html`, { method: "HEAD", headers: FRAME });
    expect([framed.status, framed.headers.get("content-type"), await framed.text()]).toEqual([200, "text/html; charset=utf-8", ""]);
  });

  it("still serves a page published before pages recorded their issue, under a generic header", async () => {
    const bucket = memoryBucket();
    const html = { httpMetadata: { contentType: "text/html; charset=utf-8" } };
    await bucket.put(`repros/${ID}/index.html`, "<p>legacy page</p>", html);
    await bucket.put(`repros/private/${NEXT_ID}/index.html`, "<p>legacy private page</p>", html);
    const get = route(bucket);
    const wrapper = await (await get(`/repro/${ID}/`)).text();
    expect(wrapper).toContain("<p><strong>A reproduction written by an agent-think run</strong>, not by the repository's maintainers.</p>");
    expect(/<header[\s\S]*<\/header>/.exec(wrapper)![0]).not.toMatch(/#|<a /);
    expect(frameOf(wrapper)).toMatchObject({ src: "index.html", sandbox: "allow-scripts" });
    expect(await (await get(`/repro/${ID}/index.html`, { headers: FRAME })).text()).toBe("<p>legacy page</p>");

    const location = new URL((await get(`/repro/private/${NEXT_ID}/`)).headers.get("location")!);
    expect(await (await get(location.pathname)).text()).toContain("not by the repository's maintainers");
    expect(await (await get(`${location.pathname}index.html`, { headers: FRAME })).text()).toBe("<p>legacy private page</p>");
  });

  it("shows the issue without a link when none was recorded, and escapes what it shows", () => {
    expect(wrapperHtml({ repo: "acme/widgets", number: 7 }, "")).toContain("run</strong> for acme/widgets#7, not by");
    const html = wrapperHtml({ repo: "acme/widgets", number: 7, url: 'https://github.test/a"b<c>' }, "");
    expect(html).toContain('<a href="https://github.test/a&#34;b&#60;c&#62;" rel="noreferrer">');
  });

  it("decides by content type and destination which requests may have a model's file", () => {
    for (const type of ["text/html; charset=utf-8", "image/svg+xml", "application/xhtml+xml", "text/xml", "application/xml", " TEXT/HTML"]) {
      expect(servesModelFile("iframe", type), type).toBe(true);
      for (const dest of [null, "document", "frame", "embed", "object", "script", "empty"]) expect(servesModelFile(dest, type), `${type} ${dest}`).toBe(false);
    }
    expect(servesModelFile("image", "image/svg+xml")).toBe(true);
    expect(servesModelFile("image", "text/html; charset=utf-8")).toBe(false);
    for (const type of ["text/javascript; charset=utf-8", "text/css; charset=utf-8", "image/png", "application/octet-stream", "text/html-ish"]) {
      for (const dest of [null, "document", "script", "style", "image", "iframe"]) expect(servesModelFile(dest, type), `${type} ${dest}`).toBe(true);
    }
  });

  it("redirects the bare id, and answers 404 and 405 where it should", async () => {
    const get = await served();
    const redirect = await get(`/repro/${ID}`);
    expect([redirect.status, redirect.headers.get("location")]).toEqual([301, `https://bot.test/repro/${ID}/`]);
    expect((await get(`/repro/${ID}/missing.js`)).status).toBe(404);
    expect((await get(`/repro/${ID}/missing.html`, { headers: FRAME })).status).toBe(404);
    expect((await get(`/repro/${ID.toUpperCase()}/`)).status).toBe(404);
    expect((await get(`/repro/${NEXT_ID}/`)).status).toBe(404);
    expect((await get("/repro/acme-widgets-7/")).status).toBe(404);
    for (const method of ["POST", "PUT", "DELETE", "OPTIONS"]) expect((await get(`/repro/${ID}/`, { method })).status, method).toBe(405);
    const canonical = canonicalize(new Request("https://bot.test/reproduce"));
    expect(canonical.ok && (await handleReproRoute(canonical.request, canonical.segments, { bucket: memoryBucket() as never, grantKey: () => importGrantKey(KEY), now: () => now }))).toBeNull();
  });

  it("does not serve a private page at the public address, nor a public one at the private address", async () => {
    const privately = await served("private");
    expect((await privately(`/repro/${ID}/`)).status).toBe(404);
    expect((await privately(`/repro/${ID}/index.html`, { headers: FRAME })).status).toBe(404);
    const publicly = await served("public");
    expect((await publicly(`/repro/private/${ID}/`)).status).toBe(404);
  });

  it("grants a private page for an hour: its wrapper, its framed document and its relative assets; an expired grant goes back through Access", async () => {
    const get = await served("private");
    const granted = await get(`/repro/private/${ID}/?x=1`);
    expect(granted.status).toBe(302);
    const location = new URL(granted.headers.get("location")!);
    expect(location.pathname).toMatch(new RegExp(`^/repro/private/${ID}\\.\\d+\\.[A-Za-z0-9_-]{43}/$`));
    expect(location.search).toBe("?x=1");
    // The gate treats the granted address as public (the grant is the credential).
    expect(canonicalize(new Request(location)).ok && canonicalize(new Request(location))).toMatchObject({ rule: { access: "public" } });

    // Its own address is the granted one: the wrapper frames from under it, and the page's assets load from under it.
    const home = `https://bot.test${location.pathname}`;
    const wrapper = await get(`${location.pathname}?x=1`);
    expect(wrapper.status).toBe(200);
    expect(wrapper.headers.get("content-security-policy")).toBe(await wrapperPolicy(home));
    const html = await wrapper.text();
    expect(html).toContain("for <a href=\"https://github.com/acme/widgets/issues/7\" rel=\"noreferrer\">acme/widgets#7</a>");
    expect(decode(frameOf(html).src!)).toBe("index.html?x=1");
    const page = await get(`${location.pathname}index.html?x=1`, { headers: FRAME });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(reproPolicy(home, "https://bot.test"));
    expect(await page.text()).toBe("<button>Trigger bug</button>");
    expect((await get(`${location.pathname}assets/app.js`)).status).toBe(200);
    // A top-level visit to the private document lands on the wrapper too, through Access and the grant.
    expect((await get(`/repro/private/${ID}/index.html`, { headers: TOP })).headers.get("location")).toBe(`${home}index.html`);
    expect((await get(`${location.pathname}index.html`, { headers: TOP })).headers.get("location")).toBe(home);

    now += GRANT_TTL_MS + 1_000;
    const expired = await get(`${location.pathname}assets/app.js`);
    expect([expired.status, expired.headers.get("location")]).toEqual([302, `https://bot.test/repro/private/${ID}/assets/app.js`]);
    const expiredWrapper = await get(location.pathname);
    expect([expiredWrapper.status, expiredWrapper.headers.get("location")]).toEqual([302, `https://bot.test/repro/private/${ID}/`]);
  });

  it("serves nothing for a forged, altered or foreign grant, and grants nothing that is not published", async () => {
    const get = await served("private");
    const location = new URL((await get(`/repro/private/${ID}/`)).headers.get("location")!);
    const [id, expires, mac] = location.pathname.split("/")[3]!.split(".");
    const later = Number(expires) + 3600;
    for (const segment of [`${id}.${later}.${mac}`, `${NEXT_ID}.${expires}.${mac}`, `${id}.${expires}.${"A".repeat(43)}`, `${id}.${expires}`]) {
      expect((await get(`/repro/private/${segment}/`)).status, segment).toBe(404);
      expect((await get(`/repro/private/${segment}/index.html`, { headers: FRAME })).status, segment).toBe(404);
    }
    expect((await get(`/repro/private/${NEXT_ID}/`)).status).toBe(404);
    expect((await get(`/repro/private/${ID}/nothing.js`)).status).toBe(404);
  });
});
