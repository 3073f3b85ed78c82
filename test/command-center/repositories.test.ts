/**
 * Each repository's record over a real CommandCenterAgent (SQLite in
 * workerd): runs kept as their dispatch, end and first message arrive, in
 * any order and more than once; the App's pull requests opened, merged and
 * closed, applied once and in order; the runs `cc_runs` held taken in when
 * the record is first made; the window pruned; and the agent Worker's
 * `recordPullRequest`, which writes nothing for a malformed change or a
 * repository outside ALLOWED_REPOS. Each test has its own command center.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { commandCenter, type CommandCenterAgent } from "../../src/command-center";
import { RepositoryBook } from "../../src/command-center/repository-book";
import { REPOSITORY_RECORD_MS } from "../../src/command-center/repository-figures";
import type { PullRequestEvent } from "../../src/shared/command-center-events";
import { repositoryRecordsSchema } from "../../src/shared/repository-records";
import { createService } from "../../src/service";
import { freshCenterName, renamedCommandCenter } from "../helpers";

async function fresh() {
  const name = freshCenterName();
  const stub = (await getAgentByName(env.CommandCenterAgent, name)) as unknown as DurableObjectStub<CommandCenterAgent>;
  return { name, center: await commandCenter(env, name), stub };
}

const MIN = 60_000;

/** One run's events: dispatched at `at`, its 🚀 posted `firstAfterMs` later, ended with `outcome` and `usd`. */
function runEvents(session: string, submissionId: string, at: number, end: { outcome?: string; usd?: number; status?: "done" | "error"; firstAfterMs?: number } = {}) {
  const ref = { session, submissionId };
  return {
    dispatched: { type: "dispatched", ...ref, repo: "acme/widgets", issueNumber: Number(session.split("-").pop()), instruction: "reproduce this issue", at },
    rocket: { type: "notice", ...ref, kind: "rocket", state: "sent", at: at + (end.firstAfterMs ?? 1_000) },
    ended: {
      type: "turn-ended",
      ...ref,
      status: end.status ?? "done",
      ...(end.outcome ? { outcome: end.outcome } : {}),
      ...(end.usd === undefined ? {} : { cost: { usd: end.usd, complete: true } }),
      at: at + 5 * MIN
    }
  };
}

const pullRequest = (number: number, state: PullRequestEvent["state"], at: number, fields: Partial<PullRequestEvent> = {}): PullRequestEvent => ({
  type: "pull-request",
  repo: "acme/widgets",
  number,
  issueNumber: number - 100,
  state,
  openedAt: at - 30 * MIN,
  at,
  ...fields
});

describe("each repository's record", () => {
  it("keeps runs whatever order their events arrive in, and the App's pull requests, and computes the figures", async () => {
    const { center } = await fresh();
    const now = Date.now();
    const a = runEvents("acme-widgets-1", "a", now - 30 * MIN, { outcome: "reproduced", usd: 0.3, firstAfterMs: 2_000 });
    const b = runEvents("acme-widgets-2", "b", now - 20 * MIN, { outcome: "not-reproduced", usd: 0.1, firstAfterMs: 6_000 });
    const c = runEvents("acme-widgets-3", "c", now - 10 * MIN, { outcome: "pr-opened", usd: 0.2, firstAfterMs: 4_000 });
    await center.recordBatch([a.dispatched, a.rocket, a.ended]);
    // Its end and its 🚀 before its dispatch, and each twice.
    await center.recordBatch([b.ended, b.rocket, b.ended, b.dispatched, b.rocket]);
    await center.record(c.dispatched);
    await center.record(c.ended);
    await center.record(c.rocket);

    expect(await center.recordPullRequest(pullRequest(141, "open", now - 9 * MIN))).toEqual({ applied: true });
    expect(await center.recordPullRequest(pullRequest(141, "merged", now - 2 * MIN))).toEqual({ applied: true });
    expect(await center.recordPullRequest(pullRequest(141, "merged", now - 2 * MIN))).toEqual({ applied: false, reason: "duplicate" });
    // A merge is for good: a later close or reopen of it changes nothing.
    expect(await center.recordPullRequest(pullRequest(141, "closed", now - MIN))).toEqual({ applied: false, reason: "duplicate" });
    const opened142 = now - 33 * MIN;
    expect(await center.recordPullRequest(pullRequest(142, "closed", now - 3 * MIN, { repo: "ACME/Widgets", openedAt: opened142 }))).toEqual({ applied: true });
    // An older delivery arriving late does not reopen it.
    expect(await center.recordPullRequest(pullRequest(142, "open", now - 8 * MIN, { openedAt: opened142 }))).toEqual({ applied: false, reason: "duplicate" });
    expect(await center.recordPullRequest({ ...pullRequest(143, "open", now), number: 0 })).toEqual({ applied: false, reason: "invalid" });

    const records = repositoryRecordsSchema.parse(await center.repositories());
    expect(records.repositories).toHaveLength(1);
    expect(records.repositories[0]).toEqual({
      repo: "acme/widgets",
      runs: 3,
      statuses: { running: 0, done: 3, error: 0, cancelled: 0 },
      outcomes: [
        { outcome: "not-reproduced", runs: 1 },
        { outcome: "pr-opened", runs: 1 },
        { outcome: "reproduced", runs: 1 }
      ],
      triaged: 2,
      reproductionRate: 0.5,
      pullRequests: { opened: 2, merged: 1, closedUnmerged: 1 },
      firstResponseMedianMs: 4_000,
      cost: { usd: expect.closeTo(0.6, 9), complete: true },
      costPerRun: { usd: expect.closeTo(0.2, 9), complete: true },
      costPerMergedPullRequest: { usd: expect.closeTo(0.6, 9), complete: true },
      lastRunAt: now - 10 * MIN
    });
  });

  it("takes in the runs cc_runs holds when the record is first made, and forgets what is older than its cut-off", async () => {
    const { center, stub } = await fresh();
    const now = Date.now();
    const DAY = 24 * 60 * MIN;
    // Within the week cc_runs keeps, so no sweep of the registry takes them first.
    const older = runEvents("acme-widgets-4", "older", now - 2 * DAY, { outcome: "not-reproduced", usd: 1 });
    const newer = runEvents("acme-widgets-5", "newer", now - MIN, { outcome: "reproduced", usd: 0.5, firstAfterMs: 3_000 });
    await center.recordBatch([older.dispatched, older.ended, newer.dispatched, newer.rocket, newer.ended]);
    await center.recordPullRequest(pullRequest(150, "merged", now - 2 * DAY));
    await center.recordPullRequest(pullRequest(151, "open", now - MIN, { openedAt: now - 2 * DAY }));
    await runInDurableObject(stub, (_instance: CommandCenterAgent, state) => {
      // A deploy from before the record: its table is not there yet, the runs are.
      state.storage.sql.exec("DROP TABLE cc_repo_runs");
      const book = new RepositoryBook(state.storage.sql);
      expect(book.runsSince(0).map((run) => [run.dispatchedAt, run.status, run.outcome, run.cost, run.firstMessageAt])).toEqual([
        [now - 2 * DAY, "done", "not-reproduced", { usd: 1, complete: true }, undefined],
        [now - MIN, "done", "reproduced", { usd: 0.5, complete: true }, now - MIN + 3_000]
      ]);
      book.prune(now - DAY);
      expect(book.runsSince(0).map((run) => run.dispatchedAt)).toEqual([now - MIN]);
      // A pull request opened before the cut-off that changed after it is kept.
      expect(book.pullRequestsSince(0).map((pull) => pull.number)).toEqual([151]);
    });
    const [record] = (await center.repositories()).repositories;
    expect(record).toMatchObject({ runs: 1, reproductionRate: 1, firstResponseMedianMs: 3_000, pullRequests: { opened: 1, merged: 0, closedUnmerged: 0 } });
    expect(REPOSITORY_RECORD_MS).toBe(90 * DAY);
  });

  it("is reached through the agent Worker's recordPullRequest, which writes nothing for a malformed change or a repository outside ALLOWED_REPOS", async () => {
    const name = freshCenterName();
    const service = createService({ ...env, CommandCenterAgent: renamedCommandCenter(name) });
    const change = pullRequest(160, "merged", Date.now());
    expect(await service.recordPullRequest({ ...change, state: "reopened" })).toEqual({ applied: false, reason: "invalid", field: "state" });
    expect(await service.recordPullRequest({ ...change, repo: "not a repository" })).toEqual({ applied: false, reason: "invalid", field: "repo" });
    expect(await service.recordPullRequest({ ...change, token: "ghs_x" })).toEqual({ applied: false, reason: "invalid", field: "input" });
    const elsewhere = createService({ ...env, ALLOWED_REPOS: "acme/other", CommandCenterAgent: renamedCommandCenter(name) });
    expect(await elsewhere.recordPullRequest(change)).toEqual({ applied: false, reason: "repo_not_allowed" });
    expect((await (await commandCenter(env, name)).repositories()).repositories).toEqual([]);

    expect(await service.recordPullRequest(change)).toEqual({ applied: true });
    expect(await service.recordPullRequest(change)).toEqual({ applied: false, reason: "duplicate" });
    const [record] = (await (await commandCenter(env, name)).repositories()).repositories;
    expect(record).toMatchObject({ repo: "acme/widgets", runs: 0, pullRequests: { opened: 1, merged: 1, closedUnmerged: 0 } });
  });
});
