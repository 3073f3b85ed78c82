/**
 * A maintainer clicks a published reproduction in a real browser (Debian's
 * Chromium driven by playwright-core), against a real `wrangler dev` behind
 * Cloudflare Access that posts to the recording GitHub stand-in.
 *
 * The page is what the reproduce skill publishes: an index.html whose
 * button is wired by a module script it loads by relative URL
 * (`<script type=module crossorigin src=./assets/app.js>`). The page is
 * sandboxed (an opaque origin), so that script loads cross-origin and
 * without any cookie: the click working proves it loaded.
 *
 * A public repository's page is open to anyone with its unguessable
 * address; the old per-session address is gone. A private repository's is
 * behind Access: refused without it, and with the operator's Access cookie
 * redirected to a granted address under which the page and its assets are
 * served (the grant is the credential, so it must not be forgeable).
 *
 * A page stays home: its Content-Security-Policy lets it fetch nothing and
 * open no socket, so a page whose script tries the Worker's API and the
 * command center's socket, in a browser holding the operator's Access
 * cookie, sends neither request and still runs.
 * Screenshots land in test-results/screenshots/.
 */
import type { BrowserContext, Request } from "playwright-core";
import { describe, expect } from "vitest";
import { freshIssueNumber, waitForSubmission, type DispatchBody } from "./dev-api";
import { SHOTS, useChromium } from "./support/browser";
import { ACCESS_COOKIE } from "./support/access-issuer";
import { dispatchRun, test, waitForClosingComment, type ReportingServer } from "./support/reporting-server";

const CLICK_TIMEOUT_MS = 10_000;

const PAGE = [
  "<!doctype html><title>repro</title>",
  "<h1>Counter repro</h1><button id=trigger>Trigger bug</button><p id=out>not clicked</p>",
  "<script type=module crossorigin src=./assets/app.js></script>"
].join("");
const SCRIPT = [
  "document.getElementById('trigger').addEventListener('click', () => {",
  "  document.body.dataset.clicked = 'yes';",
  "  document.getElementById('out').textContent = 'clicked: expected 2, actual 3';",
  "});"
].join(" ");
const PUBLISH = [
  `TEST: write /workspace/repro/dist/index.html ${PAGE}`,
  `TEST: write /workspace/repro/dist/assets/app.js ${SCRIPT}`,
  "TEST: publish /workspace/repro/dist",
  "TEST: reply published"
].join("\n");

/**
 * A page that, on its button, tries the Worker's own origin as a hostile
 * page would: the API with credentials, and the command center's socket.
 * What happened lands in data attributes; a CSP violation is an event.
 */
const PROBE_SCRIPT = [
  "const violations = [];",
  "document.addEventListener('securitypolicyviolation', (event) => violations.push(event.effectiveDirective + ' ' + event.blockedURI));",
  "const worker = new URL(document.baseURI).origin;",
  "document.getElementById('trigger').addEventListener('click', async () => {",
  "  let fetched; try { const response = await fetch(worker + '/api/command-center', { credentials: 'include' }); fetched = 'answered ' + response.status; } catch (error) { fetched = 'failed: ' + error.name; }",
  "  const socket = await new Promise((resolve) => { try { const ws = new WebSocket(worker.replace('http', 'ws') + '/agents/command-center-agent/main'); ws.onopen = () => resolve('open'); ws.onerror = () => resolve('error'); } catch (error) { resolve('threw: ' + error.name); } });",
  "  await new Promise((resolve) => setTimeout(resolve, 200));",
  "  Object.assign(document.body.dataset, { fetched, socket, violations: violations.join(' | ') });",
  "  document.getElementById('out').textContent = 'clicked: expected 2, actual 3';",
  "  document.body.dataset.clicked = 'yes';",
  "});"
].join(" ");
const PUBLISH_PROBE = [
  `TEST: write /workspace/repro/dist/index.html ${PAGE}`,
  `TEST: write /workspace/repro/dist/assets/app.js ${PROBE_SCRIPT}`,
  "TEST: publish /workspace/repro/dist",
  "TEST: reply published"
].join("\n");

const PUBLICATION_ID = "[0-9a-f]{32}";
/** `<id>.<expires, epoch seconds>.<base64url HMAC-SHA256>` (src/repro/grant.ts). */
const GRANTED = new RegExp(`^/repro/private/(${PUBLICATION_ID})\\.([0-9]+)\\.([A-Za-z0-9_-]{43})/$`);

const browser = useChromium();

/** Publishes the page for a fresh issue and returns the URL the publish tool gave the model, and the run's closing comment. */
async function publish(server: ReportingServer, repoVisibility?: DispatchBody["repoVisibility"], instruction = PUBLISH) {
  const run = await dispatchRun(server, {
    repo: "acme/repro-pages",
    issueNumber: freshIssueNumber(),
    commentId: freshIssueNumber(),
    instruction,
    ...(repoVisibility ? { repoVisibility } : {})
  });
  const settled = await waitForSubmission(server.url, run, { credentials: await server.jwtHeader() });
  expect(settled.submission.status, server.output()).toBe("completed");
  const published = settled.messages
    .flatMap((message) => message.parts)
    .find((part) => part.type === "tool-publish_reproduction");
  const output = published?.output as { published?: boolean; url?: string; error?: string } | undefined;
  expect(output, JSON.stringify(published)).toMatchObject({ published: true, url: expect.any(String) });
  const url = new URL(output!.url!);
  // PUBLIC_BASE_URL is the dev server's own URL (wranglerDevArgs): the link works as given.
  expect(url.origin).toBe(new URL(server.url).origin);
  const closing = await waitForClosingComment(server.github, run.submissionId);
  return { run, url, closing };
}

/** A fresh browser context: no cookies unless given, every request to the page's assets recorded. */
async function openContext(cookies: Parameters<BrowserContext["addCookies"]>[0] = []) {
  const context = await browser().newContext({ viewport: { width: 900, height: 500 } });
  if (cookies.length > 0) await context.addCookies(cookies);
  const scripts: Request[] = [];
  context.on("request", (request) => {
    if (request.url().endsWith("/assets/app.js")) scripts.push(request);
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  return { context, page, scripts, errors };
}

async function clickAndSeeTheScriptRun(page: Awaited<ReturnType<typeof openContext>>["page"]): Promise<void> {
  await page.locator("#trigger").click();
  await expect.poll(() => page.locator("body").getAttribute("data-clicked"), { timeout: CLICK_TIMEOUT_MS }).toBe("yes");
  expect(await page.locator("#out").textContent()).toBe("clicked: expected 2, actual 3");
}

async function fetchWithoutCredentials(url: string): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(url, { redirect: "manual" });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

describe("a public repository's reproduction", () => {
  test("opens without Access at its own address, and its button runs the page's module script", async ({ reportingServer: server }) => {
    const { run, url, closing } = await publish(server, "public");
    expect(url.pathname).toMatch(new RegExp(`^/repro/${PUBLICATION_ID}/$`));
    expect(closing).toContain(`**Reproduction:** ${url.href}`);

    const { context, page, scripts, errors } = await openContext();
    const response = await page.goto(url.href);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toMatch(/^sandbox allow-scripts\b/);
    await clickAndSeeTheScriptRun(page);
    expect(scripts.map((request) => new URL(request.url()).pathname)).toEqual([`${url.pathname}assets/app.js`]);
    expect(errors).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/repro-public.png` });
    await context.close();

    const raw = await fetchWithoutCredentials(url.href);
    expect(raw.status, raw.text).toBe(200);
    expect(raw.text).toContain("Trigger bug");
    // The old address was the session name: guessable from the issue, so never served.
    const old = await fetchWithoutCredentials(`${server.url}/repro/${run.session}/`);
    expect(old.status, old.text).toBe(404);
  });
});

describe("a private repository's reproduction", () => {
  test("is behind Access; with the Access cookie it redirects to a granted address where the page and its script load", async ({ reportingServer: server }) => {
    const { url, closing } = await publish(server);
    const match = new RegExp(`^/repro/private/(${PUBLICATION_ID})/$`).exec(url.pathname);
    expect(match, url.href).not.toBeNull();
    const id = match![1]!;
    expect(closing).toContain(`**Reproduction:** ${url.href}`);

    const refused = await fetchWithoutCredentials(url.href);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.text).not.toContain("Trigger bug");

    const { context, page, scripts, errors } = await openContext([
      { name: ACCESS_COOKIE, value: await server.access.sign(), url: server.url }
    ]);
    const response = await page.goto(url.href);
    expect(response?.status()).toBe(200);
    const first = response?.request().redirectedFrom();
    expect(first?.url()).toBe(url.href);
    // The browser sent its cookie where it could (so the check on the script below sees headers as sent).
    expect((await first!.allHeaders()).cookie).toContain(`${ACCESS_COOKIE}=`);
    const granted = new URL(page.url());
    const grant = GRANTED.exec(granted.pathname);
    expect(grant, granted.href).not.toBeNull();
    expect(grant![1]).toBe(id);
    expect(Number(grant![2]) * 1000).toBeGreaterThan(Date.now());
    await clickAndSeeTheScriptRun(page);
    // The script came from under the grant, and the sandboxed page sent it no cookie.
    expect(scripts.map((request) => new URL(request.url()).pathname)).toEqual([`${granted.pathname}assets/app.js`]);
    expect((await scripts[0]!.allHeaders()).cookie).toBeUndefined();
    expect(errors).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/repro-private.png` });
    await context.close();

    // The grant is the credential: the page and its assets without any cookie.
    const direct = await fetchWithoutCredentials(granted.href);
    expect(direct.status, direct.text).toBe(200);
    expect(direct.text).toContain("Trigger bug");
    const asset = await fetchWithoutCredentials(`${granted.href}assets/app.js`);
    expect(asset.status, asset.text).toBe(200);
    expect(asset.headers.get("access-control-allow-origin")).toBe("*");

    // A grant that was not signed for this: another MAC, or a later expiry with the old MAC.
    const [, , expires, mac] = grant as unknown as [string, string, string, string];
    const flipped = mac[20] === "A" ? "B" : "A";
    const tamperedMac = `${id}.${expires}.${mac.slice(0, 20)}${flipped}${mac.slice(21)}`;
    const laterExpiry = `${id}.${Number(expires) + 3600}.${mac}`;
    for (const segment of [tamperedMac, laterExpiry]) {
      const tampered = await fetchWithoutCredentials(`${server.url}/repro/private/${segment}/`);
      expect(tampered.status, `${segment}: ${tampered.text}`).toBe(404);
      expect(tampered.text).not.toContain("Trigger bug");
    }
  });
});

describe("a reproduction page stays home", () => {
  test("cannot fetch from or open a socket to the Worker's origin, even with the operator's cookie, and still runs", async ({ reportingServer: server }) => {
    const { url } = await publish(server, "public", PUBLISH_PROBE);
    const { context, page, errors } = await openContext([{ name: ACCESS_COOKIE, value: await server.access.sign(), url: server.url }]);
    const toWorker: string[] = [];
    context.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith("/api/") || path.startsWith("/agents/")) toWorker.push(`${request.method()} ${path}`);
    });
    const sockets: string[] = [];
    page.on("websocket", (socket) => sockets.push(socket.url()));
    const console: string[] = [];
    page.on("console", (message) => console.push(message.text()));

    const response = await page.goto(url.href);
    await clickAndSeeTheScriptRun(page);

    // Neither request left the browser.
    expect(toWorker).toEqual([]);
    expect(sockets).toEqual([]);
    const body = page.locator("body");
    expect(await body.getAttribute("data-fetched")).toBe("failed: TypeError");
    expect(await body.getAttribute("data-socket")).toMatch(/^(error|threw: SecurityError)$/);
    // …because the page's policy refused both.
    const violations = (await body.getAttribute("data-violations")) ?? "";
    expect(violations).toContain(`connect-src ${server.url}/api/command-center`);
    expect(violations).toContain(`connect-src ${server.url.replace("http", "ws")}/agents/command-center-agent/main`);
    expect(console.filter((text) => text.includes("Content Security Policy")).length).toBeGreaterThanOrEqual(2);
    const policy = response?.headers()["content-security-policy"] ?? "";
    expect(policy).toMatch(/^sandbox allow-scripts\b/);
    expect(policy).toContain("connect-src 'none'");
    expect(errors).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/repro-stays-home.png` });
    await context.close();
  });
});
