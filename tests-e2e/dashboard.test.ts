/**
 * The dashboard in a real browser (Chromium, support/browser.ts, driven by
 * playwright-core) against `wrangler dev --local`: a dispatched run appears
 * and finishes live on the command center, and its thread shows the tool
 * calls (a failed run's Continue button: operator-view.test.ts); a
 * recovering thread shows its badge, its recovery count and the Recovering
 * tile; a run whose runtime restarts mid-turn is recovered for real and
 * counted; and `/` holds its data before any script runs, which the SPA then
 * hydrates without a mismatch. Screenshots land in test-results/.
 */
import type { Page } from "playwright-core";
import type { CommandCenterState, Metrics, Snapshot, ThreadSummary } from "../src/shared/command-center";
import { describe, expect } from "vitest";
import { test } from "./fixture";
import { dispatch, freshIssueNumber, waitForSubmission } from "./dev-api";
import { expectAccessible } from "./support/a11y";
import { SHOTS, useChromium } from "./support/browser";
import { serveInlineSnapshot } from "./support/inline-snapshot";
import { THEME_STORAGE_KEY } from "../src/ui/view-models/theme";

const browser = useChromium();

async function openPage(url: string): Promise<Page> {
  const page = await browser().newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  await page.goto(url);
  return page;
}

/**
 * A command center with a thread Think is recovering (its 2nd recovery) and a
 * done one that was recovered once. The real Worker has no way in for made-up
 * lifecycle events (nothing from outside writes the registry), and a real
 * recovery is `recovering` only for the moment between Think taking the turn
 * over and the turn starting again; so the SPA the Worker serves is given this
 * state through the browser: the snapshot over HTTP and the live state on the
 * command center's socket, both as the registry would send them.
 */
function recoveringCenter(now: number): { snapshot: Snapshot; state: CommandCenterState; recovering: ThreadSummary; recovered: ThreadSummary } {
  const base = { repo: "acme/recovery", instructionSummary: "reproduce this issue", stale: false, runCount: 1, toolCalls: 3, toolErrors: 0 };
  const recovering: ThreadSummary = {
    ...base,
    session: "acme-recovery-41",
    issueNumber: 41,
    issueTitle: "Interrupted by a deploy",
    status: "recovering",
    submissionId: "sub-recovering",
    startedAt: now - 90_000,
    turnStartedAt: now - 89_000,
    lastActivityAt: now - 5_000,
    recoveries: 2
  };
  const recovered: ThreadSummary = {
    ...base,
    session: "acme-recovery-42",
    issueNumber: 42,
    status: "done",
    submissionId: "sub-recovered",
    startedAt: now - 300_000,
    lastActivityAt: now - 200_000,
    durationMs: 100_000,
    recoveries: 1
  };
  const metrics: Metrics = {
    runs24h: 2,
    successRate: 1,
    durationP50Ms: 100_000,
    durationP95Ms: 100_000,
    firstToolP50Ms: 800,
    firstToolP95Ms: 800,
    toolErrorRate: 0,
    recovering: 1,
    recoveries24h: 3,
    spendToday: { usd: 0, complete: true },
    spend7d: { usd: 0, complete: true },
    spendByRepo: [],
    costliestRuns: []
  };
  const threads = [recovering, recovered];
  return {
    snapshot: { metrics, threads, total: threads.length, generatedAt: now },
    state: { metrics, recent: threads, total: threads.length, updatedAt: now },
    recovering,
    recovered
  };
}

describe("the dashboard", () => {
  // First, so no run of this file is going when the server restarts: the recovery counts are this run's alone.
  test("counts a real recovery: a run whose runtime restarted mid-turn finishes, recovered once", { timeout: 180_000 }, async ({ dashboardServer: server }) => {
    // The runtime stopped and started again on the same state: Think's chat
    // recovery resumes the interrupted turn in the new one.
    const run = await dispatch(server.url, {
      repo: "acme/recovery",
      issueNumber: freshIssueNumber(),
      instruction: "TEST: run echo before-the-restart\nTEST: sleep 5000\nTEST: reply finished after recovery"
    });
    const summary = async (url: string) => {
      const snapshot = (await (await fetch(`${url}/api/command-center?limit=200`)).json()) as Snapshot;
      return { metrics: snapshot.metrics, thread: snapshot.threads.find((thread) => thread.session === run.session) };
    };
    // Interrupted after its first tool call, while the model "thinks".
    const before = server.url;
    await expect.poll(async () => (await summary(before)).thread?.toolCalls ?? 0, { timeout: 20_000 }).toBeGreaterThan(0);
    await server.restart();

    const settled = await waitForSubmission(server.url, run, { timeoutMs: 90_000 });
    expect(settled.submission.status).toBe("completed");
    const after = server.url;
    await expect.poll(async () => (await summary(after)).thread?.status, { timeout: 15_000 }).toBe("done");
    const { metrics, thread } = await summary(after);
    expect(thread?.recoveries).toBe(1);
    expect(metrics).toMatchObject({ recovering: 0, recoveries24h: 1 });

    const page = await openPage(server.url);
    const row = page.locator(`[data-testid="thread-row"][data-session="${run.session}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await row.getAttribute("data-status")).toBe("done");
    expect(await row.getByTestId("thread-recoveries").textContent()).toBe("recovered 1×");
    expect(await page.getByTestId("metric-recovering-value").textContent()).toBe("0");
    expect(await page.getByTestId("metric-recovering").textContent()).toContain("1 recovery in 24 h");
    await page.screenshot({ path: `${SHOTS}/command-center-recovered.png`, fullPage: true });
    await page.close();
  });

  test("shows a recovering thread: its badge, its recovery count, and the Recovering tile", { timeout: 60_000 }, async ({ dashboardServer: server }) => {
    const center = recoveringCenter(Date.now());
    const page = await browser().newPage({ viewport: { width: 1280, height: 800 } });
    page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
    await serveInlineSnapshot(page, center.snapshot);
    await page.route(/\/api\/command-center(\?|$)/, (route) => route.fulfill({ json: center.snapshot }));
    await page.routeWebSocket(/\/agents\/command-center-agent\/main/, (socket) => {
      socket.send(JSON.stringify({ type: "cf_agent_state", state: center.state }));
    });
    // The thread page's transcript socket says what Think says while it recovers.
    await page.route(/\/agents\/think-agent\/[^/]+\/get-messages/, (route) => route.fulfill({ json: [] }));
    await page.routeWebSocket(/\/agents\/think-agent\//, (socket) => {
      socket.send(JSON.stringify({ type: "cf_agent_chat_recovering", recovering: true, id: center.recovering.submissionId }));
    });
    await page.goto(server.url);
    await page.getByTestId("command-center").waitFor();

    const row = page.locator(`[data-testid="thread-row"][data-session="${center.recovering.session}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await row.getAttribute("data-status")).toBe("recovering");
    const badge = row.getByTestId("thread-status");
    expect(await badge.textContent()).toBe("recovering");
    expect(await badge.getAttribute("class")).toContain("tone-warn");
    expect(await badge.getAttribute("title")).toContain("interrupted");
    expect(await row.getByTestId("thread-recoveries").textContent()).toBe("2nd recovery");

    // Still running: listed under "Running now", flagged; not in "Needs attention".
    const running = page.locator(`[data-testid="running-item"][data-session="${center.recovering.session}"]`);
    expect(await running.getAttribute("data-status")).toBe("recovering");
    expect(await running.getByTestId("running-recoveries").textContent()).toBe("2nd recovery");
    expect(await page.locator(`[data-testid="attention-item"][data-session="${center.recovering.session}"]`).count()).toBe(0);

    // A run recovered earlier keeps its count as a quiet detail.
    const done = page.locator(`[data-testid="thread-row"][data-session="${center.recovered.session}"]`);
    expect(await done.getAttribute("data-status")).toBe("done");
    expect(await done.getByTestId("thread-recoveries").textContent()).toBe("recovered 1×");

    const tile = page.getByTestId("metric-recovering");
    expect(await page.getByTestId("metric-recovering-value").textContent()).toBe("1");
    expect(await tile.textContent()).toContain("3 recoveries in 24 h");
    expect(await tile.getAttribute("class")).toContain("tone-warn");
    await page.screenshot({ path: `${SHOTS}/command-center-recovering.png`, fullPage: true });
    await expectAccessible(page, "the command center with a recovering thread");

    await row.click();
    await page.getByTestId("thread-page").waitFor();
    const status = page.locator(".thread-status").getByTestId("thread-status");
    await expect.poll(() => status.getAttribute("data-status"), { timeout: 10_000 }).toBe("recovering");
    expect(await status.textContent()).toBe("recovering");
    expect(await page.locator('[data-testid="thread-timing"] [data-timing="recoveries"]').textContent()).toContain("2×");
    await page.screenshot({ path: `${SHOTS}/thread-recovering.png`, fullPage: true });
    await expectAccessible(page, "a recovering thread");
    await page.close();
  });

  test("starts from the snapshot / came with, and asks the API when it is absent or stale", { timeout: 90_000 }, async ({ dashboardServer: server }) => {
    const center = recoveringCenter(Date.now());
    const shown = (page: Page, session: string) => page.locator(`[data-testid="thread-row"][data-session="${session}"]`).waitFor({ timeout: 15_000 });
    /** A page whose `/` carries `inline`, whose API answers only the recovered thread, and whose socket sends `state` (or nothing). */
    const open = async (inline: Snapshot | null, state: CommandCenterState | null, answer: Promise<void> = Promise.resolve()) => {
      const page = await browser().newPage({ viewport: { width: 1280, height: 800 } });
      page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
      const asked: string[] = [];
      await serveInlineSnapshot(page, inline);
      await page.route(/\/api\/command-center(\?|$)/, async (route) => {
        asked.push(route.request().url());
        await answer;
        return route.fulfill({ json: { ...center.snapshot, threads: [center.recovered], total: 1, generatedAt: Date.now() } });
      });
      await page.routeWebSocket(/\/agents\/command-center-agent\/main/, (socket) => {
        if (state) socket.send(JSON.stringify({ type: "cf_agent_state", state }));
      });
      await page.goto(server.url);
      return { page, asked };
    };
    const inline: Snapshot = { ...center.snapshot, threads: [center.recovering], total: 1, generatedAt: Date.now() };

    // Fresh, with the socket live: drawn from the page itself, no API call at all.
    const fresh = await open(inline, { ...center.state, recent: [center.recovering], updatedAt: Date.now() });
    await shown(fresh.page, center.recovering.session);
    await fresh.page.getByTestId("connection-status").filter({ hasText: "live" }).waitFor({ timeout: 15_000 });
    await fresh.page.waitForTimeout(4_000); // past the first poll, had there been one
    expect(fresh.asked).toEqual([]);
    await fresh.page.close();

    // Absent (a page without it, or one the Worker could not fill), the socket silent: the API, as before.
    const absent = await open(null, null);
    await shown(absent.page, center.recovered.session);
    expect(absent.asked.length).toBeGreaterThan(0);
    expect(await absent.page.locator(`[data-testid="thread-row"][data-session="${center.recovering.session}"]`).count()).toBe(0);
    await absent.page.close();

    // Stale (ten minutes old by this clock): shown while a fresh page is asked for, which then replaces it.
    let answer!: () => void;
    const stale = await open({ ...inline, generatedAt: Date.now() - 600_000 }, null, new Promise<void>((resolve) => (answer = resolve)));
    await shown(stale.page, center.recovering.session);
    await expect.poll(() => stale.asked.length, { timeout: 15_000 }).toBeGreaterThan(0);
    answer();
    await shown(stale.page, center.recovered.session);
    await stale.page.locator(`[data-testid="thread-row"][data-session="${center.recovering.session}"]`).waitFor({ state: "detached", timeout: 15_000 });
    await stale.page.close();
  });

  test("draws / before any script runs, and the SPA takes those very nodes over without a mismatch", { timeout: 90_000 }, async ({ dashboardServer: server }) => {
    const run = await dispatch(server.url, {
      repo: "acme/first-view",
      issueNumber: freshIssueNumber(),
      instruction: "TEST: reply drawn by the Worker",
      requestedBy: { login: "octocat" }
    });
    await waitForSubmission(server.url, run);
    const viewport = { width: 1280, height: 800 };
    const rowSelector = `[data-testid="thread-row"][data-session="${run.session}"]`;

    // No script at all: the Worker's markup alone holds the tiles and the run's row.
    const bare = await browser().newContext({ javaScriptEnabled: false, viewport });
    const still = await bare.newPage();
    await still.goto(server.url);
    const drawn = await still.content();
    expect(drawn).toContain('data-testid="metric-tiles"');
    expect(drawn).toContain(`data-session="${run.session}"`);
    await still.screenshot({ path: `${SHOTS}/command-center-before-js.png` });
    await bare.close();

    // With scripts and a stored theme the Worker cannot know: the nodes the parser made are the ones React keeps.
    const page = await browser().newPage({ viewport });
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    // Parsed, before any of the page's scripts: a module script runs only after `interactive`.
    await page.addInitScript(`(() => {
      localStorage.setItem(${JSON.stringify(THEME_STORAGE_KEY)}, "dark");
      document.addEventListener("readystatechange", () => {
        if (document.readyState === "interactive") window.parsedRow = document.querySelector(${JSON.stringify(rowSelector)});
      });
    })()`);
    await page.goto(server.url);
    // The render after hydration shows the stored choice; by then any mismatch has been reported.
    await page.getByTestId("theme-toggle").filter({ hasText: "☾" }).waitFor({ timeout: 15_000 });
    await page.getByTestId("connection-status").filter({ hasText: "live" }).waitFor({ timeout: 15_000 });
    const kept = await page.evaluate(`({ parsed: Boolean(window.parsedRow), same: window.parsedRow === document.querySelector(${JSON.stringify(rowSelector)}) })`);
    expect(kept).toEqual({ parsed: true, same: true });
    expect(await page.locator("html").getAttribute("data-theme")).toBe("dark");
    // Hydrated, not just drawn: the filter answers.
    await page.getByTestId("thread-filter").fill("no-such-thread-anywhere");
    await expect.poll(() => page.locator('[data-testid="thread-row"]').count(), { timeout: 5_000 }).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  test("shows a dispatched run live, then its thread with the tool calls", { timeout: 90_000 }, async ({ dashboardServer: server }) => {
    const page = await openPage(server.url);
    await page.getByTestId("command-center").waitFor();
    await page.getByTestId("connection-status").filter({ hasText: "live" }).waitFor({ timeout: 15_000 });

    const dispatchedAt = Date.now();
    const run = await dispatch(server.url, {
      repo: "acme/dashboard",
      issueNumber: freshIssueNumber(),
      instruction: "TEST: run echo from-the-dashboard-test\nTEST: sleep 1500\nTEST: run echo second\nTEST: reply all done",
      requestedBy: { login: "octocat" }
    });
    const row = page.locator(`[data-testid="thread-row"][data-session="${run.session}"]`);
    // It appears while it runs, within about a second, and finishes without a reload.
    await row.waitFor({ timeout: 5_000 });
    const appearedMs = Date.now() - dispatchedAt;
    console.info(`e2e: the run appeared on the dashboard ${appearedMs} ms after dispatch`);
    expect(appearedMs).toBeLessThan(2_000);
    await page.screenshot({ path: `${SHOTS}/command-center-running.png`, fullPage: true });
    await expect.poll(() => row.getAttribute("data-status"), { timeout: 20_000 }).toBe("done");
    expect(await page.getByTestId("metric-runs-24h-value").textContent()).toMatch(/[1-9]/);
    await page.screenshot({ path: `${SHOTS}/command-center-done.png`, fullPage: true });

    await row.click();
    await page.getByTestId("thread-page").waitFor();
    await page.getByTestId("envelope-header").waitFor();
    expect(await page.getByTestId("envelope-repo").textContent()).toContain("acme/dashboard");
    expect(await page.getByTestId("envelope-requested-by").textContent()).toContain("octocat");
    const calls = page.getByTestId("tool-call");
    await expect.poll(() => calls.count(), { timeout: 10_000 }).toBe(2);
    await calls.first().locator("summary").click();
    expect(await calls.first().getByTestId("tool-stdout").textContent()).toContain("from-the-dashboard-test");
    await page.screenshot({ path: `${SHOTS}/thread.png`, fullPage: true });
    await expectAccessible(page, "a thread with a tool call open");
    await page.close();
  });

  test("a published reproduction page works in its sandbox, and cannot reach the dashboard's API", { timeout: 60_000 }, async ({ dashboardServer: server }) => {
    const page = [
      "<!doctype html><title>repro</title><button id=trigger>Trigger bug</button><p id=out></p>",
      "<script type=module crossorigin src=./assets/app.js></script>"
    ].join("");
    const script = [
      "document.getElementById('trigger').onclick = async () => {",
      "  let api = 'reachable';",
      "  try { await fetch('/api/command-center'); } catch { api = 'blocked'; }",
      "  document.getElementById('out').textContent = 'expected 2, actual 3; api ' + api;",
      "};"
    ].join(" ");
    const run = await dispatch(server.url, {
      repo: "acme/repro",
      issueNumber: freshIssueNumber(),
      instruction: [
        `TEST: write /workspace/repro/dist/index.html ${page}`,
        `TEST: write /workspace/repro/dist/assets/app.js ${script}`,
        "TEST: publish /workspace/repro/dist",
        "TEST: reply published"
      ].join("\n")
    });
    const settled = await waitForSubmission(server.url, run);
    expect(settled.submission.status).toBe("completed");
    // A repository the run was not told is public: its page is private, and
    // (Access being off locally) reached through its grant.
    const published = settled.messages
      .flatMap((message) => message.parts)
      .find((part) => part.type === "tool-publish_reproduction")?.output as { url?: string } | undefined;
    expect(published?.url).toMatch(/\/repro\/private\/[0-9a-f]{32}\/$/);

    const repro = await openPage(published!.url!);
    // The model's page runs in the wrapper's sandboxed frame (src/http/repro-wrapper.ts).
    const frame = repro.frameLocator("iframe");
    await frame.locator("#trigger").click();
    await expect.poll(() => frame.locator("#out").textContent(), { timeout: 10_000 }).toContain("expected 2, actual 3");
    // The sandbox gives the page an opaque origin: the dashboard's API does not answer it.
    expect(await frame.locator("#out").textContent()).toContain("api blocked");
    await repro.screenshot({ path: `${SHOTS}/repro-page.png` });
    await repro.close();
  });
});
