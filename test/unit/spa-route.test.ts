/**
 * `/`, `/thread/:session` and the repositories pages (src/http/spa.ts): `/`
 * carries the API's answer as inert JSON before `</body>`, streamed after
 * the page's head, and nothing when that answer is not a 200 JSON page,
 * fails or is too large; where index.html marks #root's placeholder, the
 * first view drawn from that answer takes its place, and a view that cannot
 * be drawn leaves the placeholder; the other pages and a HEAD carry nothing. The escaping
 * holds against hostile thread titles (src/http/inline-snapshot.ts).
 */
import { describe, expect, it } from "vitest";
import {
  escapeJsonForHtml,
  FIRST_VIEW_ATTRIBUTE,
  INLINE_SNAPSHOT_ID,
  INLINE_SNAPSHOT_PATH,
  MAX_INLINE_SNAPSHOT_BYTES
} from "../../src/http/inline-snapshot";
import { json } from "../../src/http/responses";
import { FIRST_VIEW_OUTLET, handleSpaRoute, preloadLinks, type AssetsFetcher, type SpaDeps } from "../../src/http/spa";

const BASE = "https://agent-think.test";
const INDEX = [
  "<!doctype html>",
  '<html lang="en"><head><script type="module" crossorigin src="/assets/index-abc.js"></script>',
  '<link rel="stylesheet" crossorigin href="/assets/index-abc.css"></head>',
  '<body><div id="root"></div></body>',
  "</html>"
].join("\n");

/** index.html as Vite builds it: #root's placeholder between the outlet's marks. */
const PLACEHOLDER = '<div class="page"><header class="topbar">agent-think</header></div>';
const MARKED_INDEX = INDEX.replace('<div id="root"></div>', `<div id="root">${FIRST_VIEW_OUTLET.open}${PLACEHOLDER}${FIRST_VIEW_OUTLET.close}</div>`);

const HOSTILE_TITLES = [
  "</script><script>alert(1)</script>",
  "</SCRIPT >alert(2)",
  "<!--<script>",
  "--><img src=x onerror=alert(3)>",
  "line\u2028separator\u2029paragraph",
  "a & b > c < d \\u003c \\\\</script>"
];

function snapshotBody() {
  return {
    metrics: { runs24h: 0 },
    threads: HOSTILE_TITLES.map((issueTitle, index) => ({ session: `acme-widgets-${index + 1}`, issueTitle })),
    total: HOSTILE_TITLES.length,
    generatedAt: 1_700_000_000_000
  };
}

type Recorded = { assets: Request[]; answers: Request[] };

function deps(answer?: (request: Request) => Promise<Response>, page = INDEX, renderFirstView?: SpaDeps["renderFirstView"]) {
  const recorded: Recorded = { assets: [], answers: [] };
  const assets: AssetsFetcher = {
    fetch: async (request) => {
      recorded.assets.push(request);
      return new Response(request.method === "HEAD" ? null : page, { headers: { "content-type": "text/html", etag: '"abc"' } });
    }
  };
  return {
    recorded,
    deps: {
      assets,
      ...(answer
        ? {
            answer: async (request: Request) => {
              recorded.answers.push(request);
              return answer(request);
            }
          }
        : {}),
      ...(renderFirstView ? { renderFirstView } : {})
    }
  };
}

const get = (path: string, init?: RequestInit) => new Request(`${BASE}${path}`, init);

/** What an HTML parser takes as the element's text: up to the first `</script`, in any case. */
function inlineText(html: string): string | null {
  const open = new RegExp(`<script type="application/json" id="${INLINE_SNAPSHOT_ID}"(?: ${FIRST_VIEW_ATTRIBUTE})?>`).exec(html);
  if (!open) return null;
  const rest = html.slice(open.index + open[0].length);
  return rest.slice(0, rest.search(/<\/script/i));
}

describe("the inline snapshot's escaping", () => {
  it("reads back to the same value and holds nothing that can end the element, open a comment or end a line", () => {
    const body = snapshotBody();
    const escaped = escapeJsonForHtml(JSON.stringify(body));
    expect(escaped).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(escaped)).toEqual(body);
  });
});

describe("handleSpaRoute", () => {
  it("puts the API's answer into / as JSON, the rest of the page unchanged", async () => {
    const body = snapshotBody();
    const { deps: spa, recorded } = deps(async () => json(body, 200, { "cache-control": "no-store" }));
    const response = await handleSpaRoute(get("/", { headers: { cookie: "CF_Authorization=jwt", "cf-access-jwt-assertion": "jwt", "if-none-match": '"abc"' } }), spa);
    expect(response?.status).toBe(200);
    expect(response?.headers.get("cache-control")).toBe("no-store");
    expect(response?.headers.get("etag")).toBeNull();
    const html = await response!.text();

    const text = inlineText(html);
    expect(text).not.toBeNull();
    expect(JSON.parse(text!)).toEqual(body);
    // Exactly one element, just before </body>, and nothing else added.
    expect(html.split(`id="${INLINE_SNAPSHOT_ID}"`)).toHaveLength(2);
    const element = `<script type="application/json" id="${INLINE_SNAPSHOT_ID}">${text}</script>`;
    expect(html.replace(element, "")).toBe(INDEX);
    expect(html.indexOf(element) + element.length).toBe(html.indexOf("</body>"));
    // A hostile title closes nothing: the only script end tags are the page's own and the element's.
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html).not.toContain("<!--");

    // The snapshot was asked as the API is asked, by the same caller.
    expect(recorded.answers).toHaveLength(1);
    const asked = recorded.answers[0]!;
    expect(new URL(asked.url).pathname + new URL(asked.url).search).toBe(INLINE_SNAPSHOT_PATH);
    expect(asked.method).toBe("GET");
    expect(asked.headers.get("accept")).toBe("application/json");
    expect(asked.headers.get("cookie")).toBe("CF_Authorization=jwt");
    expect(asked.headers.get("cf-access-jwt-assertion")).toBe("jwt");
    expect(asked.headers.get("if-none-match")).toBeNull();
    // The page itself was read whole, not as a 304.
    expect(recorded.assets[0]!.headers.get("if-none-match")).toBeNull();
  });

  it("sends the headers and the page's head before the snapshot is ready", async () => {
    let release!: () => void;
    const ready = new Promise<void>((resolve) => (release = resolve));
    const { deps: spa, recorded } = deps(async () => {
      await ready;
      return json(snapshotBody());
    });
    const response = await handleSpaRoute(get("/"), spa);
    expect(response?.headers.get("link")).toBe("</assets/index-abc.js>; rel=modulepreload; crossorigin, </assets/index-abc.css>; rel=preload; as=style; crossorigin");
    expect(recorded.answers).toHaveLength(1);
    const reader = response!.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('<script type="module" crossorigin src="/assets/index-abc.js"></script>');
    expect(first).not.toContain("</body>");
    release();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toContain(INLINE_SNAPSHOT_ID);
    expect(rest.endsWith("</html>")).toBe(true);
  });

  it("carries nothing when the API would refuse, fail, answer other than JSON, or answer more than the bound", async () => {
    const answers: Array<() => Promise<Response>> = [
      async () => json({ error: "forbidden" }, 403),
      async () => json({ error: "bad request" }, 400),
      async () => new Response("<p>not json</p>", { headers: { "content-type": "text/html" } }),
      async () => {
        throw new Error("the command center is down");
      },
      async () => json({ ...snapshotBody(), padding: "x".repeat(MAX_INLINE_SNAPSHOT_BYTES) })
    ];
    for (const answer of answers) {
      const { deps: spa } = deps(answer);
      const response = await handleSpaRoute(get("/"), spa);
      expect(response?.status).toBe(200);
      expect(await response!.text()).toBe(INDEX);
    }
  });

  it("asks nothing for a thread page, a repositories page, a HEAD, or without an answer to ask", async () => {
    for (const request of [get("/thread/acme-widgets-1"), get("/repositories"), get("/repositories/acme/widgets"), get("/", { method: "HEAD" })]) {
      const { deps: spa, recorded } = deps(async () => json(snapshotBody()));
      const response = await handleSpaRoute(request, spa);
      expect(response?.status).toBe(200);
      expect(recorded.answers).toHaveLength(0);
      if (request.method === "GET") expect(await response!.text()).toBe(INDEX);
    }
    const { deps: bare } = deps();
    expect(await (await handleSpaRoute(get("/"), bare))!.text()).toBe(INDEX);
  });

  it("puts the first view drawn from the snapshot in place of #root's placeholder, and says so on the element", async () => {
    const body = snapshotBody();
    const drawn: string[] = [];
    const render = async (text: string) => {
      drawn.push(text);
      return '<div class="page" data-testid="command-center">drawn</div>';
    };
    const { deps: spa } = deps(async () => json(body), MARKED_INDEX, render);
    const html = await (await handleSpaRoute(get("/"), spa))!.text();
    expect(html).toContain('<div id="root"><div class="page" data-testid="command-center">drawn</div></div>');
    expect(html).not.toContain(PLACEHOLDER);
    expect(html).not.toContain(FIRST_VIEW_OUTLET.open);
    // Drawn from the very text the element carries, which says #root holds its view.
    expect(drawn).toEqual([inlineText(html)]);
    expect(JSON.parse(drawn[0]!)).toEqual(body);
    expect(html).toContain(`<script type="application/json" id="${INLINE_SNAPSHOT_ID}" ${FIRST_VIEW_ATTRIBUTE}>`);
    expect(html.indexOf(`id="${INLINE_SNAPSHOT_ID}"`)).toBeGreaterThan(html.indexOf('<div id="root">'));
  });

  it("keeps the placeholder, and no mark on the element, when the view cannot be drawn or there is no snapshot", async () => {
    const renders: Array<SpaDeps["renderFirstView"]> = [
      async () => null,
      async () => {
        throw new Error("the render broke");
      },
      undefined
    ];
    for (const render of renders) {
      const { deps: spa } = deps(async () => json(snapshotBody()), MARKED_INDEX, render);
      const html = await (await handleSpaRoute(get("/"), spa))!.text();
      expect(html).toContain(`<div id="root">${FIRST_VIEW_OUTLET.open}${PLACEHOLDER}${FIRST_VIEW_OUTLET.close}</div>`);
      expect(html).toContain(`<script type="application/json" id="${INLINE_SNAPSHOT_ID}">`);
      expect(html).not.toContain(FIRST_VIEW_ATTRIBUTE);
    }
    let asked = 0;
    const { deps: spa } = deps(async () => json({ error: "forbidden" }, 403), MARKED_INDEX, async () => {
      asked += 1;
      return "<p>never</p>";
    });
    expect(await (await handleSpaRoute(get("/"), spa))!.text()).toBe(MARKED_INDEX);
    expect(asked).toBe(0);
  });

  it("sends the head before the snapshot, and the view only once the snapshot is there", async () => {
    let release!: () => void;
    const ready = new Promise<void>((resolve) => (release = resolve));
    const { deps: spa } = deps(
      async () => {
        await ready;
        return json(snapshotBody());
      },
      MARKED_INDEX,
      async () => "<main>drawn</main>"
    );
    const reader = (await handleSpaRoute(get("/"), spa))!.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('<script type="module" crossorigin src="/assets/index-abc.js"></script>');
    expect(first.endsWith('<div id="root">')).toBe(true);
    release();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest.startsWith("<main>drawn</main></div>")).toBe(true);
    expect(rest.endsWith("</html>")).toBe(true);
  });

  it("does not wait for a command center that does not answer: the page goes out as index.html", async () => {
    let asked = 0;
    const spa: SpaDeps = {
      ...deps(() => new Promise<Response>(() => {}), MARKED_INDEX).deps,
      renderFirstView: async () => {
        asked += 1;
        return "<p>never</p>";
      },
      snapshotWaitMs: 20
    };
    const response = (await handleSpaRoute(get("/"), spa))!;
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.text()).toBe(MARKED_INDEX);
    expect(asked).toBe(0);
  });

  it("draws nothing for a thread page or a HEAD, which keep index.html as it is", async () => {
    let asked = 0;
    const render = async () => {
      asked += 1;
      return "<p>never</p>";
    };
    for (const request of [get("/thread/acme-widgets-1"), get("/", { method: "HEAD" })]) {
      const { deps: spa } = deps(async () => json(snapshotBody()), MARKED_INDEX, render);
      const response = await handleSpaRoute(request, spa);
      expect(response?.status).toBe(200);
      if (request.method === "GET") expect(await response!.text()).toBe(MARKED_INDEX);
    }
    expect(asked).toBe(0);
  });

  it("preloads only the page's own module scripts and stylesheets under /assets/", () => {
    const html = [
      '<script type="module" src="/assets/a.js"></script><script src="/assets/classic.js"></script>',
      '<script type="module" src="https://cdn.example/x.js"></script><link rel="icon" href="/assets/i.css">',
      '<link rel="stylesheet" href="/assets/b.css"><script type="application/json" id="x">{}</script>'
    ].join("");
    expect(preloadLinks(html)).toBe("</assets/a.js>; rel=modulepreload, </assets/b.css>; rel=preload; as=style");
    expect(preloadLinks("<p>no assets</p>")).toBe("");
  });

  it("leaves other paths to the next handler and refuses a thread page that is no session, or a repository page that is no repository", async () => {
    const { deps: spa } = deps(async () => json(snapshotBody()));
    expect(await handleSpaRoute(get("/api/command-center"), spa)).toBeNull();
    expect(await handleSpaRoute(get("/", { method: "POST" }), spa)).toBeNull();
    expect(await handleSpaRoute(get("/repositories/acme"), spa)).toBeNull();
    expect(await handleSpaRoute(get("/repositories/acme/widgets/pulls"), spa)).toBeNull();
    expect((await handleSpaRoute(get("/thread/Not%20A%20Session"), spa))?.status).toBe(404);
    expect((await handleSpaRoute(get("/repositories/ac%20me/widgets"), spa))?.status).toBe(404);
    expect((await handleSpaRoute(get("/repositories/acme/widgets.git"), spa))?.status).toBe(404);
    expect((await handleSpaRoute(get("/"), { assets: undefined }))?.status).toBe(404);
  });
});
