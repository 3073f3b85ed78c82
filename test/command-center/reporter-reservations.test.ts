/**
 * The reporter tier's reservations against a real CommandCenterAgent's
 * SQLite: twenty issues opened at once start REPORTER_MAX_RUNNING runs, or
 * as many as REPORTER_DAILY_BUDGET holds at REPORTER_RUN_COST_BUDGET each;
 * runs that ended today count; a released run, an ended one (its end as its
 * agent reports it, or as reconciliation learns it) and a stale reservation
 * give their place back; one issue holds one place; a setting that does not
 * parse refuses every reservation, naming it. Each test has its own center,
 * its settings swapped in through the `reporterEnv` seam.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { commandCenter, type CommandCenterAgent } from "../../src/command-center";
import { RESERVATION_MAX_AGE_MS, type ReporterEnv, type ReserveResult } from "../../src/command-center/reporter-budget";
import type { DispatchedEvent } from "../../src/shared/command-center-events";
import { freshCenterName, uniqueRepo } from "../helpers";

type Stub = DurableObjectStub<CommandCenterAgent>;

/** A fresh command center held to `settings`. */
async function centerWith(settings: ReporterEnv) {
  const name = freshCenterName();
  const stub = (await getAgentByName(env.CommandCenterAgent, name)) as unknown as Stub;
  await runInDurableObject(stub, (instance: CommandCenterAgent) => {
    instance.reporterEnv = settings;
  });
  return { stub, center: await commandCenter(env, name) };
}

/** The reservations held, as stored. */
async function held(stub: Stub) {
  return runInDurableObject(stub, (_instance, state) =>
    state.storage.sql.exec<{ session: string; repo: string; usd: number; at: number }>("SELECT session, repo, usd, at FROM cc_reporter_reservations ORDER BY session").toArray()
  );
}

const sessionOf = (repo: string, issue: number) => `${repo.replace("/", "-").toLowerCase()}-${issue}.reporter`;
const tally = (results: ReserveResult[]) => ({
  ok: results.filter((result) => result.ok).length,
  busy: results.filter((result) => !result.ok && result.reason === "busy").length,
  budget: results.filter((result) => !result.ok && result.reason === "budget").length
});

/** What an agent sends the command center for a reporter run: its dispatch, and its end with what it cost. */
function reporterRun(repo: string, session: string, at: number, tier: "reporter" | null = "reporter") {
  const dispatched: DispatchedEvent = {
    type: "dispatched",
    session,
    repo,
    issueNumber: 1,
    instruction: "reproduce this issue",
    submissionId: crypto.randomUUID(),
    ...(tier ? { tier } : {}),
    at
  };
  const ended = (usd: number, endedAt = at + 1_000) => ({
    type: "turn-ended" as const,
    session,
    submissionId: dispatched.submissionId,
    status: "done" as const,
    cost: { usd, complete: true },
    at: endedAt
  });
  return { dispatched, ended };
}

describe("reserveReporterRun", () => {
  it("lets twenty issues opened at once start REPORTER_MAX_RUNNING runs; the rest are busy", async () => {
    const { stub, center } = await centerWith({ REPORTER_DAILY_BUDGET: "100", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "2" });
    const repo = uniqueRepo();
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => center.reserveReporterRun({ repo, session: sessionOf(repo, i + 1), now })));
    expect(tally(results)).toEqual({ ok: 2, busy: 18, budget: 0 });
    expect(results.find((result) => result.ok)).toEqual({ ok: true, reservedUsd: 1 });
    expect(results.find((result) => !result.ok)).toEqual({
      ok: false,
      reason: "busy",
      detail: `2 reporter runs going in ${repo}, as many as REPORTER_MAX_RUNNING 2 allows, so agent-think starts another there once one ends; maintainers' runs go on`
    });
    expect((await held(stub)).map((row) => ({ repo: row.repo, usd: row.usd, at: row.at }))).toEqual([
      { repo: repo.toLowerCase(), usd: 1, at: now },
      { repo: repo.toLowerCase(), usd: 1, at: now }
    ]);
    // Another repository has places of its own.
    const other = uniqueRepo();
    expect(await center.reserveReporterRun({ repo: other, session: sessionOf(other, 1), now })).toEqual({ ok: true, reservedUsd: 1 });
  });

  it("with places to spare, reserves as many runs at their cap as the day's budget holds", async () => {
    const { stub, center } = await centerWith({ REPORTER_DAILY_BUDGET: "5", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "100" });
    const repo = uniqueRepo();
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => center.reserveReporterRun({ repo, session: sessionOf(repo, i + 1), now })));
    expect(tally(results)).toEqual({ ok: 5, busy: 0, budget: 15 });
    expect(results.find((result) => !result.ok)).toEqual({
      ok: false,
      reason: "budget",
      detail: `$0.00 of REPORTER_DAILY_BUDGET $5.00 spent on ${new Date(now).toISOString().slice(0, 10)} (UTC) by 0 reporter runs in ${repo}, $5.00 held for 5 reporter runs going, and one more may spend REPORTER_RUN_COST_BUDGET $1.00, so agent-think takes no more reporter runs there until one going ends under its cap or 00:00 UTC; maintainers' runs go on`
    });
    expect(await held(stub)).toHaveLength(5);
  });

  it("counts the reporter runs that ended today, and no maintainer's run or yesterday's", async () => {
    const { center } = await centerWith({ REPORTER_DAILY_BUDGET: "5", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "100" });
    const repo = uniqueRepo();
    const now = Date.now();
    const midnight = new Date(now).setUTCHours(0, 0, 0, 0);
    const today = reporterRun(repo, sessionOf(repo, 100), now - 60_000);
    const maintainers = reporterRun(repo, `${repo.replace("/", "-")}-101`, now - 60_000, null);
    const yesterday = reporterRun(repo, sessionOf(repo, 102), midnight - 7_200_000);
    await center.recordBatch([
      today.dispatched, today.ended(2.5, now - 30_000),
      maintainers.dispatched, maintainers.ended(40, now - 30_000),
      yesterday.dispatched, yesterday.ended(4, midnight - 3_600_000)
    ]);
    expect(await center.reporterSpendToday(repo)).toMatchObject({ runs: 1, spent: { usd: 2.5, complete: true } });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => center.reserveReporterRun({ repo, session: sessionOf(repo, i + 1), now })));
    // $2.50 ended + $1 + $1 = $4.50; a third would make $5.50.
    expect(tally(results)).toEqual({ ok: 2, busy: 0, budget: 4 });
    expect(results.find((result) => !result.ok)).toMatchObject({ detail: expect.stringMatching(/^\$2\.50 of REPORTER_DAILY_BUDGET \$5\.00 spent on .* by 1 reporter run in .*, \$2\.00 held for 2 reporter runs going, and one more/) });
  });

  it("gives a place back when a dispatch is released or a run's end is recorded, once per run", async () => {
    const { stub, center } = await centerWith({ REPORTER_DAILY_BUDGET: "2", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "2" });
    const repo = uniqueRepo();
    const now = Date.now();
    const [a, b, c, d] = [1, 2, 3, 4].map((issue) => sessionOf(repo, issue)) as [string, string, string, string];
    const reserve = (session: string) => center.reserveReporterRun({ repo, session, now });
    expect(await reserve(a)).toMatchObject({ ok: true });
    expect(await reserve(b)).toMatchObject({ ok: true });
    expect(await reserve(c)).toMatchObject({ ok: false, reason: "busy" });

    // The dispatch of a failed to start: the service gives its place back.
    expect(await center.releaseReporterRun(a)).toEqual({ released: true });
    expect(await center.releaseReporterRun(a)).toEqual({ released: false });
    expect(await reserve(c)).toMatchObject({ ok: true });

    // b's run ends having spent $0.50, as its agent reports it: its place and its unspent cap come back.
    const runB = reporterRun(repo, b, now + 1_000);
    expect(await reserve(d)).toMatchObject({ ok: false, reason: "busy" });
    await center.record(runB.dispatched);
    expect(await center.record(runB.ended(0.5))).toEqual({ applied: true });
    // $0.50 spent + c's $1 held + $1 = $2.50 > $2.
    expect(await reserve(d)).toMatchObject({ ok: false, reason: "budget" });
    // c's run ends at $0.25, its end arriving before its dispatch.
    const runC = reporterRun(repo, c, now + 2_000);
    expect(await center.record(runC.ended(0.25))).toEqual({ applied: false, reason: "not_current" });
    expect(await reserve(d)).toEqual({ ok: true, reservedUsd: 1 });
    await center.record(runC.dispatched);

    // The issue of b asks again; an outbox's resend of b's old end does not free the new run's place.
    expect(await reserve(b)).toMatchObject({ ok: false, reason: "budget" });
    await center.releaseReporterRun(d);
    expect(await reserve(b)).toMatchObject({ ok: true });
    expect(await center.recordBatch([runB.ended(0.5)])).toEqual([{ applied: false, reason: "duplicate" }]);
    expect((await held(stub)).map((row) => row.session)).toEqual([b]);
    expect(await center.reporterSpendToday(repo)).toMatchObject({ runs: 2, spent: { usd: 0.75 } });
  });

  it("gives a place back when reconciliation learns that a quiet run ended", async () => {
    const { stub, center } = await centerWith({ REPORTER_DAILY_BUDGET: "0", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "1" });
    const repo = uniqueRepo();
    const session = sessionOf(repo, 1);
    const now = Date.now();
    const run = reporterRun(repo, session, now - 3_600_000);
    expect(await center.reserveReporterRun({ repo, session, now: now - 3_600_000 })).toMatchObject({ ok: true });
    expect(await center.reserveReporterRun({ repo, session: sessionOf(repo, 2), now })).toMatchObject({ ok: false, reason: "busy" });
    // Its end was never reported; asked about the quiet run, its agent says it ended.
    await runInDurableObject(stub, (instance: CommandCenterAgent) => {
      instance.askAgent = async () => ({ kind: "ended", status: "error", error: "the turn failed", at: now - 3_000_000 });
    });
    await center.record(run.dispatched);
    await center.refreshState();
    expect((await center.threadDetail(session))?.thread.status).toBe("error");
    expect(await held(stub)).toEqual([]);
    expect(await center.reserveReporterRun({ repo, session: sessionOf(repo, 2), now })).toMatchObject({ ok: true });
  });

  it("gives a place back when a continuation claims the run: a stale run is given up", async () => {
    const { stub, center } = await centerWith({ REPORTER_DAILY_BUDGET: "0", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "1" });
    const repo = uniqueRepo();
    const session = sessionOf(repo, 1);
    const now = Date.now();
    // The run's agent cannot say how it stands: the quiet thread is stale, and its place stays held.
    await runInDurableObject(stub, (instance: CommandCenterAgent) => {
      instance.askAgent = async () => ({ kind: "unreachable", error: "no answer" });
    });
    expect(await center.reserveReporterRun({ repo, session, now: now - 3_600_000 })).toMatchObject({ ok: true });
    await center.record(reporterRun(repo, session, now - 3_600_000).dispatched);
    await center.refreshState();
    expect((await center.threadDetail(session))?.thread.stale).toBe(true);
    expect(await center.reserveReporterRun({ repo, session, now })).toMatchObject({ ok: false, reason: "busy" });
    expect(await center.claimForContinuation(session, now)).toMatchObject({ ok: true });
    expect(await held(stub)).toEqual([]);
    // The continuation reserves its own.
    expect(await center.reserveReporterRun({ repo, session, now })).toEqual({ ok: true, reservedUsd: 1 });
  });

  it("drops a reservation older than RESERVATION_MAX_AGE_MS at the next reservation, and keeps a younger one", async () => {
    const { stub, center } = await centerWith({ REPORTER_DAILY_BUDGET: "5", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "2" });
    const repo = uniqueRepo();
    const now = Date.now();
    // An end that never arrived: a run reserved just over the bound ago, and one just under it.
    expect(await center.reserveReporterRun({ repo, session: sessionOf(repo, 1), now: now - RESERVATION_MAX_AGE_MS - 1 })).toMatchObject({ ok: true });
    expect(await center.reserveReporterRun({ repo, session: sessionOf(repo, 2), now: now - RESERVATION_MAX_AGE_MS + 60_000 })).toMatchObject({ ok: true });
    expect(await center.reserveReporterRun({ repo, session: sessionOf(repo, 3), now })).toMatchObject({ ok: true });
    expect((await held(stub)).map((row) => row.session)).toEqual([sessionOf(repo, 2), sessionOf(repo, 3)]);
    expect(await center.reserveReporterRun({ repo, session: sessionOf(repo, 4), now })).toMatchObject({ ok: false, reason: "busy" });
  });

  it("holds one place per session: a second reservation for it is busy, whatever the room", async () => {
    const { stub, center } = await centerWith({ REPORTER_DAILY_BUDGET: "0", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "10" });
    const repo = uniqueRepo();
    const session = sessionOf(repo, 7);
    const results = await Promise.all([1, 2, 3].map(() => center.reserveReporterRun({ repo, session, now: Date.now() })));
    expect(tally(results)).toEqual({ ok: 1, busy: 2, budget: 0 });
    expect(results.find((result) => !result.ok)).toEqual({
      ok: false,
      reason: "busy",
      detail: `a reporter run is already going for ${session}, so agent-think starts the next one there once it ends`
    });
    expect(await held(stub)).toHaveLength(1);
  });

  it("refuses every reservation while a setting does not parse, naming it, and holds nothing", async () => {
    const repo = uniqueRepo();
    const cases: Array<[ReporterEnv, string]> = [
      [{ REPORTER_DAILY_BUDGET: "five", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "2" }, "REPORTER_DAILY_BUDGET must be a number of US dollars"],
      [{ REPORTER_DAILY_BUDGET: "5", REPORTER_RUN_COST_BUDGET: "0", REPORTER_MAX_RUNNING: "2" }, "REPORTER_RUN_COST_BUDGET must be a number of US dollars above 0"],
      [{ REPORTER_DAILY_BUDGET: "5", REPORTER_RUN_COST_BUDGET: "none", REPORTER_MAX_RUNNING: "2" }, "REPORTER_RUN_COST_BUDGET must be a number of US dollars above 0"],
      [{ REPORTER_DAILY_BUDGET: "5", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "0" }, "REPORTER_MAX_RUNNING must be a whole number of runs"],
      [{ REPORTER_DAILY_BUDGET: "0.5", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "2" }, "REPORTER_RUN_COST_BUDGET $1.00 is more than REPORTER_DAILY_BUDGET $0.50"]
    ];
    for (const [settings, words] of cases) {
      const { stub, center } = await centerWith(settings);
      const result = await center.reserveReporterRun({ repo, session: sessionOf(repo, 1), now: Date.now() });
      expect(result).toMatchObject({ ok: false, reason: "invalid", detail: expect.stringContaining(words) });
      expect(result.ok === false && result.detail).toMatch(/: every reporter run is refused until it is fixed$/);
      expect(await held(stub)).toEqual([]);
    }
  });

  it("reads the deploy's own settings when no test swaps them, and refuses a malformed question without holding anything", async () => {
    const name = freshCenterName();
    const center = await commandCenter(env, name);
    const repo = uniqueRepo();
    // test/wrangler.jsonc: REPORTER_MAX_RUNNING 2.
    const results = await Promise.all([1, 2, 3].map((issue) => center.reserveReporterRun({ repo, session: sessionOf(repo, issue), now: Date.now() })));
    expect(tally(results)).toEqual({ ok: 2, busy: 1, budget: 0 });
    const stub = (await getAgentByName(env.CommandCenterAgent, name)) as unknown as Stub;
    await runInDurableObject(stub, async (instance: CommandCenterAgent) => {
      for (const bad of [{ repo: "not a repo", session: "s", now: 1 }, { repo, session: "", now: 1 }, { repo, session: "s", now: Number.NaN }, null]) {
        await expect(instance.reserveReporterRun(bad as never)).rejects.toThrow(/^reserveReporterRun: /);
      }
    });
    expect(await held(stub)).toHaveLength(2);
  });
});
