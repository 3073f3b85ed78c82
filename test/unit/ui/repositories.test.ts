/**
 * The repository view's logic: the API's body read leniently (a record that
 * does not read is dropped and counted), one row per repository with each
 * figure written as the dashboard writes it, one repository found whatever
 * its case, its figures and its outcomes in words (one this build does not
 * know by its name), and the links to it.
 */
import { describe, expect, it } from "vitest";
import type { RepositoryRecord, RepositoryRecords } from "../../../src/shared/repository-records";
import { findRepository, outcomeWords, readRepositoryRecords, repositoryDetail, repositoryRows } from "../../../src/ui/view-models/repositories";
import { REPOSITORIES_HREF, repositoryHref } from "../../../src/ui/view-models/repository-href";

const NOW = 1_800_000_000_000;

const widgets: RepositoryRecord = {
  repo: "acme/widgets",
  runs: 7,
  statuses: { running: 1, done: 4, error: 1, cancelled: 1 },
  outcomes: [
    { outcome: "reproduced", runs: 2 },
    { outcome: "not-a-bug", runs: 1 },
    { outcome: "something-new", runs: 1 }
  ],
  triaged: 3,
  reproductionRate: 2 / 3,
  pullRequests: { opened: 3, merged: 1, closedUnmerged: 1 },
  firstResponseMedianMs: 4_200,
  cost: { usd: 2, complete: false },
  costPerRun: { usd: 1 / 3, complete: false },
  costPerMergedPullRequest: { usd: 2, complete: false },
  lastRunAt: NOW - 120_000
};
const quiet: RepositoryRecord = {
  ...widgets,
  repo: "Acme/Gadgets",
  runs: 1,
  statuses: { running: 1, done: 0, error: 0, cancelled: 0 },
  outcomes: [],
  triaged: 0,
  reproductionRate: null,
  pullRequests: { opened: 0, merged: 0, closedUnmerged: 0 },
  firstResponseMedianMs: null,
  cost: { usd: 0, complete: true },
  costPerRun: null,
  costPerMergedPullRequest: null,
  lastRunAt: NOW - 60_000
};
const records: RepositoryRecords = { windowDays: 90, generatedAt: NOW, repositories: [widgets, quiet] };

describe("readRepositoryRecords", () => {
  it("reads the API's body as sent", () => {
    expect(readRepositoryRecords(JSON.parse(JSON.stringify(records)))).toEqual({ ok: true, value: records, dropped: 0 });
  });

  it("drops and counts a record that does not read, keeps the rest, and leaves out an outcome entry that does not read", () => {
    const body = {
      ...records,
      repositories: [{ ...widgets, outcomes: [...widgets.outcomes, { outcome: 7, runs: 1 }] }, { ...quiet, cost: { usd: "free" } }, { repo: "acme/x" }]
    };
    const read = readRepositoryRecords(body);
    expect(read).toEqual({ ok: true, value: { ...records, repositories: [widgets] }, dropped: 2 });
  });

  it("refuses a body without a list", () => {
    expect(readRepositoryRecords({ error: "forbidden" })).toEqual({ ok: false, reason: "not a list of repositories" });
    expect(readRepositoryRecords(null).ok).toBe(false);
  });
});

describe("the list", () => {
  it("writes one row per repository, linking its record, with a floor as a floor and nothing yet as —", () => {
    const [first, second] = repositoryRows(records);
    expect(first).toEqual({
      repo: "acme/widgets",
      href: "/repositories/acme/widgets",
      runs: { text: "7" },
      reproductionRate: { text: "66.7%", title: "2 reproduced of 3 runs that ended with a verdict on the report" },
      opened: { text: "3" },
      merged: { text: "1" },
      closedUnmerged: { text: "1" },
      firstResponse: { text: "4.2 s" },
      costPerRun: { text: "≥ $0.33", kind: "floor", title: "some usage was not reported or not priced" },
      costPerMergedPullRequest: { text: "≥ $2.00", kind: "floor", title: "some usage was not reported or not priced" }
    });
    expect(second).toMatchObject({
      href: "/repositories/Acme/Gadgets",
      reproductionRate: { text: "—", title: "no run has ended with a verdict on its report yet" },
      firstResponse: { text: "—" },
      costPerRun: { text: "—" },
      costPerMergedPullRequest: { text: "—" }
    });
  });

  it("links each repository's record, and the list", () => {
    expect(repositoryHref("acme/widgets")).toBe("/repositories/acme/widgets");
    expect(repositoryHref("acme/my.repo")).toBe("/repositories/acme/my.repo");
    expect(REPOSITORIES_HREF).toBe("/repositories");
  });
});

describe("one repository", () => {
  it("is found whatever its case", () => {
    expect(findRepository(records, "acme", "gadgets")).toBe(quiet);
    expect(findRepository(records, "ACME", "Widgets")).toBe(widgets);
    expect(findRepository(records, "acme", "nothing")).toBeUndefined();
  });

  it("lists its figures and its runs by outcome, in words", () => {
    const view = repositoryDetail(widgets, NOW);
    expect(view.repo).toBe("acme/widgets");
    expect(Object.fromEntries(view.figures.map((figure) => [figure.id, figure.value.text]))).toEqual({
      runs: "7",
      "reproduction-rate": "66.7%",
      "pull-requests-opened": "3",
      "pull-requests-merged": "1",
      "pull-requests-closed": "1",
      "first-response": "4.2 s",
      cost: "≥ $2.00",
      "cost-per-run": "≥ $0.33",
      "cost-per-merged": "≥ $2.00",
      "last-run": "2 min ago"
    });
    expect(view.figures.find((figure) => figure.id === "runs")?.detail).toBe("1 running · 4 done · 1 failed · 1 cancelled");
    expect(view.outcomes).toEqual([
      { outcome: "reproduced", label: "Reproduced", runs: "2" },
      { outcome: "not-a-bug", label: "Not a bug", runs: "1" },
      { outcome: "something-new", label: "something-new", runs: "1" }
    ]);
    expect(outcomeWords("pr-opened")).toBe("Pull request opened");
  });

  it("says — for what it has not got yet", () => {
    const view = repositoryDetail(quiet, NOW);
    expect(view.figures.find((figure) => figure.id === "runs")?.detail).toBe("1 running · 0 done · 0 failed · 0 cancelled");
    expect(view.figures.find((figure) => figure.id === "cost-per-merged")?.value).toEqual({ text: "—" });
    expect(view.outcomes).toEqual([]);
  });
});
