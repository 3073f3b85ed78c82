/**
 * The operator's view in a real browser (Chromium, support/browser.ts, driven by
 * playwright-core) against `wrangler dev --local`: what runs cost on the
 * command center and on a thread page, the thread page opening at its
 * latest run with the older ones collapsed, the Continue banner following a
 * continued run to its outcome, a run that fails again after Continue, an
 * unknown thread's not-found page, and both pages on a 390×844 phone.
 *
 * Non-zero costs need a priced model, which the offline runtime does not
 * have (scripted runs cost $0.00): those pages are given fixture data through
 * the browser, the snapshot over HTTP, the live state on the command
 * center's socket, the thread's detail and transcript, as the Worker would
 * send them. Everything else is the real thing. Screenshots land in
 * test-results/screenshots.
 */
import type { Page } from "playwright-core";
import { describe, expect } from "vitest";
import { formatRunMessage, type RunEnvelope } from "../src/run/envelope";
import type { CommandCenterState, Metrics, RunSummary, Snapshot, ThreadDetail, ThreadSummary } from "../src/shared/command-center";
import type { TranscriptMessage } from "../src/shared/dispatch";
import { dispatch, freshIssueNumber, waitForSubmission } from "./dev-api";
import { test } from "./fixture";
import { expectAccessible } from "./support/a11y";
import { SHOTS, useChromium } from "./support/browser";
import { serveInlineSnapshot } from "./support/inline-snapshot";

const browser = useChromium();
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

async function newPage(viewport = DESKTOP): Promise<Page> {
  const page = await browser().newPage({ viewport });
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  return page;
}

/** A command center with three threads and a week of spend, and one thread's three runs with their transcript. */
function fixture(now: number) {
  const costly = "acme-widgets-7";
  const base = { repo: "acme/widgets", instructionSummary: "reproduce this issue", stale: false, toolErrors: 0, requestedBy: { login: "octocat" } };
  const done: ThreadSummary = {
    ...base,
    session: costly,
    issueNumber: 7,
    issueTitle: "Checkout total is off by one",
    status: "done",
    runCount: 3,
    toolCalls: 3,
    submissionId: "sub-3",
    startedAt: now - 120_000,
    turnStartedAt: now - 119_000,
    lastActivityAt: now - 60_000,
    durationMs: 60_000,
    cost: { usd: 1.234, complete: false },
    continuedBy: "ops@example.com"
  };
  const failedAgain: ThreadSummary = {
    ...base,
    session: "acme-widgets-8",
    issueNumber: 8,
    issueTitle: "Crash on empty cart",
    status: "error",
    runCount: 2,
    toolCalls: 4,
    submissionId: "sub-8b",
    startedAt: now - 300_000,
    lastActivityAt: now - 240_000,
    durationMs: 60_000,
    lastError: "Anthropic: 529 overloaded; OpenAI: 503 unavailable",
    failures: 2,
    continuedBy: "local operator",
    cost: { usd: 0.004, complete: true }
  };
  const running: ThreadSummary = {
    ...base,
    repo: "acme/gadgets",
    session: "acme-gadgets-3",
    issueNumber: 3,
    issueTitle: "Slow search",
    status: "running",
    runCount: 2,
    toolCalls: 1,
    submissionId: "sub-g2",
    startedAt: now - 30_000,
    turnStartedAt: now - 29_000,
    lastActivityAt: now - 2_000,
    continuedBy: "ops@example.com"
  };
  const metrics: Metrics = {
    runs24h: 6,
    successRate: 0.5,
    durationP50Ms: 60_000,
    durationP95Ms: 90_000,
    firstToolP50Ms: 900,
    firstToolP95Ms: 1_500,
    toolErrorRate: 0,
    recovering: 0,
    recoveries24h: 0,
    spendToday: { usd: 0.42, complete: true },
    spend7d: { usd: 12.5, complete: false },
    spendByRepo: [
      { repo: "acme/widgets", runs: 5, cost: { usd: 10.25, complete: false } },
      { repo: "acme/gadgets", runs: 1, cost: { usd: 0, complete: false } }
    ],
    costliestRuns: [
      { session: costly, repo: "acme/widgets", issueNumber: 7, submissionId: "sub-1", endedAt: now - 110_000, cost: { usd: 0.874, complete: true } },
      { session: "acme-widgets-8", repo: "acme/widgets", issueNumber: 8, submissionId: "sub-8a", endedAt: now - 280_000, cost: { usd: 0.004, complete: true } }
    ]
  };
  const threads = [done, running, failedAgain];
  const snapshot: Snapshot = { metrics, threads, total: threads.length, generatedAt: now };
  const state: CommandCenterState = { metrics, recent: threads, total: threads.length, updatedAt: now };

  const envelope = (submittedAt: number, extra: Partial<RunEnvelope> = {}): RunEnvelope => ({
    repository: "acme/widgets",
    issue: { number: 7, title: "Checkout total is off by one", url: "https://github.com/acme/widgets/issues/7" },
    instruction: "reproduce this issue",
    requestedBy: { login: "octocat" },
    session: costly,
    submittedAt: new Date(submittedAt).toISOString(),
    ...extra
  });
  const user = (id: string, env: RunEnvelope): TranscriptMessage => ({ id, role: "user", parts: [{ type: "text", text: formatRunMessage(env) }] });
  const say = (id: string, text: string): TranscriptMessage => ({ id, role: "assistant", parts: [{ type: "text", text, state: "done" }] });
  const transcript: TranscriptMessage[] = [
    user("u1", envelope(now - 120_000)),
    say("a1", "First run: cloning the repository."),
    user("u2", envelope(now - 100_000, { continuationOf: "sub-1" })),
    say("a2", "Second run: picking up where the first stopped."),
    user("u3", envelope(now - 80_000, { continuationOf: "sub-2" })),
    say("a3", "Third run: reproduced, the total is off by one.")
  ];
  const runs: RunSummary[] = [
    { submissionId: "sub-3", status: "done", dispatchedAt: now - 80_000, turnStartedAt: now - 79_000, endedAt: now - 60_000, toolCalls: 1, cost: { usd: 0.1, complete: true }, continuedBy: "ops@example.com", scripted: true, outcome: "reproduced" },
    { submissionId: "sub-2", status: "error", dispatchedAt: now - 100_000, endedAt: now - 95_000, toolCalls: 1, error: "the model fell over", cost: { usd: 0.26, complete: false }, continuedBy: "ops@example.com" },
    { submissionId: "sub-1", status: "error", dispatchedAt: now - 120_000, endedAt: now - 110_000, toolCalls: 1, error: "the model fell over", cost: { usd: 0.874, complete: true } }
  ];
  const detail: ThreadDetail = { thread: done, runs };
  return { snapshot, state, detail, transcript, done, failedAgain, running };
}

type Fixture = ReturnType<typeof fixture>;

/** Serves the fixture to the page in place of the Worker's API and sockets. */
async function serveFixture(page: Page, data: Fixture): Promise<void> {
  await serveInlineSnapshot(page, data.snapshot);
  await page.route(/\/api\/command-center(\?|$)/, (route) => route.fulfill({ json: data.snapshot }));
  await page.routeWebSocket(/\/agents\/command-center-agent\/main/, (socket) => {
    socket.send(JSON.stringify({ type: "cf_agent_state", state: data.state }));
  });
  await page.route(/\/api\/command-center\/threads\/[^/?]+/, (route) => {
    const session = decodeURIComponent(new URL(route.request().url()).pathname.split("/").pop()!);
    if (session === data.done.session) return route.fulfill({ json: data.detail });
    const thread = [data.failedAgain, data.running].find((candidate) => candidate.session === session);
    return thread ? route.fulfill({ json: { thread, runs: [] } }) : route.fulfill({ status: 404, json: { error: "no such thread" } });
  });
  await page.route(/\/agents\/think-agent\/[^/]+\/get-messages/, (route) => {
    const session = route.request().url().split("/agents/think-agent/")[1]!.split("/")[0];
    return route.fulfill({ json: session === data.done.session ? data.transcript : [] });
  });
  await page.routeWebSocket(/\/agents\/think-agent\//, () => {
    // Open and quiet: the transcript came over HTTP.
  });
}

/**
 * Records every phase the Continue banner of `session` shows, from now on
 * (a script string: this project's types have no DOM).
 */
async function recordBannerPhases(page: Page, session: string): Promise<() => Promise<string[]>> {
  await page.evaluate(`(() => {
    const seen = [];
    window.__phases = seen;
    const selector = '[data-testid="continue-result"][data-session=${JSON.stringify(session)}]';
    const look = () => {
      const phase = document.querySelector(selector)?.getAttribute("data-phase");
      if (phase && seen.at(-1) !== phase) seen.push(phase);
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-phase"] });
  })()`);
  return () => page.evaluate("window.__phases") as Promise<string[]>;
}

/** The page's width in CSS pixels, scrolled sideways or not. */
const scrollWidth = (page: Page) => page.evaluate("document.documentElement.scrollWidth") as Promise<number>;
const scrollToTop = (page: Page) => page.evaluate("window.scrollTo(0, 0)");

describe("the operator's view", () => {
  test("shows what runs cost: spend tiles, per repository, the costliest runs, and each thread's cost", { timeout: 60_000 }, async ({ dashboardServer: server }) => {
    const data = fixture(Date.now());
    const page = await newPage();
    await serveFixture(page, data);
    await page.goto(server.url);
    await page.getByTestId("command-center").waitFor();
    await page.getByTestId("spend").waitFor({ timeout: 10_000 });

    expect(await page.getByTestId("metric-spend-today-value").textContent()).toBe("$0.42");
    expect(await page.getByTestId("metric-spend-7d-value").textContent()).toBe("≥ $12.50");
    expect(await page.getByTestId("metric-spend-7d").getAttribute("title")).toBe("some usage was not reported or not priced");
    expect(await page.getByTestId("spend-repo").allTextContents()).toEqual(["acme/widgets5 runs≥ $10.25", "acme/gadgets1 rununknown"]);
    const costly = page.getByTestId("costly-run");
    expect(await costly.getByTestId("costly-run-cost").allTextContents()).toEqual(["$0.87", "<$0.01"]);

    // Who continued, and the repeat failure, where the threads are listed.
    const attention = page.locator(`[data-testid="attention-item"][data-session="${data.failedAgain.session}"]`);
    expect(await attention.getByTestId("failed-again").textContent()).toBe("failed again (2 failures)");
    expect(await attention.getByTestId("last-error").textContent()).toContain("529 overloaded");
    expect(await attention.getByTestId("continued-by").textContent()).toBe("continued by local operator from the dashboard");
    expect(await page.locator(`[data-testid="running-item"][data-session="${data.running.session}"]`).getByTestId("continued-by").textContent()).toBe(
      "continued by ops@example.com"
    );
    const row = page.locator(`[data-testid="thread-row"][data-session="${data.done.session}"]`);
    expect(await row.getByTestId("thread-cost").textContent()).toBe("≥ $1.23");
    await page.screenshot({ path: `${SHOTS}/operator-command-center-cost.png`, fullPage: true });
    await expectAccessible(page, "the command center");

    // The costliest run links its thread, which shows the thread's cost and each run's.
    await costly.first().getByRole("link").click();
    await page.getByTestId("thread-page").waitFor();
    await page.getByTestId("runs").waitFor({ timeout: 10_000 });
    expect(await page.getByTestId("thread-cost-total").textContent()).toBe("≥ $1.23");
    expect(await page.getByTestId("thread-cost").getAttribute("title")).toBe("some usage was not reported or not priced");
    expect(await page.getByTestId("thread-cost-latest").textContent()).toBe("$0.10");
    await page.close();
  });

  test("opens a thread at its latest run, the older ones one line each, expandable", { timeout: 60_000 }, async ({ dashboardServer: server }) => {
    const data = fixture(Date.now());
    const page = await newPage();
    await serveFixture(page, data);
    await page.goto(`${server.url}/thread/${data.done.session}`);
    await page.getByTestId("runs").waitFor({ timeout: 10_000 });

    const runs = page.getByTestId("run");
    await expect.poll(() => runs.count(), { timeout: 10_000 }).toBe(3);
    // Newest first: the latest open, with the header's status and its own cost.
    expect(await runs.evaluateAll((elements) => elements.map((element) => element.getAttribute("data-run")))).toEqual(["3", "2", "1"]);
    const latest = runs.first();
    expect(await latest.getAttribute("data-latest")).toBe("true");
    const header = page.locator(".thread-status").getByTestId("thread-status");
    expect(await latest.getByTestId("run-status").textContent()).toBe(await header.textContent());
    expect(await latest.getByTestId("run-cost").textContent()).toBe("$0.10");
    expect(await latest.getByTestId("run-outcome").textContent()).toBe("reproduced");
    expect(await page.getByTestId("thread-cost-latest").textContent()).toBe("$0.10");
    expect(await latest.getByTestId("run-who").textContent()).toContain("continued by ops@example.com from the dashboard");
    expect(await latest.getByTestId("run-scripted").textContent()).toBe("scripted demonstration — no model ran");
    expect(await latest.getByTestId("assistant-text").textContent()).toContain("Third run: reproduced");
    // The latest run is in the first screen, not below the fold.
    const box = await latest.boundingBox();
    expect(box!.y).toBeLessThan(DESKTOP.height);

    // Older runs: one line each (outcome, cost, tool calls, when), closed.
    const older = page.locator("details.run-older");
    expect(await older.count()).toBe(2);
    const lines = await page.getByTestId("run-line").allTextContents();
    expect(lines[0]).toMatch(/^Run 2failed · ≥ \$0\.26 · 1 tool call · ended 1 min agocontinued by ops@example.com$/);
    expect(lines[1]).toMatch(/^Run 1failed · \$0\.87 · 1 tool call · ended 1 min ago$/);
    expect(await older.first().getAttribute("open")).toBeNull();
    expect(await older.first().getByTestId("assistant-text").isVisible()).toBe(false);
    await page.screenshot({ path: `${SHOTS}/operator-thread-latest-first.png`, fullPage: true });
    await expectAccessible(page, "a thread, its latest run open");

    // Opened, an older run shows its error and its part of the transcript.
    await page.getByTestId("run-line").last().click();
    const first = older.last();
    expect(await first.getAttribute("open")).not.toBeNull();
    expect(await first.getByTestId("assistant-text").textContent()).toContain("First run: cloning");
    expect(await first.getByTestId("run-error").textContent()).toBe("the model fell over");
    expect(await first.getByTestId("run-who").textContent()).toContain("@octocat asked");
    await scrollToTop(page);
    await page.screenshot({ path: `${SHOTS}/operator-thread-older-expanded.png`, fullPage: true });
    await expectAccessible(page, "a thread, an older run open too");
    await page.close();
  });

  test("a phone at 390×844: the thread list a tap away, the session whole", { timeout: 60_000 }, async ({ dashboardServer: server }) => {
    const data = fixture(Date.now());
    const page = await newPage(PHONE);
    await serveFixture(page, data);
    await page.goto(server.url);
    await page.getByTestId("spend").waitFor({ timeout: 10_000 });

    // The tabs are on the first screen; the thread list is one tap away.
    const tab = page.getByTestId("tab-threads");
    const tabBox = await tab.boundingBox();
    expect(tabBox!.y + tabBox!.height).toBeLessThan(PHONE.height);
    expect(await tab.textContent()).toBe("Threads 3");
    expect(await page.getByTestId("thread-sidebar").isVisible()).toBe(false);
    await page.screenshot({ path: `${SHOTS}/operator-phone-command-center.png` });
    await page.screenshot({ path: `${SHOTS}/operator-phone-command-center-full.png`, fullPage: true });
    await tab.click();
    const row = page.locator(`[data-testid="thread-row"][data-session="${data.done.session}"]`);
    await row.waitFor();
    const rowBox = await row.boundingBox();
    expect(rowBox!.y + rowBox!.height).toBeLessThan(PHONE.height);
    expect(await page.getByTestId("attention").isVisible()).toBe(false);
    // Nothing wider than the screen.
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await page.screenshot({ path: `${SHOTS}/operator-phone-threads.png` });
    await expectAccessible(page, "the command center's threads tab on a phone");

    await row.click();
    await page.getByTestId("runs").waitFor({ timeout: 10_000 });
    const session = page.getByTestId("thread-session");
    expect(await session.textContent()).toBe(data.done.session);
    // Shown whole: not cut by its box, and inside the screen.
    expect(
      await session.evaluate((element) => {
        const box = element as unknown as { scrollWidth: number; clientWidth: number };
        return box.scrollWidth <= box.clientWidth + 1;
      })
    ).toBe(true);
    const sessionBox = await session.boundingBox();
    expect(sessionBox!.x + sessionBox!.width).toBeLessThanOrEqual(PHONE.width);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    expect(await page.getByTestId("run").first().getAttribute("data-run")).toBe("3");
    await page.screenshot({ path: `${SHOTS}/operator-phone-thread.png` });
    await page.screenshot({ path: `${SHOTS}/operator-phone-thread-full.png`, fullPage: true });
    await page.close();
  });

  test("an unknown thread is the not-found page, with a way back", { timeout: 60_000 }, async ({ dashboardServer: server }) => {
    const page = await newPage();
    const response = await fetch(`${server.url}/api/command-center/threads/acme-widgets-${freshIssueNumber()}`);
    expect(response.status).toBe(404);
    await response.body?.cancel();

    await page.goto(`${server.url}/thread/acme-widgets-${freshIssueNumber()}`);
    await page.getByTestId("not-found").waitFor({ timeout: 15_000 });
    expect(await page.getByTestId("not-found").textContent()).toContain("No such thread");
    expect(await page.getByTestId("transcript-empty").count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/operator-thread-not-found.png` });
    await expectAccessible(page, "the not-found page");
    await page.getByTestId("not-found-back").click();
    await page.getByTestId("command-center").waitFor();
    await page.close();
  });

  test("the Continue banner follows the continued run to its outcome, and the thread opens at it", { timeout: 120_000 }, async ({ dashboardServer: server }) => {
    const run = await dispatch(server.url, {
      repo: "acme/operator",
      issueNumber: freshIssueNumber(),
      instruction: "TEST: run echo before-the-failure\nTEST: fail-once the model fell over\nTEST: sleep 2500\nTEST: reply finished after continue"
    });
    expect((await waitForSubmission(server.url, run)).submission.status).toBe("error");

    const page = await newPage();
    await page.goto(server.url);
    const button = page.locator(`[data-testid="continue-button"][data-session="${run.session}"]`);
    await button.waitFor({ timeout: 10_000 });
    const phases = await recordBannerPhases(page, run.session);
    await button.click();
    const banner = page.locator(`[data-testid="continue-result"][data-session="${run.session}"]`);
    await banner.waitFor({ timeout: 10_000 });
    expect(await banner.getAttribute("data-outcome")).toBe("ok");
    await expect.poll(() => banner.getAttribute("data-phase"), { timeout: 10_000 }).toBe("running");
    await page.screenshot({ path: `${SHOTS}/operator-continue-running.png`, fullPage: true });
    await expect.poll(() => banner.getAttribute("data-phase"), { timeout: 30_000 }).toBe("done");
    expect(await banner.getByTestId("continue-message").textContent()).toBe("The continued run finished.");
    // The thread's row on the command center finished too, without a reload.
    const row = page.locator(`[data-testid="thread-row"][data-session="${run.session}"]`);
    await expect.poll(() => row.getAttribute("data-status"), { timeout: 20_000 }).toBe("done");
    // It went queued (or straight to running) → running → done, and never back.
    const seen = await phases();
    expect(seen.at(-1)).toBe("done");
    expect(seen).toContain("running");
    expect(seen.slice(seen.indexOf("running"))).not.toContain("queued");
    await page.screenshot({ path: `${SHOTS}/operator-continue-done.png`, fullPage: true });

    // The thread: the continued run first and open, the failed one a line below it.
    await page.goto(`${server.url}/thread/${run.session}`);
    const runs = page.getByTestId("run");
    await expect.poll(() => runs.count(), { timeout: 10_000 }).toBe(2);
    const latest = runs.first();
    expect(await latest.getAttribute("data-run")).toBe("2");
    await expect.poll(() => latest.getAttribute("data-status"), { timeout: 10_000 }).toBe("done");
    expect(await latest.getByTestId("run-who").textContent()).toContain("continued by local operator from the dashboard");
    await expect.poll(() => latest.getByTestId("run-cost").textContent(), { timeout: 10_000 }).toBe("$0.00");
    expect(await latest.getByTestId("run-scripted").textContent()).toBe("scripted demonstration — no model ran");
    expect(await latest.getByTestId("assistant-text").last().textContent()).toContain("finished after continue");
    const line = page.getByTestId("run-line");
    expect(await line.textContent()).toMatch(/^Run 1failed · \$0\.00 · 1 tool call · /);
    expect(await page.getByTestId("thread-cost-total").textContent()).toBe("$0.00");
    await page.screenshot({ path: `${SHOTS}/operator-thread-continued.png`, fullPage: true });
    await line.click();
    expect(await page.locator("details.run-older").getByTestId("run-error").textContent()).toContain("the model fell over");
    await scrollToTop(page);
    await page.screenshot({ path: `${SHOTS}/operator-thread-continued-expanded.png`, fullPage: true });
    await page.close();
  });

  test("a run that fails again after Continue says so, with its failures and latest error", { timeout: 120_000 }, async ({ dashboardServer: server }) => {
    const run = await dispatch(server.url, {
      repo: "acme/operator",
      issueNumber: freshIssueNumber(),
      instruction: "TEST: run echo trying\nTEST: fail the provider is down"
    });
    expect((await waitForSubmission(server.url, run)).submission.status).toBe("error");

    const page = await newPage();
    await page.goto(server.url);
    const button = page.locator(`[data-testid="continue-button"][data-session="${run.session}"]`);
    await button.waitFor({ timeout: 10_000 });
    await button.click();
    const banner = page.locator(`[data-testid="continue-result"][data-session="${run.session}"]`);
    await expect.poll(() => banner.getAttribute("data-phase"), { timeout: 30_000 }).toBe("failed");
    expect(await banner.getByTestId("continue-message").textContent()).toBe("The continued run failed again (2 failures).");
    const card = page.locator(`[data-testid="attention-item"][data-session="${run.session}"]`);
    expect(await card.getByTestId("failed-again").textContent()).toBe("failed again (2 failures)");
    // The latest error, once: on the card, which the banner does not repeat.
    expect(await card.getByTestId("last-error").textContent()).toContain("the provider is down");
    expect(await banner.getByTestId("continue-error").count()).toBe(0);
    expect(await card.getByTestId("continued-by").textContent()).toBe("continued by local operator from the dashboard");
    // Failed again, it can be continued again.
    await button.waitFor();
    await page.screenshot({ path: `${SHOTS}/operator-failed-again.png`, fullPage: true });

    await page.goto(`${server.url}/thread/${run.session}`);
    await page.getByTestId("failed-again").waitFor({ timeout: 10_000 });
    expect(await page.getByTestId("failed-again").textContent()).toBe("failed again (2 failures)");
    expect(await page.getByTestId("thread-error").textContent()).toContain("the provider is down");
    await expect.poll(() => page.getByTestId("run").count(), { timeout: 10_000 }).toBe(2);
    expect(await page.getByTestId("run").first().getAttribute("data-status")).toBe("error");
    await page.screenshot({ path: `${SHOTS}/operator-thread-failed-again.png`, fullPage: true });
    await page.close();
  });
});
