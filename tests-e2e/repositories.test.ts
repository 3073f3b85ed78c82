/**
 * Each repository's record, end to end and offline, read in Chromium: a
 * maintainer's three mentions go through the GitHub stand-in to the webhook
 * app and on to the agent Worker under real `wrangler dev`, where the
 * scripted model (priced through MODEL_PRICES, so runs cost something)
 * reproduces two issues and not the third; then GitHub's `pull_request.closed`
 * for two of the App's pull requests, one merged and one closed unmerged,
 * signed with the App's webhook secret, reach the webhook app, which hands
 * them to the agent Worker. `GET /api/repositories` and the repository view
 * (the list, linked from the command center, and the repository's own page)
 * show the figures computed from those runs and deliveries: runs, outcomes,
 * reproduction rate, pull requests, first response, costs.
 */
import type { Page } from "playwright-core";
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pullRequestPayload, signedDelivery } from "../scripts/lib/github-delivery";
import type { StandinRecord } from "../scripts/lib/github-standin";
import { WEBHOOK_PATH } from "../scripts/lib/ingress-dev";
import type { RepositoryRecord, RepositoryRecords } from "../src/shared/repository-records";
import { costView, formatDuration } from "../src/ui/view-models/format";
import { startChain, type Chain } from "./support/chain";
import { expectAccessible } from "./support/a11y";
import { SHOTS, useChromium } from "./support/browser";

const REPO = "acme/records";
const [owner, name] = REPO.split("/") as [string, string];
const START_TIMEOUT_MS = 120_000;
/** The scripted model at $10 a million tokens: a run costs a few cents (it counts every prompt's characters as tokens). */
const PRICES = JSON.stringify({ scripted: { input: 10, cachedInput: 10, output: 10 } });

const browser = useChromium();
let chain: Chain;
let maintainer: Octokit;

beforeAll(async () => {
  chain = await startChain({ allowedRepos: REPO, standin: { userLogin: "maria", permissions: { maria: "maintain" }, webhook: null }, agentVars: { MODEL_PRICES: PRICES } });
  chain.standin.setWebhook({ url: `${chain.ingress.url}${WEBHOOK_PATH}`, secret: chain.secret });
  maintainer = new Octokit({ baseUrl: chain.standin.url, auth: "ghp_maria", log: { debug() {}, info() {}, warn() {}, error() {} } });
}, START_TIMEOUT_MS);

afterAll(async () => {
  await chain?.stop();
});

const bodyOf = (record: StandinRecord) => String((record.body as { body?: unknown } | undefined)?.body ?? "");
const closings = () =>
  chain.standin.records().filter((record) => record.method === "POST" && record.path.startsWith(`/repos/${REPO}/issues/`) && bodyOf(record).includes(":closing -->"));

async function record(): Promise<RepositoryRecord | undefined> {
  const records = (await (await fetch(`${chain.agent.url}/api/repositories`)).json()) as RepositoryRecords;
  return records.repositories.find((entry) => entry.repo === REPO);
}

/** One of the App's pull requests closed, as GitHub delivers it to the webhook app. */
async function closePull(number: number, issue: number, merged: boolean): Promise<Response> {
  const payload = pullRequestPayload({ repo: REPO, pullNumber: number, action: "closed", merged, headRef: `agent-think/issue-${issue}`, sender: "maria" });
  const delivery = await signedDelivery(chain.secret, payload, { event: "pull_request" });
  return fetch(`${chain.ingress.url}${WEBHOOK_PATH}`, { method: "POST", headers: delivery.headers, body: delivery.body });
}

async function openPage(path: string): Promise<Page> {
  const page = await browser().newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  await page.goto(`${chain.agent.url}${path}`);
  return page;
}

describe("each repository's record", () => {
  it("counts the runs and the App's closed pull requests, and the repository view shows the figures", async () => {
    // Three runs: two reproduce their issue, one does not.
    const outcomes = ["reproduced", "reproduced", "not-reproduced"];
    const issues: number[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      const issue = (await maintainer.rest.issues.create({ owner, repo: name, title: `Widget ${index + 1} wobbles`, body: "Spin it: it wobbles." })).data;
      issues.push(issue.number);
      await maintainer.rest.issues.createComment({ owner, repo: name, issue_number: issue.number, body: `@agent-think reproduce this issue\nTEST: result ${outcome} scripted: as asked\nTEST: reply done` });
    }
    await expect.poll(() => closings().length, { timeout: 90_000, interval: 250 }).toBe(3);
    // Each run's end and first message reach the record (the closing comment's notice comes after the run's end).
    await expect
      .poll(async () => {
        const now = await record();
        return now && { done: now.statuses.done, outcomes: now.outcomes.reduce((sum, entry) => sum + entry.runs, 0), answered: now.firstResponseMedianMs !== null };
      }, { timeout: 30_000, interval: 250 })
      .toEqual({ done: 3, outcomes: 3, answered: true })
      .catch((error: Error) => {
        throw new Error(`${error.message}\n${chain.logs()}`);
      });

    // GitHub tells the webhook app about two of the App's pull requests: one merged, one closed unmerged.
    const merged = await closePull(201, issues[0]!, true);
    expect(merged.status, chain.logs()).toBe(200);
    expect(merged.headers.get("agent-think-outcome")).toBe("recorded");
    const closed = await closePull(202, issues[1]!, false);
    expect(closed.headers.get("agent-think-outcome")).toBe("recorded");
    // The same delivery again changes nothing.
    expect((await closePull(201, issues[0]!, true)).headers.get("agent-think-outcome")).toBe("ignored:duplicate");

    const figures = (await record())!;
    expect(figures).toMatchObject({
      repo: REPO,
      runs: 3,
      statuses: { running: 0, done: 3, error: 0, cancelled: 0 },
      outcomes: [
        { outcome: "reproduced", runs: 2 },
        { outcome: "not-reproduced", runs: 1 }
      ],
      triaged: 3,
      pullRequests: { opened: 2, merged: 1, closedUnmerged: 1 }
    });
    expect(figures.reproductionRate).toBeCloseTo(2 / 3, 9);
    expect(figures.firstResponseMedianMs).toBeGreaterThan(0);
    expect(figures.cost).toMatchObject({ complete: true });
    expect(figures.cost.usd).toBeGreaterThan(0);
    expect(figures.costPerRun!.usd).toBeCloseTo(figures.cost.usd / 3, 9);
    expect(figures.costPerMergedPullRequest!.usd).toBeCloseTo(figures.cost.usd, 9);

    // From the command center to the list of repositories.
    const page = await openPage("/");
    await page.getByTestId("repositories-link").click();
    const row = page.locator(`[data-testid="repository-row"][data-repo="${REPO}"]`);
    await row.waitFor({ timeout: 10_000 });
    const cell = (figure: string) => row.locator(`[data-figure="${figure}"]`).textContent();
    expect(await page.locator("h1").textContent()).toBe("Repositories");
    expect(await page.getByTestId("repositories-table").locator("caption").textContent()).toContain("last 90 days");
    expect(await cell("runs")).toBe("3");
    expect(await cell("reproduction-rate")).toBe("66.7%");
    expect(await cell("pull-requests-opened")).toBe("2");
    expect(await cell("pull-requests-merged")).toBe("1");
    expect(await cell("pull-requests-closed")).toBe("1");
    expect(await cell("first-response")).toBe(formatDuration(figures.firstResponseMedianMs));
    expect(await cell("cost-per-run")).toBe(costView(figures.costPerRun).text);
    expect(await cell("cost-per-merged")).toBe(costView(figures.costPerMergedPullRequest).text);
    await page.screenshot({ path: `${SHOTS}/repositories.png`, fullPage: true });
    await expectAccessible(page, "the repositories' records");

    // The repository's own page: its figures and its runs by outcome.
    await row.getByRole("link", { name: REPO }).click();
    await page.getByTestId("repository-figures").waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe(`/repositories/${REPO}`);
    expect(await page.locator("h1").textContent()).toBe(REPO);
    const figure = (id: string) => page.locator(`[data-testid="repository-figures"] [data-figure="${id}"] [data-testid="figure-value"]`).textContent();
    expect(await figure("runs")).toBe("3");
    expect(await figure("reproduction-rate")).toBe("66.7%");
    expect(await figure("pull-requests-merged")).toBe("1");
    expect(await figure("pull-requests-closed")).toBe("1");
    expect(await figure("cost")).toBe(costView(figures.cost).text);
    expect(await page.locator('[data-testid="repository-outcomes"] [data-outcome="reproduced"] td').textContent()).toBe("2");
    expect(await page.locator('[data-testid="repository-outcomes"] [data-outcome="not-reproduced"] th').textContent()).toBe("Not reproduced");
    await page.screenshot({ path: `${SHOTS}/repository.png`, fullPage: true });
    await expectAccessible(page, "a repository's record");
    await page.close();

    // Everything both Workers sent GitHub was a request GitHub takes.
    expect(chain.standin.refusals()).toEqual([]);
  }, 180_000);
});
