/**
 * Dashboard first paint in headless Chromium (Debian's, driven by
 * playwright-core; never a downloaded browser), against the bench Worker,
 * which serves the built SPA, the real `GET /api/command-center` and the
 * agents socket exactly as the agent Worker does (bench/wrangler.jsonc).
 *
 * Before it, bench/run.ts seeds `main` (the command center the SPA shows)
 * with the same 2,000 threads as the command-center bench, on top of the
 * threads the dispatch and shell sections left there (the newest seeded
 * thread is newer than all of those).
 *
 * Two sides, each page load in a fresh browser context (empty cache, cookies
 * and storage) with the cache also disabled over CDP:
 *   A = spa: `/`, the dashboard: index.html, its JS and CSS, then the snapshot
 *       and the live state over the socket.
 *   B = static: `/bench/static-page`, the very markup the SPA rendered on its
 *       warm-up load (same DOM, same stylesheet), its scripts removed, served
 *       by the same Worker: the floor for painting those pixels, so A - B is
 *       what the JS, the API call and the socket cost.
 * A's index.html carries the first snapshot page (src/http/inline-snapshot.ts)
 * and the first view the Worker drew from it (src/http/first-view.tsx); the
 * document as it arrived says whether each was there.
 * Per load, in the page's own clock from navigation start, both as the
 * browser reports when a frame was presented: first-contentful-paint (the
 * `paint` entry), and data shown: the later of the metric tiles and the
 * first thread rows being drawn (Element Timing, on elements a probe
 * injected before any script marks as they enter the DOM), once the
 * DOM holds the tiles and at least MIN_ROWS thread rows. One
 * warm-up load per side is discarded (it also captures B's markup), then
 * A B B A blocks.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM_ARGS, findChromium } from "../scripts/lib/chromium";
import { FIRST_VIEW_ATTRIBUTE, INLINE_SNAPSHOT_ID } from "../src/http/inline-snapshot";
import { MAX_RECENT_THREADS } from "../src/shared/command-center";
import { summarize, type Summary } from "./stats";

export type Post = (path: string, body: unknown) => Promise<unknown>;
export type DashboardSide = "spa" | "static";

const PATHS: Record<DashboardSide, string> = { spa: "/", static: "/bench/static-page" };
export const RUNS_PER_SIDE = 10;
const ORDER: DashboardSide[] = Array.from({ length: RUNS_PER_SIDE / 2 }, (): DashboardSide[] => ["spa", "static", "static", "spa"]).flat();
/** The live state's threads: rows a first page (100) or the state (50) both show. */
export const MIN_ROWS = MAX_RECENT_THREADS;
const LOAD_TIMEOUT_MS = 30_000;
const VIEWPORT = { width: 1280, height: 800 };

export type PageLoad = {
  /** first-contentful-paint, ms from navigation start. */
  fcpMs: number;
  /** Data shown: the later of tilesMs and rowMs (and of dataDomMs, which always precedes them). */
  dataMs: number;
  /** The metric tiles first drawn (Element Timing renderTime of a tile's value). */
  tilesMs: number;
  /** The first thread rows drawn (the earliest Element Timing renderTime of a row's title). */
  rowMs: number;
  /** When the DOM first held the tiles and MIN_ROWS thread rows. */
  dataDomMs: number;
  /** The document's first byte. */
  ttfbMs: number;
  domContentLoadedMs: number;
  /** Thread rows in the DOM when it first held the data (the socket's state has 50, a first page 100). */
  rows: number;
  /** The document, as it arrived, held the snapshot the Worker inlines. */
  inlineSnapshot: boolean;
  /** ... and its #root the first view the Worker drew from it (so the rows came with the document). */
  firstView: boolean;
  /** Document plus resources (JS, CSS, the snapshot), as transferred; excludes the socket. */
  transferBytes: number;
  /** Resources served from a cache (transferSize 0 with a body): expect none. */
  cachedResources: number;
  /** Each resource as transferred, with when it was asked for and when its last byte came (ms from navigation start). */
  resources: { name: string; type: string; transferBytes: number; startMs: number; endMs: number }[];
  pageErrors: string[];
};

export type DashboardFigures = {
  chromium: string;
  runsPerSide: number;
  order: DashboardSide[];
  minRows: number;
  paths: Record<DashboardSide, string>;
  /** The baseline page's HTML (the SPA's rendered markup without scripts). */
  staticPageBytes: number;
  loads: Record<DashboardSide, PageLoad[]>;
  fcp: Record<DashboardSide, Summary>;
  data: Record<DashboardSide, Summary>;
  ttfb: Record<DashboardSide, Summary>;
  transferBytes: Record<DashboardSide, Summary>;
};

/**
 * Injected before any of the page's scripts. As the tiles and the thread
 * rows enter the DOM (before they can be painted), it marks a text
 * element of each (a tile's value, each row's title) with `elementtiming`,
 * so Element Timing reports when each is first drawn (rows below the fold
 * are not drawn, so not reported), on the same presentation clock as
 * first-contentful-paint; and it notes when the DOM first holds the tiles
 * and MIN_ROWS thread rows.
 */
const PROBE = `(() => {
  const probe = { dataDomAt: null, tilesAt: null, rowAt: null, rows: 0 };
  window.__benchProbe = probe;
  const rowsSelector = '[data-testid="thread-row"]';
  const mark = (element, id) => {
    if (element && !element.hasAttribute("elementtiming")) element.setAttribute("elementtiming", id);
  };
  const check = () => {
    const tiles = document.querySelector('[data-testid="metric-tiles"]');
    mark(tiles && tiles.querySelector(".tile-value"), "bench-tiles");
    for (const title of document.querySelectorAll(rowsSelector + " .thread-title")) mark(title, "bench-row");
    if (!tiles) return;
    const rows = document.querySelectorAll(rowsSelector).length;
    if (rows < ${MIN_ROWS}) return;
    probe.dataDomAt = performance.now();
    probe.rows = rows;
    observer.disconnect();
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const at = entry.renderTime || entry.loadTime;
      if (entry.identifier === "bench-tiles" && probe.tilesAt === null) probe.tilesAt = at;
      if (entry.identifier === "bench-row" && (probe.rowAt === null || at < probe.rowAt)) probe.rowAt = at;
    }
  }).observe({ type: "element", buffered: true });
})();`;

const DONE = `(() => {
  const probe = window.__benchProbe;
  return Boolean(probe && probe.dataDomAt !== null && probe.tilesAt !== null && probe.rowAt !== null &&
    performance.getEntriesByType("paint").some((entry) => entry.name === "first-contentful-paint"));
})()`;

const READ = `(() => {
  const probe = window.__benchProbe;
  const nav = performance.getEntriesByType("navigation")[0];
  const fcp = performance.getEntriesByType("paint").find((entry) => entry.name === "first-contentful-paint");
  const resources = performance.getEntriesByType("resource").map((entry) => ({
    name: new URL(entry.name).pathname + new URL(entry.name).search,
    type: entry.initiatorType,
    transferBytes: entry.transferSize,
    bodyBytes: entry.encodedBodySize,
    startMs: entry.startTime,
    endMs: entry.responseEnd
  }));
  return {
    fcpMs: fcp.startTime,
    dataMs: Math.max(probe.tilesAt, probe.rowAt, probe.dataDomAt),
    tilesMs: probe.tilesAt,
    rowMs: probe.rowAt,
    dataDomMs: probe.dataDomAt,
    ttfbMs: nav.responseStart,
    domContentLoadedMs: nav.domContentLoadedEventEnd,
    rows: probe.rows,
    documentBytes: nav.transferSize,
    resources
  };
})()`;

type Read = Omit<PageLoad, "transferBytes" | "cachedResources" | "resources" | "pageErrors" | "inlineSnapshot" | "firstView"> & {
  documentBytes: number;
  resources: { name: string; type: string; transferBytes: number; bodyBytes: number; startMs: number; endMs: number }[];
};

/** One load of `url` in a fresh context; `capture` also returns the rendered markup. */
async function loadOnce(browser: Browser, url: string, capture = false): Promise<{ load: PageLoad; html?: string }> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await page.addInitScript({ content: PROBE });
    const navigation = await page.goto(url, { waitUntil: "commit", timeout: LOAD_TIMEOUT_MS });
    try {
      await page.waitForFunction(DONE, undefined, { timeout: LOAD_TIMEOUT_MS, polling: 50 });
    } catch (error) {
      const rows = await page.locator('[data-testid="thread-row"]').count().catch(() => -1);
      const probe = await page.evaluate("JSON.stringify(window.__benchProbe)").catch(() => "unreadable");
      const shot = join(tmpdir(), "agent-think-bench-dashboard.png");
      await page.screenshot({ path: shot }).catch(() => undefined);
      throw new Error(
        `${url}: the data was not shown within ${LOAD_TIMEOUT_MS} ms (${rows} thread rows; probe ${String(probe)}; page errors: ${pageErrors.join("; ") || "none"}; screenshot ${shot}): ${error instanceof Error ? error.message : String(error)}`
      );
    }
    const read = (await page.evaluate(READ)) as Read;
    const { documentBytes, resources, ...figures } = read;
    // Read after the figures, from the browser's copy: the page runs nothing for it.
    const arrived = (await navigation?.text()) ?? "";
    const element = new RegExp(`<script type="application/json" id="${INLINE_SNAPSHOT_ID}"( ${FIRST_VIEW_ATTRIBUTE})?>`).exec(arrived);
    const load: PageLoad = {
      ...figures,
      inlineSnapshot: element !== null,
      firstView: element?.[1] !== undefined,
      transferBytes: documentBytes + resources.reduce((sum, resource) => sum + resource.transferBytes, 0),
      cachedResources: resources.filter((resource) => resource.transferBytes === 0 && resource.bodyBytes > 0).length,
      resources: resources.map(({ name, type, transferBytes, startMs, endMs }) => ({ name, type, transferBytes, startMs, endMs })),
      pageErrors
    };
    if (!capture) return { load };
    // The baseline gets the page as it settles (the snapshot's 100 rows even when the socket's 50 came first).
    await page.waitForLoadState("networkidle", { timeout: LOAD_TIMEOUT_MS });
    return { load, html: await page.content() };
  } finally {
    await context.close();
  }
}

/** The SPA's rendered markup as a static page: no scripts, no module preloads; the stylesheet stays. */
export function staticMarkup(html: string): string {
  return html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
    .replace(/<link\b[^>]*rel="modulepreload"[^>]*>/gi, "");
}

export async function measureDashboard(baseUrl: string, post: Post): Promise<DashboardFigures> {
  const found = await findChromium();
  const browser = await chromium.launch({ executablePath: found.path, args: CHROMIUM_ARGS });
  try {
    // Warm-up, discarded: the SPA's load also gives the baseline its markup.
    const warm = await loadOnce(browser, baseUrl + PATHS.spa, true);
    const html = staticMarkup(warm.html!);
    if (/<script\b/i.test(html)) throw new Error("the baseline page still holds a script");
    const { bytes: staticPageBytes } = (await post("/bench/static-page", { html })) as { bytes: number };
    await loadOnce(browser, baseUrl + PATHS.static);

    const loads: Record<DashboardSide, PageLoad[]> = { spa: [], static: [] };
    for (const side of ORDER) {
      const { load } = await loadOnce(browser, baseUrl + PATHS[side]);
      if (load.pageErrors.length > 0) throw new Error(`${PATHS[side]}: page errors: ${load.pageErrors.join("; ")}`);
      loads[side].push(load);
    }
    const per = (pick: (load: PageLoad) => number) => ({ spa: summarize(loads.spa.map(pick)), static: summarize(loads.static.map(pick)) });
    return {
      chromium: `${browser.version()} (${found.source}: ${found.path})`,
      runsPerSide: RUNS_PER_SIDE,
      order: ORDER,
      minRows: MIN_ROWS,
      paths: PATHS,
      staticPageBytes,
      loads,
      fcp: per((load) => load.fcpMs),
      data: per((load) => load.dataMs),
      ttfb: per((load) => load.ttfbMs),
      transferBytes: per((load) => load.transferBytes)
    };
  } finally {
    await browser.close();
  }
}
