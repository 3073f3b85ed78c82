/**
 * Each repository's figures from the rows the book keeps: runs by status
 * and by outcome (a name the code has never heard of too), the reproduction
 * rate over the triage outcomes, the App's pull requests, the median first
 * response, and what runs and merged pull requests cost, a floor staying a
 * floor; the 90-day window; repositories grouped without case.
 */
import { describe, expect, it } from "vitest";
import { REPOSITORY_RECORD_MS, repositoryRecords, type PullRequestRow, type RepoRunRow } from "../../src/command-center/repository-figures";
import { repositoryRecordsSchema } from "../../src/shared/repository-records";

const NOW = 1_800_000_000_000;
const MIN = 60_000;

function run(dispatchedAt: number, end?: { status: string; outcome?: string; usd?: number; complete?: boolean; firstAfterMs?: number }, repo = "acme/widgets"): RepoRunRow {
  return {
    repo,
    dispatchedAt,
    ...(end ? { endedAt: dispatchedAt + 5 * MIN, status: end.status } : {}),
    ...(end?.outcome ? { outcome: end.outcome } : {}),
    ...(end?.usd === undefined ? {} : { cost: { usd: end.usd, complete: end.complete ?? true } }),
    ...(end?.firstAfterMs === undefined ? {} : { firstMessageAt: dispatchedAt + end.firstAfterMs })
  };
}
const pull = (number: number, state: string, at: number, openedAt = at - 60 * MIN, repo = "acme/widgets"): PullRequestRow => ({ repo, number, state, openedAt, at });

describe("repositoryRecords", () => {
  it("counts runs by status and outcome, the reproduction rate over the triage outcomes, pull requests and costs", () => {
    const runs = [
      run(NOW - 10 * MIN, { status: "done", outcome: "reproduced", usd: 0.4, firstAfterMs: 2_000 }),
      run(NOW - 20 * MIN, { status: "done", outcome: "reproduced", usd: 0.2, firstAfterMs: 4_000 }),
      run(NOW - 30 * MIN, { status: "done", outcome: "not-a-bug", usd: 0.1, firstAfterMs: 9_000 }),
      run(NOW - 40 * MIN, { status: "done", outcome: "pr-opened", usd: 0.9, firstAfterMs: 3_000 }),
      run(NOW - 50 * MIN, { status: "error", usd: 0.4 }),
      run(NOW - 60 * MIN, { status: "cancelled", usd: 0 }),
      run(NOW - 1 * MIN)
    ];
    const pulls = [pull(41, "merged", NOW - 5 * MIN), pull(42, "closed", NOW - 6 * MIN), pull(43, "open", NOW - 7 * MIN)];
    const records = repositoryRecords(runs, pulls, NOW);
    expect(repositoryRecordsSchema.parse(records)).toEqual(records);
    expect(records).toMatchObject({ windowDays: 90, generatedAt: NOW });
    const [widgets] = records.repositories;
    expect(widgets).toEqual({
      repo: "acme/widgets",
      runs: 7,
      statuses: { running: 1, done: 4, error: 1, cancelled: 1 },
      outcomes: [
        { outcome: "reproduced", runs: 2 },
        { outcome: "not-a-bug", runs: 1 },
        { outcome: "pr-opened", runs: 1 }
      ],
      triaged: 3,
      reproductionRate: 2 / 3,
      pullRequests: { opened: 3, merged: 1, closedUnmerged: 1 },
      // 2, 3, 4 and 9 seconds: the nearest-rank median.
      firstResponseMedianMs: 3_000,
      cost: { usd: expect.closeTo(2, 9), complete: true },
      costPerRun: { usd: expect.closeTo(2 / 6, 9), complete: true },
      costPerMergedPullRequest: { usd: expect.closeTo(2, 9), complete: true },
      lastRunAt: NOW - 1 * MIN
    });
  });

  it("counts an outcome it has never heard of as it is, and only the triage outcomes in the reproduction rate", () => {
    const runs = [run(NOW - MIN, { status: "done", outcome: "some-new-outcome", usd: 0 }), run(NOW - 2 * MIN, { status: "done", outcome: "needs-info", usd: 0 })];
    const [record] = repositoryRecords(runs, [], NOW).repositories;
    expect(record?.outcomes).toEqual([
      { outcome: "needs-info", runs: 1 },
      { outcome: "some-new-outcome", runs: 1 }
    ]);
    expect(record).toMatchObject({ triaged: 1, reproductionRate: 0 });
  });

  it("has no rate, median or per-run cost before there is anything to divide, and no cost per merged pull request before one merged", () => {
    const [record] = repositoryRecords([run(NOW - MIN)], [pull(7, "closed", NOW - MIN)], NOW).repositories;
    expect(record).toMatchObject({
      runs: 1,
      reproductionRate: null,
      firstResponseMedianMs: null,
      cost: { usd: 0, complete: true },
      costPerRun: null,
      costPerMergedPullRequest: null,
      pullRequests: { opened: 1, merged: 0, closedUnmerged: 1 }
    });
  });

  it("keeps a floor a floor: a run that reported no cost makes every cost figure 'at least'", () => {
    const runs = [run(NOW - MIN, { status: "done", usd: 1 }), run(NOW - 2 * MIN, { status: "error" }), run(NOW - 3 * MIN, { status: "done", usd: 0.5, complete: false })];
    const [record] = repositoryRecords(runs, [pull(1, "merged", NOW - MIN), pull(2, "merged", NOW - MIN)], NOW).repositories;
    expect(record?.cost).toEqual({ usd: 1.5, complete: false });
    expect(record?.costPerRun).toEqual({ usd: 0.5, complete: false });
    expect(record?.costPerMergedPullRequest).toEqual({ usd: 0.75, complete: false });
  });

  it("reaches back 90 days: older runs and pull requests are left out, a pull request opened before and merged within counts as merged only", () => {
    const since = NOW - REPOSITORY_RECORD_MS;
    const runs = [run(since - 1, { status: "done", outcome: "reproduced", usd: 5 }), run(since, { status: "done", outcome: "not-reproduced", usd: 1 })];
    const pulls = [pull(1, "merged", since - 1, since - 10), pull(2, "merged", since + 10, since - 10), pull(3, "open", since + 5, since + 5)];
    const [record] = repositoryRecords(runs, pulls, NOW).repositories;
    expect(record).toMatchObject({ runs: 1, reproductionRate: 0, cost: { usd: 1, complete: true }, pullRequests: { opened: 1, merged: 1, closedUnmerged: 0 } });
  });

  it("groups a repository however its name is cased, spelled as its latest run spelled it, the most runs first; one with pull requests only is listed too", () => {
    const runs = [
      run(NOW - 3 * MIN, undefined, "Acme/Widgets"),
      run(NOW - 2 * MIN, undefined, "acme/widgets"),
      run(NOW - 4 * MIN, undefined, "acme/gadgets"),
      run(NOW - 5 * MIN, undefined, "ACME/WIDGETS")
    ];
    const records = repositoryRecords(runs, [pull(9, "merged", NOW - MIN, NOW - 2 * MIN, "acme/Pulls-Only"), pull(10, "open", NOW - MIN, NOW - MIN, "ACME/widgets")], NOW);
    expect(records.repositories.map((record) => [record.repo, record.runs, record.pullRequests.opened])).toEqual([
      ["acme/widgets", 3, 1],
      ["acme/gadgets", 1, 0],
      ["acme/Pulls-Only", 0, 1]
    ]);
    expect(records.repositories[2]).toMatchObject({ lastRunAt: null, costPerRun: null, costPerMergedPullRequest: { usd: 0, complete: true } });
  });
});
