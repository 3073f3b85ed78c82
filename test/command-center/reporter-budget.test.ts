/**
 * REPORTER_DAILY_BUDGET against a real CommandCenterAgent's SQLite: a
 * repository's reporter-tier runs that ended today, summed from their run
 * records (dispatch and end in either order), stop the next reporter
 * dispatch on that repository with `reporter_budget`, while a maintainer's
 * dispatch there and a reporter's elsewhere start; the figure is in the
 * snapshot's metrics, each run says its tier, and the health report's
 * Costs line reads the same day apart. Each test has its own command
 * center, put behind the service's singleton name.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { commandCenter } from "../../src/command-center";
import { parseReporterDailyBudget } from "../../src/command-center/reporter-budget";
import { costsHealth } from "../../src/health/costs";
import { createService } from "../../src/service";
import type { DispatchedEvent } from "../../src/shared/command-center";
import { isReporterBudgetRefusal, REPORTER_BUDGET_CODE, REPORTER_BUDGET_REFUSAL } from "../../src/shared/reporter-budget";
import { agentFor, uniqueRepo, waitForStatus, freshCenterName, renamedCommandCenter } from "../helpers";

/** Wait for every run a dispatch started, so none is left going when the test ends. */
async function settled(results: Array<{ session: string; submissionId: string }>) {
  for (const { session, submissionId } of results) await waitForStatus(await agentFor(session), submissionId);
}


let issue = 0;
function dispatched(repo: string, at: number, tier?: "reporter"): DispatchedEvent {
  issue++;
  return {
    type: "dispatched",
    session: `${repo.replace("/", "-")}-${issue}`,
    repo,
    issueNumber: issue,
    instruction: "reproduce this issue",
    submissionId: crypto.randomUUID(),
    ...(tier ? { tier } : {}),
    at
  };
}

const ended = (run: DispatchedEvent, at: number, usd: number) => ({
  type: "turn-ended" as const,
  session: run.session,
  submissionId: run.submissionId,
  status: "done" as const,
  cost: { usd, complete: true },
  at
});

describe("dispatch under REPORTER_DAILY_BUDGET", () => {
  const input = (repo: string, commentId: number, tier?: "reporter") => ({
    repo,
    issueNumber: 7,
    instruction: "reproduce this issue",
    installationToken: "",
    commentId,
    ...(tier ? { tier } : {})
  });

  it("stops the sixth reporter run of a day priced at $1 each, and no maintainer's run", async () => {
    const name = freshCenterName();
    const budgeted = { ...env, REPORTER_DAILY_BUDGET: "5", CommandCenterAgent: renamedCommandCenter(name) };
    const center = await commandCenter(env, name);
    const repo = uniqueRepo();
    const now = Date.now();
    // Five reporter runs of $1 each ended today; a maintainer's $50 run on the same repository counts not at all.
    const runs = [1, 2, 3, 4, 5].map(() => dispatched(repo, now - 60_000, "reporter"));
    const maintainers = dispatched(repo, now - 60_000);
    // The fifth run's end arrives before its dispatch: both are on its record either way.
    await center.recordBatch([...runs.slice(0, 4), maintainers, ended(maintainers, now - 2_000, 50)]);
    const starts: Array<{ session: string; submissionId: string }> = [];
    for (const [i, run] of runs.slice(0, 4).entries()) {
      await center.recordBatch([ended(run, now - 10_000 + i, 1)]);
      // Under the cap: the next reporter dispatch starts.
      const started = await createService(budgeted).dispatch({ ...input(repo, 100 + i, "reporter"), issueNumber: 20 + i });
      expect(started.submissionId).not.toBe("");
      starts.push(started);
    }
    await center.recordBatch([ended(runs[4]!, now - 1_000, 1)]);
    await center.recordBatch([runs[4]!]);
    expect(await center.reporterSpendToday(repo.toUpperCase())).toMatchObject({ runs: 5, spent: { usd: 5, complete: true } });

    const other = uniqueRepo();
    const refusal = await createService(budgeted).dispatch({ ...input(repo, 200, "reporter"), issueNumber: 8 }).catch((error: unknown) => error);
    expect(isReporterBudgetRefusal(refusal)).toBe(true);
    // As the webhook app may read it after a service binding: the class name first.
    expect(isReporterBudgetRefusal(new Error(`ReporterBudgetError: ${(refusal as Error).message}`))).toBe(true);
    expect((refusal as { code?: string }).code).toBe(REPORTER_BUDGET_CODE);
    expect((refusal as Error).name).toBe("ReporterBudgetError");
    expect((refusal as Error).message).toBe(
      `${REPORTER_BUDGET_REFUSAL} $5.00 of REPORTER_DAILY_BUDGET $5.00 spent on ${new Date(now).toISOString().slice(0, 10)} (UTC) by 5 reporter runs in ${repo}, so agent-think takes no more reporter runs there until 00:00 UTC; maintainers' runs go on`
    );
    // The refused issue's agent was never asked to start anything.
    const session = (await createService(env).dispatch({ ...input(repo, 201), issueNumber: 8, instruction: "stop" })).session;
    expect(await (await agentFor(session)).transcript()).toEqual([]);

    // A maintainer's dispatch on the same repository starts; so does a reporter's on another; "0" is no cap.
    for (const start of [
      createService(budgeted).dispatch({ ...input(repo, 202), issueNumber: 9 }),
      createService(budgeted).dispatch(input(other, 203, "reporter")),
      createService({ ...budgeted, REPORTER_DAILY_BUDGET: "0" }).dispatch({ ...input(repo, 204, "reporter"), issueNumber: 10 })
    ]) {
      const started = await start;
      expect(started.submissionId).not.toBe("");
      starts.push(started);
    }
    await settled(starts);

    // The command center shows reporter runs and their spend apart.
    const { metrics } = await center.refreshState();
    expect(metrics.reporterSpendToday).toEqual([{ repo: repo.toLowerCase(), runs: 5, cost: { usd: 5, complete: true } }]);
    expect(metrics.spendToday.usd).toBe(55);
    const detail = await center.threadDetail(runs[0]!.session);
    expect(detail?.runs[0]?.tier).toBe("reporter");
    expect((await center.threadDetail(maintainers.session))?.runs[0]?.tier).toBeUndefined();
  });

  it("refuses every reporter dispatch while the setting does not parse", async () => {
    const refusal = await createService({ ...env, REPORTER_DAILY_BUDGET: "five" })
      .dispatch({ ...input(uniqueRepo(), 300, "reporter") })
      .catch((error: unknown) => error);
    expect(isReporterBudgetRefusal(refusal)).toBe(true);
    expect((refusal as Error).message).toContain("REPORTER_DAILY_BUDGET must be a number of US dollars");
  });

  it("defaults to $5 a day, and 0 is no cap", () => {
    expect(parseReporterDailyBudget(undefined)).toEqual({ kind: "cap", usd: 5 });
    expect(parseReporterDailyBudget("")).toEqual({ kind: "cap", usd: 5 });
    expect(parseReporterDailyBudget("0")).toEqual({ kind: "none" });
    expect(parseReporterDailyBudget("2.5")).toEqual({ kind: "cap", usd: 2.5 });
    expect(parseReporterDailyBudget("-1")).toMatchObject({ kind: "invalid" });
  });

  it("puts the same day on the health report's Costs line: each repository's reporter runs and spend, and where the cap stops them", async () => {
    const name = freshCenterName();
    const center = await commandCenter(env, name);
    const [capped, below] = [uniqueRepo(), uniqueRepo()];
    const now = Date.now();
    const runs = [dispatched(capped, now - 60_000, "reporter"), dispatched(capped, now - 60_000, "reporter"), dispatched(below, now - 60_000, "reporter")];
    const maintainers = dispatched(below, now - 60_000);
    await center.recordBatch([...runs, maintainers, ended(runs[0]!, now - 3_000, 1.5), ended(runs[1]!, now - 2_000, 1.5), ended(runs[2]!, now - 1_000, 0.25), ended(maintainers, now - 1_000, 9)]);
    await center.refreshState();

    const line = await costsHealth({ CONTAINERS_ENABLED: "", REPORTER_DAILY_BUDGET: "3" }, () => center.monthlySpend(), {
      now,
      reporterSpend: async () => (await center.snapshot({ limit: 1 })).metrics.reporterSpendToday ?? []
    });
    const day = new Date(now).toISOString().slice(0, 10);
    expect(line.detail).toContain(
      `reporter runs today (${day} UTC) against REPORTER_DAILY_BUDGET $3.00 per repository: 3 runs, $3.25 (${capped.toLowerCase()} $3.00 by 2 runs, ${below.toLowerCase()} $0.25 by 1 run); reporter runs are refused until 00:00 UTC in ${capped.toLowerCase()}`
    );
    expect(line).toMatchObject({ status: "warn", fix: "raise REPORTER_DAILY_BUDGET to take more reporter runs today" });
    // The figure the line judges is the one dispatch is held to.
    expect(await center.reporterSpendToday(capped)).toMatchObject({ runs: 2, spent: { usd: 3, complete: true } });
  });
});
