/**
 * The images and attachments, found and judged before anything is
 * fetched (src/run/attachment-links.ts), fetched under the Worker's rules
 * (src/github/attachment-fetch.ts) and listed for the block
 * (src/steps/issue-attachments.ts):
 * - Markdown images, `<img src>`, uploaded files and bare upload URLs are
 *   found; fenced code, inline code and HTML comments are not GitHub's
 *   rendered links, so nothing in them is;
 * - only GitHub's hosts are fetched: an image on another host, a data: URL,
 *   http, a port or a user:password are listed, never fetched;
 * - a redirect is followed only to GitHub's content hosts, never with the
 *   token; a token goes only with an upload's own path on the deployment's
 *   web host (`/user-attachments/…`, the run's repository's `assets` and
 *   `files`), after a 404, and it is the read-only one `readToken` gives;
 * - an image is what its bytes say; a size cap and a timeout end a fetch.
 */
import { describe, expect, it } from "vitest";
import { attachmentFileName, credentialedUpload, fetchSource, findLinks, mayRedirectTo, signedImageUrls, sniffImage, uploadUuid } from "../../src/run/attachment-links";
import { createAttachmentReader, fetchAttachment, type AttachmentFetchOptions } from "../../src/github/attachment-fetch";
import { gatherAttachments, MAX_IMAGES_SHOWN, refetchImages, type AttachmentReader } from "../../src/steps/issue-attachments";

const UUID = "0f3a7c1e-2b4d-4e6f-8a9b-1c2d3e4f5a6b";
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
const GIF = new TextEncoder().encode("GIF89a....");
const WEBP = new Uint8Array([...new TextEncoder().encode("RIFF"), 0, 0, 0, 0, ...new TextEncoder().encode("WEBPVP8 ")]);

describe("finding images and attachments", () => {
  it("finds Markdown images, <img> tags, uploaded files and bare upload URLs, in order, each once", () => {
    const text = [
      `![the crash](https://github.com/user-attachments/assets/${UUID})`,
      `<img width="300" alt='dialog "x"' src="https://camo.githubusercontent.com/abc/68747470">`,
      "[build.log](https://github.com/user-attachments/files/123/build.log)",
      "https://github.com/user-attachments/assets/11111111-2222-4333-8444-555555555555.",
      `![again](https://github.com/user-attachments/assets/${UUID} "a title")`,
      "[a page](https://example.com/docs) is not an attachment"
    ].join("\n");
    expect(findLinks(text)).toEqual([
      { url: `https://github.com/user-attachments/assets/${UUID}`, kind: "image", alt: "the crash" },
      { url: "https://camo.githubusercontent.com/abc/68747470", kind: "image", alt: 'dialog "x"' },
      { url: "https://github.com/user-attachments/files/123/build.log", kind: "file", name: "build.log" },
      { url: "https://github.com/user-attachments/assets/11111111-2222-4333-8444-555555555555", kind: "image" }
    ]);
  });

  it("leaves out what GitHub does not render: fenced code, inline code, HTML comments", () => {
    const text = [
      "```html",
      '<img src="https://github.com/user-attachments/assets/aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa">',
      "```",
      "~~~~",
      "![x](https://github.com/user-attachments/assets/bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb)",
      "~~~~",
      "`![y](https://github.com/user-attachments/assets/cccccccc-cccc-4ccc-8ccc-cccccccccccc)`",
      "<!-- ![z](https://github.com/user-attachments/assets/dddddddd-dddd-4ddd-8ddd-dddddddddddd) -->",
      "![shown](https://github.com/user-attachments/assets/eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee)"
    ].join("\n");
    expect(findLinks(text).map((link) => link.alt)).toEqual(["shown"]);
  });

  it("an unclosed fence hides the rest, as GitHub renders it", () => {
    expect(findLinks("```\n![x](https://github.com/user-attachments/assets/" + UUID + ")")).toEqual([]);
  });
});

describe("which hosts are fetched", () => {
  const web = "github.com";
  it.each([
    [`https://github.com/user-attachments/assets/${UUID}`, "github"],
    ["https://github.com/acme/widgets/assets/1/x.png", "github"],
    ["https://camo.githubusercontent.com/abc/68747470733a2f2f6576696c2e6578616d706c65", "camo"],
    ["https://user-images.githubusercontent.com/1/a.png", "user-content"],
    ["https://private-user-images.githubusercontent.com/1/2-a.png?jwt=x", "user-content"]
  ])("%s is fetched from %s", (url, source) => {
    expect(fetchSource(url, web)).toMatchObject({ ok: true, source });
  });

  it.each([
    ["https://evil.example/a.png", /on evil\.example, not one of GitHub's hosts/],
    ["https://github.com.evil.example/user-attachments/assets/x", /not one of GitHub's hosts/],
    ["https://raw.githubusercontent.com/acme/widgets/main/a.png", /not one of GitHub's hosts/],
    ["data:image/png;base64,iVBORw0KGgo=", /a data: link/],
    ["http://github.com/user-attachments/assets/x", /a http: link/],
    ["https://github.com:8443/user-attachments/assets/x", /port/],
    ["https://user:pw@github.com/user-attachments/assets/x", /user name or password/],
    ["javascript:alert(1)", /javascript:/],
    ["/relative.png", /not a URL/]
  ])("%s is not fetched", (url, reason) => {
    const result = fetchSource(url, web);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it("on GitHub Enterprise, the deployment's host is GitHub's, and github.com only for its uploads", () => {
    expect(fetchSource("https://ghe.example.com/acme/widgets/assets/1/a.png", "ghe.example.com")).toMatchObject({ ok: true, source: "github" });
    expect(fetchSource(`https://github.com/user-attachments/assets/${UUID}`, "ghe.example.com")).toMatchObject({ ok: true, source: "github-public" });
    expect(fetchSource("https://github.com/acme/widgets/raw/main/a.png", "ghe.example.com")).toMatchObject({ ok: false });
  });

  it("redirects only to GitHub's content hosts and upload buckets", () => {
    expect(mayRedirectTo(new URL("https://private-user-images.githubusercontent.com/1/a.png?jwt=x"), "github.com")).toBe(true);
    expect(mayRedirectTo(new URL("https://github-production-user-asset-6210df.s3.amazonaws.com/1/a.png"), "github.com")).toBe(true);
    expect(mayRedirectTo(new URL("https://evil.example/a.png"), "github.com")).toBe(false);
    expect(mayRedirectTo(new URL("https://evil-bucket.s3.amazonaws.com/a.png"), "github.com")).toBe(false);
    expect(mayRedirectTo(new URL("http://objects.githubusercontent.com/a"), "github.com")).toBe(false);
  });
});

describe("which URLs a credential may go with", () => {
  const web = "github.com";
  const REPO = "Acme/Widgets";
  it.each([
    `https://github.com/user-attachments/assets/${UUID}`,
    `https://github.com/user-attachments/assets/${UUID.toUpperCase()}`,
    "https://github.com/user-attachments/files/4242/build.log",
    "https://github.com/user-attachments/files/4242/build%20output.log",
    `https://github.com/acme/widgets/assets/12345/${UUID}`,
    "https://github.com/acme/widgets/files/77/crash.zip"
  ])("%s: an upload's own path", (url) => {
    expect(credentialedUpload(new URL(url), web, REPO)).toBe(true);
  });

  it.each([
    ["an image elsewhere on the web host", "https://github.com/acme/widgets/raw/main/shot.png"],
    ["a repository's blob", "https://github.com/acme/widgets/blob/main/shot.png"],
    ["another repository's upload", `https://github.com/someone/else/assets/12345/${UUID}`],
    ["another repository's file", "https://github.com/someone/else/files/77/crash.zip"],
    ["a user-attachments asset that is no UUID", "https://github.com/user-attachments/assets/not-a-uuid"],
    ["a user-attachments asset with an id before it", `https://github.com/user-attachments/assets/1/${UUID}`],
    ["a repository asset without its id", `https://github.com/acme/widgets/assets/${UUID}`],
    ["a file without its id", "https://github.com/user-attachments/files/build.log"],
    ["a file named with an encoded slash", "https://github.com/user-attachments/files/1/..%2Fsettings"],
    ["a file named with an encoded backslash", "https://github.com/user-attachments/files/1/..%5Csettings"],
    ["a longer path", `https://github.com/user-attachments/assets/${UUID}/more`],
    ["a query", `https://github.com/user-attachments/assets/${UUID}?redirect=1`],
    ["another host", `https://camo.githubusercontent.com/user-attachments/assets/${UUID}`],
    ["a look-alike host", `https://github.com.evil.example/user-attachments/assets/${UUID}`],
    ["http", `http://github.com/user-attachments/assets/${UUID}`],
    ["a port", `https://github.com:8443/user-attachments/assets/${UUID}`]
  ])("%s is not: %s", (_name, url) => {
    expect(credentialedUpload(new URL(url), web, REPO)).toBe(false);
  });

  it("without the run's repository, only /user-attachments/ uploads", () => {
    expect(credentialedUpload(new URL(`https://github.com/user-attachments/assets/${UUID}`), web, null)).toBe(true);
    expect(credentialedUpload(new URL(`https://github.com/acme/widgets/assets/1/${UUID}`), web, null)).toBe(false);
  });

  it("on GitHub Enterprise, the deployment's host, never github.com", () => {
    expect(credentialedUpload(new URL(`https://ghe.example.com/user-attachments/assets/${UUID}`), "ghe.example.com", REPO)).toBe(true);
    expect(credentialedUpload(new URL(`https://github.com/user-attachments/assets/${UUID}`), "ghe.example.com", REPO)).toBe(false);
  });
});

describe("what an image is", () => {
  it("is decided by its magic numbers, never its name", () => {
    expect([PNG, JPEG, GIF, WEBP].map(sniffImage)).toEqual(["image/png", "image/jpeg", "image/gif", "image/webp"]);
    expect(sniffImage(new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>"))).toBeNull();
    expect(sniffImage(new TextEncoder().encode("not a png at all"))).toBeNull();
    expect(sniffImage(new Uint8Array())).toBeNull();
  });

  it("signed addresses are read from GitHub's rendered HTML by the upload's UUID", () => {
    const html = `<p><a href="https://private-user-images.githubusercontent.com/9/55-${UUID}.png?jwt=eyJ&amp;x=1"><img src="https://private-user-images.githubusercontent.com/9/55-${UUID}.png?jwt=eyJ&amp;x=1"></a></p>`;
    expect(signedImageUrls(html).get(UUID)).toBe(`https://private-user-images.githubusercontent.com/9/55-${UUID}.png?jwt=eyJ&x=1`);
    expect(uploadUuid(`https://github.com/user-attachments/assets/${UUID.toUpperCase()}`)).toBe(UUID);
    expect(uploadUuid("https://github.com/user-attachments/files/1/a.zip")).toBeNull();
    expect(uploadUuid(`https://github.com/acme/widgets/assets/12345/${UUID}`)).toBe(UUID);
  });

  it("a file's name in the workspace is its last segment, made safe", () => {
    expect(attachmentFileName("https://github.com/user-attachments/files/123/build%20output.log")).toBe("build_output.log");
    expect(attachmentFileName("https://github.com/user-attachments/files/1/..%2F..%2Fetc%2Fpasswd")).toBe("etc_passwd");
    expect(attachmentFileName(`https://github.com/user-attachments/assets/${UUID}`, "image")).toBe("image");
  });
});

type Call = { url: string; headers: Record<string, string> };
function fakeFetch(answer: (url: string, headers: Record<string, string>) => Response) {
  const calls: Call[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = { ...(init?.headers as Record<string, string>) };
    calls.push({ url: String(input), headers });
    return answer(String(input), headers);
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

describe("fetching one attachment", () => {
  const READ_TOKEN = "ghs_attachmentREADONLY0000000000000000";
  /** The options with a read-only token getter that counts how often it was asked. */
  const options = (fetch: typeof globalThis.fetch, extra: Partial<AttachmentFetchOptions> = {}) => {
    const asked = { count: 0 };
    const readToken = async () => {
      asked.count++;
      return READ_TOKEN;
    };
    return Object.assign({ webHost: "github.com", repo: "acme/widgets", readToken, maxBytes: 1024, fetch, ...extra }, { asked });
  };
  /** GitHub's web host as it answers a private repository's upload: 404 without a credential, then a redirect to the signed address. */
  const privateUpload = () =>
    fakeFetch((url, headers) => {
      if (url.startsWith("https://github.com/") && !headers.authorization) return new Response("", { status: 404 });
      if (url.startsWith("https://github.com/")) return new Response(null, { status: 302, headers: { location: "https://private-user-images.githubusercontent.com/1/a.png?jwt=x" } });
      return new Response(PNG, { headers: { "content-type": "image/png" } });
    });

  it("follows GitHub's redirect to its content host without a token, and sends the read-only token only to the upload's path after a 404", async () => {
    const { fetch, calls } = privateUpload();
    const result = await fetchAttachment(`https://github.com/user-attachments/assets/${UUID}`, options(fetch));
    expect(result).toMatchObject({ ok: true, contentType: "image/png" });
    expect(calls.map((call) => [new URL(call.url).host, call.headers.authorization ?? null])).toEqual([
      ["github.com", null],
      ["github.com", `Bearer ${READ_TOKEN}`],
      ["private-user-images.githubusercontent.com", null]
    ]);
  });

  it.each([
    `https://github.com/user-attachments/files/4242/build.log`,
    `https://github.com/acme/widgets/assets/12345/${UUID}`,
    "https://github.com/acme/widgets/files/77/crash.zip"
  ])("sends the read-only token to %s after a 404: an upload of the run's", async (url) => {
    const { fetch, calls } = privateUpload();
    await fetchAttachment(url, options(fetch));
    expect(calls[1]).toMatchObject({ url, headers: { authorization: `Bearer ${READ_TOKEN}` } });
  });

  it.each([
    ["an image elsewhere on the web host", "https://github.com/acme/widgets/raw/main/shot.png"],
    ["another repository's upload", `https://github.com/someone/else/assets/12345/${UUID}`],
    ["an upload with a query", `https://github.com/user-attachments/assets/${UUID}?x=1`]
  ])("sends no token at all with %s, and does not even ask for one", async (_name, url) => {
    const { fetch, calls } = privateUpload();
    const fetchOptions = options(fetch);
    expect(await fetchAttachment(url, fetchOptions)).toMatchObject({ ok: false, reason: "not_found" });
    expect(calls).toEqual([{ url, headers: { "user-agent": "agent-think", accept: "*/*" } }]);
    expect(fetchOptions.asked.count).toBe(0);
  });

  it("asks for the read-only token only when the upload answered 404 without one", async () => {
    const { fetch, calls } = fakeFetch(() => new Response(PNG, { headers: { "content-type": "image/png" } }));
    const fetchOptions = options(fetch);
    expect(await fetchAttachment(`https://github.com/user-attachments/assets/${UUID}`, fetchOptions)).toMatchObject({ ok: true });
    expect(fetchOptions.asked.count).toBe(0);
    expect(calls[0]!.headers.authorization).toBeUndefined();
  });

  it("without a read-only token to be had (none, empty, or the getter failed), the 404 stands and nothing is sent with a credential", async () => {
    for (const readToken of [undefined, async () => "", async () => Promise.reject(new Error("the broker is down"))]) {
      const { fetch, calls } = privateUpload();
      const result = await fetchAttachment(`https://github.com/user-attachments/assets/${UUID}`, { webHost: "github.com", maxBytes: 1024, fetch, ...(readToken ? { readToken } : {}) });
      expect(result).toMatchObject({ ok: false, reason: "not_found", message: expect.stringMatching(/^404/) });
      expect(calls).toHaveLength(1);
      expect(calls[0]!.headers.authorization).toBeUndefined();
    }
  });

  it("the run's reader (createAttachmentReader) fetches from the deployment of its API URL, the read-only token on its repository's uploads only", async () => {
    const { fetch, calls } = privateUpload();
    const reader = createAttachmentReader({ apiUrl: "https://ghe.example.com/api/v3", repo: "acme/widgets", readToken: async () => READ_TOKEN, fetch });
    expect(reader.webHost).toBe("ghe.example.com");
    expect(await reader.fetchAttachment(`https://github.com/acme/widgets/assets/1/${UUID}`, 1024)).toMatchObject({ ok: false, reason: "refused" });
    expect(calls).toEqual([]);
    const bad = createAttachmentReader({ apiUrl: "not a url", repo: "acme/widgets", readToken: async () => READ_TOKEN, fetch });
    expect(bad.webHost).toBeNull();
    expect(await bad.fetchAttachment(`https://github.com/user-attachments/assets/${UUID}`, 1024)).toMatchObject({ ok: false, reason: "refused" });
    const dotcom = createAttachmentReader({ apiUrl: "https://api.github.com", repo: "acme/widgets", readToken: async () => READ_TOKEN, fetch });
    expect(await dotcom.fetchAttachment(`https://github.com/acme/widgets/assets/1/${UUID}`, 1024)).toMatchObject({ ok: true });
    expect(calls.map((call) => call.headers.authorization ?? null)).toEqual([null, `Bearer ${READ_TOKEN}`, null]);
  });

  it("never sends the token to camo, and refuses camo's redirect to another host", async () => {
    const { fetch, calls } = fakeFetch(() => new Response(null, { status: 302, headers: { location: "https://evil.example/steal" } }));
    const result = await fetchAttachment("https://camo.githubusercontent.com/abc/def", options(fetch));
    expect(result).toMatchObject({ ok: false, reason: "refused", message: expect.stringMatching(/redirected to evil\.example/) });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.authorization).toBeUndefined();
  });

  it("a camo 404 is not found, asked once, without the token", async () => {
    const { fetch, calls } = fakeFetch(() => new Response("", { status: 404 }));
    expect(await fetchAttachment("https://camo.githubusercontent.com/abc/def", options(fetch))).toMatchObject({ ok: false, reason: "not_found" });
    expect(calls).toHaveLength(1);
  });

  it("refuses another host without a request", async () => {
    const { fetch, calls } = fakeFetch(() => new Response(PNG));
    expect(await fetchAttachment("https://evil.example/a.png", options(fetch))).toMatchObject({ ok: false, reason: "refused" });
    expect(calls).toEqual([]);
  });

  it("stops at the byte cap, declared or streamed", async () => {
    const declared = fakeFetch(() => new Response("x".repeat(10), { headers: { "content-length": "5000" } }));
    expect(await fetchAttachment("https://user-images.githubusercontent.com/1/a.png", options(declared.fetch))).toMatchObject({ ok: false, reason: "too_large" });
    const streamed = fakeFetch(() => new Response(new Blob(["x".repeat(2000)]).stream()));
    expect(await fetchAttachment("https://user-images.githubusercontent.com/1/a.png", options(streamed.fetch))).toMatchObject({ ok: false, reason: "too_large" });
  });

  it("gives up after its timeout", async () => {
    const fetch = ((_input: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)))) as typeof globalThis.fetch;
    expect(await fetchAttachment("https://user-images.githubusercontent.com/1/a.png", { ...options(fetch), timeoutMs: 50 })).toMatchObject({
      ok: false,
      reason: "timeout"
    });
  });
});

describe("the block's attachments", () => {
  const reader = (answers: Record<string, Uint8Array | null>): AttachmentReader & { asked: string[] } => {
    const asked: string[] = [];
    return {
      asked,
      webHost: "github.com",
      async fetchAttachment(url) {
        asked.push(url);
        const bytes = answers[url];
        return bytes ? { ok: true, bytes, contentType: null } : { ok: false, reason: "not_found", message: "404: GitHub has no such file" };
      }
    };
  };

  it("shows real images, notes a 404 and a fake PNG, lists files and other hosts, and fetches nothing but images", async () => {
    const ok = `https://github.com/user-attachments/assets/${UUID}`;
    const gone = "https://user-images.githubusercontent.com/1/gone.png";
    const fake = "https://user-images.githubusercontent.com/1/fake.png";
    const texts = [
      { where: "body", text: `![crash](${ok})\n![gone](${gone})\n![evil](https://evil.example/x.png)` },
      { where: "comment 1", text: `![fake](${fake})\n[log.zip](https://github.com/user-attachments/files/9/log.zip)` }
    ];
    const fetcher = reader({ [ok]: PNG, [fake]: new TextEncoder().encode("hello, not a png") });
    const gathered = await gatherAttachments(texts, fetcher);
    expect(gathered.facts).toEqual([
      { url: ok, kind: "image", where: "body", alt: "crash", status: "shown", image: 1, mediaType: "image/png", bytes: PNG.byteLength },
      { url: gone, kind: "image", where: "body", alt: "gone", status: "failed", note: "404: GitHub has no such file" },
      { url: "https://evil.example/x.png", kind: "image", where: "body", alt: "evil", status: "not fetched", note: expect.stringMatching(/never fetched/) },
      { url: fake, kind: "image", where: "comment 1", alt: "fake", status: "failed", bytes: 16, note: expect.stringMatching(/^not a PNG, JPEG, GIF or WebP image by its bytes/) },
      { url: "https://github.com/user-attachments/files/9/log.zip", kind: "file", where: "comment 1", name: "log.zip", status: "listed" }
    ]);
    expect(gathered.images).toEqual([{ index: 1, mediaType: "image/png", bytes: PNG }]);
    expect(fetcher.asked).toEqual([ok, gone, fake]);
    expect(gathered.kept.map((kept) => kept.url)).toEqual([ok, gone, fake, "https://github.com/user-attachments/files/9/log.zip"]);
  });

  it("reveals alt text like the issue's, and shows a data: URL by its header only", async () => {
    const text = "![look\u200B <!--x--> here](data:image/png;base64," + "A".repeat(5000) + ")";
    const { facts } = await gatherAttachments([{ where: "body", text }], reader({}));
    expect(facts[0]).toMatchObject({ alt: "look[U+200B]  here", status: "not fetched", url: "data:image/png;base64,…" });
  });

  it(`shows at most ${MAX_IMAGES_SHOWN} images; the rest are listed for fetch_attachment`, async () => {
    const urls = Array.from({ length: MAX_IMAGES_SHOWN + 2 }, (_, i) => `https://user-images.githubusercontent.com/1/${i}.png`);
    const fetcher = reader(Object.fromEntries(urls.map((url) => [url, PNG])));
    const { facts, images } = await gatherAttachments([{ where: "body", text: urls.map((url) => `![](${url})`).join("\n") }], fetcher);
    expect(images).toHaveLength(MAX_IMAGES_SHOWN);
    expect(facts.slice(MAX_IMAGES_SHOWN).every((fact) => fact.status === "listed" && /fetch_attachment/.test(fact.note!))).toBe(true);
    expect(fetcher.asked).toHaveLength(MAX_IMAGES_SHOWN);
  });

  it("fetches a private repository's upload from the signed address GitHub's HTML gives it", async () => {
    const signed = `https://private-user-images.githubusercontent.com/9/55-${UUID}.png?jwt=eyJ`;
    const fetcher = reader({ [signed]: JPEG });
    const { facts, kept } = await gatherAttachments(
      [{ where: "body", text: `![s](https://github.com/user-attachments/assets/${UUID})`, html: `<img src="${signed}">` }],
      fetcher
    );
    expect(facts[0]).toMatchObject({ status: "shown", mediaType: "image/jpeg", url: `https://github.com/user-attachments/assets/${UUID}` });
    expect(fetcher.asked).toEqual([signed]);
    expect(kept[0]).toMatchObject({ fetchFrom: signed, image: { index: 1, mediaType: "image/jpeg" } });
    // A recovered turn: the same bytes are shown again; changed or gone ones are a note.
    expect((await refetchImages(kept, fetcher)).images).toHaveLength(1);
    const again = await refetchImages(kept, reader({ [signed]: PNG }));
    expect(again).toEqual({ images: [], notes: [expect.stringMatching(/^Image 1 could not be fetched again after the run restarted \(its bytes changed\)/)] });
  });
});
