/**
 * The reporter tier at dispatch, against a real CommandCenterAgent's SQLite:
 * a reporter dispatch reserves its run's cap, so it is refused with
 * `reporter_budget` once the reporter runs that ended today and those held
 * reach REPORTER_DAILY_BUDGET, and with `reporter_busy` once the repository
 * has REPORTER_MAX_RUNNING going or the issue its own, while a maintainer's
 * dispatch there and a reporter's elsewhere start; a dispatch whose run
 * could not start gives its place back; the figure is in the snapshot's
 * metrics, each run says its tier, and the health report's Costs line reads
 * the same day apart. Each test has its own command center, put behind the
 * service's singleton name, its settings swapped in (`reporterEnv`).
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { commandCenter, type CommandCenterAgent } from "../../src/command-center";
import { parseReporterDailyBudget, type ReporterEnv } from "../../src/command-center/reporter-budget";
import { costsHealth } from "../../src/health/costs";
import { sessionName } from "../../src/shared/session-name";
import { createService } from "../../src/service";
import type { DispatchedEvent } from "../../src/shared/command-center-events";
import {
  isReporterBudgetRefusal,
  isReporterBusyRefusal,
  REPORTER_BUDGET_CODE,
  REPORTER_BUDGET_REFUSAL,
  REPORTER_BUSY_CODE,
  REPORTER_BUSY_REFUSAL
} from "../../src/shared/reporter-budget";
import { agentFor, uniqueRepo, waitForStatus, freshCenterName, renamedCommandCenter } from "../helpers";

/** Wait for every run a dispatch started, so none is left going when the test ends. */
async function settled(results: Array<{ session: string; submissionId: string }>) {
  for (const { session, submissionId } of results) await waitForStatus(await agentFor(session), submissionId);
}

/** A fresh command center held to `settings`, and the service's env with it as the singleton. */
async function centerWith(settings: ReporterEnv) {
  const name = freshCenterName();
  const stub = (await getAgentByName(env.CommandCenterAgent, name)) as unknown as DurableObjectStub<CommandCenterAgent>;
  await runInDurableObject(stub, (instance: CommandCenterAgent) => {
    instance.reporterEnv = settings;
  });
  const held = () => runInDurableObject(stub, (_instance, state) => state.storage.sql.exec<{ session: string }>("SELECT session FROM cc_reporter_reservations ORDER BY session").toArray().map((row) => row.session));
  return { center: await commandCenter(env, name), serviceEnv: { ...env, CommandCenterAgent: renamedCommandCenter(name) }, held };
}

/** A ThinkAgent namespace whose every agent fails to start a run (an agent that cannot be reached). */
function unstartable(): Env["ThinkAgent"] {
  return {
    idFromName: (name: string) => env.ThinkAgent.idFromName(name),
    get: () => ({
      __unsafe_ensureInitialized: async () => {},
      startRun: async () => {
        throw new Error("the issue's agent could not be reached");
      }
    })
  } as unknown as Env["ThinkAgent"];
}

let issue = 0;
function dispatched(repo: string, at: number, tier?: "reporter"): DispatchedEvent {
  issue++;
  return {
    type: "dispatched",
    session: `${repo.replace("/", "-")}-${issue}${tier ? ".reporter" : ""}`,
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

describe("dispatch under the reporter tier's limits", () => {
  // Each run that starts answers at once: the scripted demonstration would add seconds and prove nothing here.
  const input = (repo: string, commentId: number, tier?: "reporter") => ({
    repo,
    issueNumber: 7,
    instruction: "reproduce this issue\nTEST: reply done",
    installationToken: "",
    commentId,
    ...(tier ? { tier } : {})
  });

  it("counts today's ended reporter runs and the runs going at their cap: the run that would pass REPORTER_DAILY_BUDGET is refused, no maintainer's", async () => {
    const { center, serviceEnv, held } = await centerWith({ REPORTER_DAILY_BUDGET: "5", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "100" });
    const repo = uniqueRepo();
    const now = Date.now();
    // Three reporter runs of $1 each ended today; a maintainer's $50 run on the same repository counts not at all.
    const runs = [1, 2, 3].map(() => dispatched(repo, now - 60_000, "reporter"));
    const maintainers = dispatched(repo, now - 60_000);
    // The third run's end arrives before its dispatch: both are on its record either way.
    await center.recordBatch([...runs.slice(0, 2), maintainers, ended(maintainers, now - 2_000, 50), ended(runs[0]!, now - 10_000, 1), ended(runs[1]!, now - 9_000, 1), ended(runs[2]!, now - 8_000, 1)]);
    await center.recordBatch([runs[2]!]);
    expect(await center.reporterSpendToday(repo.toUpperCase())).toMatchObject({ runs: 3, spent: { usd: 3, complete: true } });

    // $3 ended + $1 + $1 held: two more reporter runs start.
    const starts: Array<{ session: string; submissionId: string }> = [];
    for (const issueNumber of [20, 21]) {
      const started = await createService(serviceEnv).dispatch({ ...input(repo, 100 + issueNumber, "reporter"), issueNumber });
      expect(started.session).toBe(sessionName(repo, issueNumber, "reporter"));
      expect(started.submissionId).not.toBe("");
      starts.push(started);
    }
    expect(await held()).toEqual([sessionName(repo, 20, "reporter"), sessionName(repo, 21, "reporter")]);

    const refusal = await createService(serviceEnv).dispatch({ ...input(repo, 200, "reporter"), issueNumber: 8 }).catch((error: unknown) => error);
    expect(isReporterBudgetRefusal(refusal)).toBe(true);
    expect(isReporterBusyRefusal(refusal)).toBe(false);
    // As the webhook app may read it after a service binding: the class name first.
    expect(isReporterBudgetRefusal(new Error(`ReporterBudgetError: ${(refusal as Error).message}`))).toBe(true);
    expect((refusal as { code?: string }).code).toBe(REPORTER_BUDGET_CODE);
    expect((refusal as Error).name).toBe("ReporterBudgetError");
    expect((refusal as Error).message).toBe(
      `${REPORTER_BUDGET_REFUSAL} $3.00 of REPORTER_DAILY_BUDGET $5.00 spent on ${new Date(now).toISOString().slice(0, 10)} (UTC) by 3 reporter runs in ${repo}, $2.00 held for 2 reporter runs going, and one more may spend REPORTER_RUN_COST_BUDGET $1.00, so agent-think takes no more reporter runs there until one going ends under its cap or 00:00 UTC; maintainers' runs go on`
    );
    // The refused issue's reporter agent was never asked to start anything, and nothing more is held.
    expect(await (await agentFor(sessionName(repo, 8, "reporter"))).transcript()).toEqual([]);
    expect(await held()).toHaveLength(2);

    // A maintainer's dispatch on the same repository starts; so does a reporter's on another.
    const other = uniqueRepo();
    for (const start of [
      createService(serviceEnv).dispatch({ ...input(repo, 202), issueNumber: 9 }),
      createService(serviceEnv).dispatch(input(other, 203, "reporter"))
    ]) {
      const started = await start;
      expect(started.submissionId).not.toBe("");
      starts.push(started);
    }
    await settled(starts);

    // The command center shows reporter runs and their spend apart.
    const { metrics } = await center.refreshState();
    expect(metrics.reporterSpendToday).toEqual([{ repo: repo.toLowerCase(), runs: 3, cost: { usd: 3, complete: true } }]);
    expect(metrics.spendToday.usd).toBe(53);
    const detail = await center.threadDetail(runs[0]!.session);
    expect(detail?.runs[0]?.tier).toBe("reporter");
    expect((await center.threadDetail(maintainers.session))?.runs[0]?.tier).toBeUndefined();
  });

  it("refuses a reporter run with reporter_busy while the repository has REPORTER_MAX_RUNNING going, or the issue its own", async () => {
    const { serviceEnv, held } = await centerWith({ REPORTER_DAILY_BUDGET: "0", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "1" });
    const repo = uniqueRepo();
    const started = await createService(serviceEnv).dispatch({ ...input(repo, 300, "reporter"), issueNumber: 30 });
    const refusals = await Promise.all([
      createService(serviceEnv).dispatch({ ...input(repo, 301, "reporter"), issueNumber: 31 }).catch((error: unknown) => error),
      createService(serviceEnv).dispatch({ ...input(repo, 302, "reporter"), issueNumber: 30 }).catch((error: unknown) => error)
    ]);
    for (const refusal of refusals) {
      expect(isReporterBusyRefusal(refusal)).toBe(true);
      expect(isReporterBudgetRefusal(refusal)).toBe(false);
      expect(refusal).toMatchObject({ name: "ReporterBusyError", code: REPORTER_BUSY_CODE });
    }
    expect((refusals[0] as Error).message).toBe(
      `${REPORTER_BUSY_REFUSAL} 1 reporter run going in ${repo}, as many as REPORTER_MAX_RUNNING 1 allows, so agent-think starts another there once one ends; maintainers' runs go on`
    );
    expect((refusals[1] as Error).message).toBe(
      `${REPORTER_BUSY_REFUSAL} a reporter run is already going for ${sessionName(repo, 30, "reporter")}, so agent-think starts the next one there once it ends`
    );
    expect(await (await agentFor(sessionName(repo, 31, "reporter"))).transcript()).toEqual([]);
    // A maintainer's run on the busy repository starts.
    const maintainers = await createService(serviceEnv).dispatch({ ...input(repo, 303), issueNumber: 31 });
    await settled([started, maintainers]);
    expect(await held()).toEqual([sessionName(repo, 30, "reporter")]);
  });

  it("gives the place back when the issue's agent cannot start the run", async () => {
    const { serviceEnv, held } = await centerWith({ REPORTER_DAILY_BUDGET: "5", REPORTER_RUN_COST_BUDGET: "1", REPORTER_MAX_RUNNING: "1" });
    const repo = uniqueRepo();
    const failed = await createService({ ...serviceEnv, ThinkAgent: unstartable() }).dispatch({ ...input(repo, 400, "reporter"), issueNumber: 40 }).catch((error: unknown) => error);
    expect((failed as Error).message).toBe("the issue's agent could not be reached");
    expect(await held()).toEqual([]);
    const started = await createService(serviceEnv).dispatch({ ...input(repo, 401, "reporter"), issueNumber: 41 });
    await settled([started]);
    expect(await held()).toEqual([sessionName(repo, 41, "reporter")]);
  });

  it("refuses every reporter dispatch while a setting does not parse, naming it", async () => {
    for (const [settings, words] of [
      [{ REPORTER_DAILY_BUDGET: "five" }, "REPORTER_DAILY_BUDGET must be a number of US dollars"],
      [{ REPORTER_RUN_COST_BUDGET: "0" }, "REPORTER_RUN_COST_BUDGET must be a number of US dollars above 0"],
      [{ REPORTER_MAX_RUNNING: "none" }, "REPORTER_MAX_RUNNING must be a whole number of runs"]
    ] as const) {
      const { serviceEnv, held } = await centerWith(settings);
      const repo = uniqueRepo();
      const refusal = await createService(serviceEnv).dispatch(input(repo, 500, "reporter")).catch((error: unknown) => error);
      expect(isReporterBudgetRefusal(refusal)).toBe(true);
      expect((refusal as Error).message).toContain(words);
      expect((refusal as Error).message).toMatch(/: every reporter run is refused until it is fixed$/);
      expect(await held()).toEqual([]);
      expect(await (await agentFor(sessionName(repo, 7, "reporter"))).transcript()).toEqual([]);
    }
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
