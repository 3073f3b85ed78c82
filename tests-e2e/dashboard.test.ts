/**
 * The dashboard in a real browser (Debian's Chromium driven by
 * playwright-core) against `wrangler dev --local`: a dispatched run appears
 * and finishes live on the command center, its thread shows the tool calls,
 * and a failed run's Continue button finishes it in the same session.
 * Screenshots land in test-results/.
 */
import type { Page } from "playwright-core";
import { describe, expect } from "vitest";
import { test } from "./fixture";
import { dispatch, freshIssueNumber, waitForSubmission } from "./dev-api";
import { SHOTS, useChromium } from "./support/browser";

const browser = useChromium();

async function openPage(url: string): Promise<Page> {
  const page = await browser().newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  await page.goto(url);
  return page;
}

describe("the dashboard", () => {
  test("shows a dispatched run live, then its thread with the tool calls", { timeout: 90_000 }, async ({ server }) => {
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
    await page.close();
  });

  test("continues a failed run from its Continue button", { timeout: 90_000 }, async ({ server }) => {
    const run = await dispatch(server.url, {
      repo: "acme/dashboard",
      issueNumber: freshIssueNumber(),
      instruction: "TEST: run echo before-the-failure\nTEST: fail-once the model fell over\nTEST: reply finished after continue"
    });
    const failed = await waitForSubmission(server.url, run);
    expect(failed.submission.status).toBe("error");

    const page = await openPage(server.url);
    const button = page.locator(`[data-testid="continue-button"][data-session="${run.session}"]`);
    await button.waitFor({ timeout: 10_000 });
    await page.screenshot({ path: `${SHOTS}/command-center-failed.png`, fullPage: true });
    await button.click();
    const outcome = page.locator(`[data-testid="continue-result"][data-session="${run.session}"]`);
    await outcome.waitFor({ timeout: 10_000 });
    expect(await outcome.getAttribute("data-outcome")).toBe("ok");

    const row = page.locator(`[data-testid="thread-row"][data-session="${run.session}"]`);
    await expect.poll(() => row.getAttribute("data-status"), { timeout: 20_000 }).toBe("done");
    await page.screenshot({ path: `${SHOTS}/command-center-continued.png`, fullPage: true });

    // The same session now holds both runs, the second finished.
    await page.goto(`${server.url}/thread/${run.session}`);
    await page.getByTestId("thread-page").waitFor();
    await expect.poll(() => page.getByTestId("run-marker").count(), { timeout: 10_000 }).toBe(2);
    await expect
      .poll(async () => (await page.getByTestId("assistant-text").allTextContents()).join("\n"), { timeout: 10_000 })
      .toContain("finished after continue");
    await page.screenshot({ path: `${SHOTS}/thread-continued.png`, fullPage: true });
    await page.close();
  });

  test("a published reproduction page works in its sandbox, and cannot reach the dashboard's API", { timeout: 60_000 }, async ({ server }) => {
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
    await repro.locator("#trigger").click();
    await expect.poll(() => repro.locator("#out").textContent(), { timeout: 10_000 }).toContain("expected 2, actual 3");
    // The sandbox gives the page an opaque origin: the dashboard's API does not answer it.
    expect(await repro.locator("#out").textContent()).toContain("api blocked");
    await repro.screenshot({ path: `${SHOTS}/repro-page.png` });
    await repro.close();
  });
});
